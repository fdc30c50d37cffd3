/**
 * @module knowledge/vector-stores/postgres/store
 * The scale-out store: PostgreSQL with pgvector, one class over modules by concept.
 *
 * Chunks live in one table with a `vector` column, JSONB metadata and a generated `tsvector`
 * (GIN-indexed) for keyword search (schema.ts). Vector search goes through an HNSW index
 * (hnsw.ts, built in the background without blocking writes: hnsw-build.ts), or is exact cosine
 * (`<=>`) with `hnsw: false` or until the index exists, filtered in the same query by JSONB
 * conditions, which are type-exact.
 * Hybrid is RRF in the application, as on SQLite. The class holds the options and state and
 * hands each operation to the module that does it.
 *
 * It talks through the runtime's `Db`, so it shares the pool, and the transaction discipline,
 * of the rest of the runtime. pgvector's type and operator are schema-qualified with the
 * schema the extension lives in (pgvector.ts).
 */
import { asScope, type ChunkScope } from '../chunk-scope.js';
import type { Db } from '../../../storage/db.js';
import { DEFAULT_TABLE, checkTableName } from '../identifiers.js';
import type { PendingChunk, ReindexableStore, StoreEmbedderState } from '../reindex.js';
import { searchWith } from '../search.js';
import type { ChunkOwner, SearchHit, SearchRequest, StoredChunk, UpsertOptions, VectorStore } from '../vector-store.js';
import type { PostgresStoreContext } from './context.js';
import { hnswSettled } from './hnsw-build.js';
import { hnswSettings, type HnswOptions } from './hnsw-settings.js';
import { jsonKeys } from './keys.js';
import { keywordSearch } from './keyword-search.js';
import * as reindex from './reindex.js';
import { prepareTables } from './schema.js';
import { vectorSearch } from './vector-search.js';
import { deleteContent, upsertContent } from './writes.js';

export type { HnswOptions } from './hnsw-settings.js';

export interface PostgresVectorStoreOptions {
  /** A PostgreSQL `Db` (e.g. the runtime's own); pgvector must be installable on its server. */
  db: Db;
  /** Prefix of this store's tables; default `svc_knowledge`. */
  table?: string;
  id?: string;
  name?: string;
  description?: string;
  /** Text search configuration for the tsvector; default `english`. */
  language?: string;
  /**
   * The HNSW index vector search goes through (pgvector; approximate, recall ~0.97 at 100k
   * chunks with the defaults, see hnsw-settings.ts and bench/knowledge-postgres.ts). On by
   * default; `false` searches exactly (recall 1, but ~100-350 ms at 100k chunks).
   */
  hnsw?: HnswOptions | false | undefined;
}

export class PostgresVectorStore implements VectorStore, ReindexableStore {
  readonly id: string;
  readonly name: string;
  readonly description: string | undefined;
  readonly table: string;
  /** What the modules work on: the Db, the tables and what create() found. */
  private readonly ctx: PostgresStoreContext;

  get dbId(): string {
    return this.ctx.db.id;
  }

  constructor(options: PostgresVectorStoreOptions) {
    if (options.db.kind !== 'postgres') throw new TypeError('PostgresVectorStore needs a PostgreSQL Db');
    this.table = checkTableName(options.table ?? DEFAULT_TABLE);
    const language = /^[a-z_]+$/.test(options.language ?? 'english') ? (options.language ?? 'english') : 'english';
    this.id = options.id ?? `postgres-${this.table}`;
    this.name = options.name ?? 'PgVector';
    this.description = options.description ?? `PostgreSQL with pgvector: ${options.hnsw === false ? 'exact' : 'HNSW'} cosine and tsvector keyword search`;
    const hnsw = options.hnsw === false ? undefined : hnswSettings(options.hnsw ?? {});
    this.ctx = { db: options.db, t: this.table, language, hnsw, pgvector: undefined, iterativeScan: false, hnswIndex: undefined, hnswBuild: undefined, narrowing: { meta: false, user: false, tenant: false }, broadNarrowings: new Map() };
  }

  async create(): Promise<void> {
    await prepareTables(this.ctx);
  }

  async upsert(contentId: string, chunks: readonly StoredChunk[], embedderId?: string, owner: ChunkOwner = {}, options: UpsertOptions = {}): Promise<void> {
    await upsertContent(this.ctx, contentId, chunks, embedderId, owner, options.replaces ?? []);
  }

  async deleteByContentId(contentId: string, options: { ownedBy?: string | undefined } = {}): Promise<number> {
    return deleteContent(this.ctx, contentId, options.ownedBy);
  }

  async contentExists(contentId: string): Promise<boolean> {
    return (await this.ctx.db.query(`SELECT 1 FROM ${this.table}_chunks WHERE content_id = $1 LIMIT 1`, [contentId])).length > 0;
  }

  async search(request: SearchRequest): Promise<SearchHit[]> {
    return searchWith(request, {
      vector: (vector, limit, filter, visibleTo) => vectorSearch(this.ctx, vector, limit, filter, visibleTo),
      keyword: (query, limit, filter, visibleTo) => keywordSearch(this.ctx, query, limit, filter, visibleTo),
    });
  }

  async filterKeys(visibleTo?: string | ChunkScope): Promise<string[]> {
    return jsonKeys(this.ctx, 'filters', asScope(visibleTo));
  }

  async metadataKeys(visibleTo?: string | ChunkScope): Promise<string[]> {
    return jsonKeys(this.ctx, 'meta_data', asScope(visibleTo));
  }

  async embedderState(): Promise<StoreEmbedderState> {
    return reindex.embedderState(this.ctx);
  }

  async beginReindex(target: string): Promise<void> {
    await reindex.beginReindex(this.ctx, target);
  }

  async pendingChunks(limit: number): Promise<PendingChunk[]> {
    return reindex.pendingChunks(this.ctx, limit);
  }

  async stageVectors(rows: readonly (PendingChunk & { embedding: number[] })[]): Promise<number> {
    return reindex.stageVectors(this.ctx, rows);
  }

  async reindexCounts(): Promise<{ done: number; total: number }> {
    return reindex.reindexCounts(this.ctx);
  }

  async finishReindex(target: string): Promise<boolean> {
    return reindex.finishReindex(this.ctx, target);
  }

  /** Resolves when the HNSW index build in progress, if any, has finished (or failed). */
  async hnswSettled(): Promise<void> {
    await hnswSettled(this.ctx);
  }

  /** The HNSW index searches use now: its name, dimension and precision; undefined: exact. */
  get hnswIndex(): { name: string; dims: number; half: boolean } | undefined {
    return this.ctx.hnswIndex && { ...this.ctx.hnswIndex };
  }

  /**
   * Stops an index build in progress (the next open starts it again). The Db belongs to the
   * caller (usually the runtime), which closes it.
   */
  async close(): Promise<void> {
    await this.ctx.hnswBuild?.cancel();
  }
}
