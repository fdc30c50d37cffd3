/**
 * @module knowledge/vector-stores/sqlite/store
 * The embedded store: one SQLite file of its own, one class over modules by concept.
 *
 * The file (connection.ts) holds a chunk table, an FTS5 index and the indexes beside them
 * (schema.ts). The class holds the options and state and hands each operation to the module
 * that does it.
 *
 * Vector search (vector-search.ts) is exact cosine in SQL, over every row or over the rows an
 * index proposes: the IVF lists (ivf.ts, on from 10k chunks unless `ivf: false` or
 * `quantizedCandidates`) or the binary-quantized candidates (staging.ts, `quantizedCandidates`),
 * falling back to the exact scan when fewer than `limit` survive the filter. Keyword search
 * (keyword-search.ts) is FTS5 BM25, on a reader thread for large stores (reader-thread.ts).
 *
 * Writes are staged (writes.ts, staging.ts): a content's new chunks are written in small
 * transactions under a version number that searches do not see yet, then made visible in one
 * short transaction that also hides the old version; the old rows are deleted afterwards, again
 * in small transactions (deletes.ts). So writing 100k chunks never holds the event loop for
 * long, a search never sees half a version, and a crash leaves nothing half-visible.
 */
import { asScope, type ChunkScope } from '../chunk-scope.js';
import type Database from 'better-sqlite3';
import { RuntimeError } from '../../../errors.js';
import { storageError } from '../../../storage/sql-errors.js';
import { sharedOffload, type Offload } from '../../../workers/offload.js';
import { DEFAULT_TABLE, checkTableName } from '../identifiers.js';
import type { PendingChunk, ReindexableStore, StoreEmbedderState } from '../reindex.js';
import { searchWith } from '../search.js';
import type { ChunkOwner, SearchHit, SearchRequest, StoredChunk, UpsertOptions, VectorStore } from '../vector-store.js';
import { BackgroundCheckpoints } from './checkpoint.js';
import { MMAP_BYTES, openConnection } from './connection.js';
import type { SqliteStoreContext } from './context.js';
import { deleteContent } from './deletes.js';
import { IVF_DEFAULTS, IvfIndex } from './ivf.js';
import { jsonKeys } from './keys.js';
import { keywordSearch } from './keyword-search.js';
import { SqliteReader } from './reader-thread.js';
import * as reindex from './reindex.js';
import { prepareTables } from './schema.js';
import { CANDIDATES_MIN, CANDIDATES_PER_RESULT, visible } from './staging.js';
import { vectorSearch } from './vector-search.js';
import { upsertContent } from './writes.js';

export interface SqliteVectorStoreOptions {
  /** File path, or `:memory:`. Parent directories are created. */
  path: string;
  /** Prefix of this store's tables; default `svc_knowledge`. */
  table?: string;
  id?: string;
  name?: string;
  description?: string;
  /**
   * Vector search through a binary-quantized candidate index (sqlite-vec `vec0`, one bit per
   * dimension), reranked by exact cosine: `{ perResult, min }` candidates are taken
   * (max(min, perResult x limit)). Off by default: it is ~5-10x faster at 100k chunks, but its
   * recall depends on the embedder (bench/knowledge.ts measured 0.49-0.69 recall@10 on its
   * bag-of-words vectors), so it is a choice to make with the bench on your own vectors.
   */
  quantizedCandidates?: { perResult?: number; min?: number } | undefined;
  /**
   * Vector search through an inverted-file index (ivf.ts): k-means centroids trained in
   * the knowledge worker pool once the store holds `trainAt` chunks; a search runs exact cosine
   * over the rows of the `probes` lists nearest to the query, falling back to the exact scan when
   * fewer than `limit` of them pass the filter. Exact search until trained. On by default (unless
   * `quantizedCandidates` is set) with lists 512, probes 64, trainAt 10000 (docs/ARCHITECTURE.md
   * "Knowledge performance" has the sweep and the recall measured on a real sentence encoder).
   * `false`: search exactly and never train, but keep an index another process trained current.
   */
  ivf?: { lists?: number; probes?: number; trainAt?: number } | false | undefined;
  /**
   * Where IVF training and the write-ahead-log checkpoints of large writes run
   * (checkpoint.ts); default the process's knowledge worker pool. `inline`: neither
   * leaves the event loop (SQLite checkpoints as it commits).
   */
  offload?: Offload | undefined;
}

export class SqliteVectorStore implements VectorStore, ReindexableStore {
  readonly id: string;
  readonly name: string;
  readonly description: string | undefined;
  readonly table: string;
  private db: Database.Database | undefined;
  /** The IVF index: searched through (and trained) unless `ivf: false`, maintained always. */
  readonly ivf: IvfIndex;
  /** A thread reading the file for full-text queries of large stores (not for `:memory:`). */
  readonly reader: SqliteReader | undefined;
  /** What the modules work on: this store's connection, tables and state. */
  private readonly ctx: SqliteStoreContext;

  /** The store's file is its own database, so its id is the store id. */
  get dbId(): string {
    return this.id;
  }

  constructor(options: SqliteVectorStoreOptions) {
    this.table = checkTableName(options.table ?? DEFAULT_TABLE);
    this.id = options.id ?? `sqlite-${this.table}`;
    this.name = options.name ?? 'SQLite';
    const ivf = options.ivf ?? (options.quantizedCandidates ? false : {});
    const method = ivf ? `cosine (exact, then over k-means lists from ${ivf.trainAt ?? IVF_DEFAULTS.trainAt} chunks)` : options.quantizedCandidates ? 'cosine over binary-quantized candidates' : 'exact cosine';
    this.description = options.description ?? `Embedded SQLite: ${method} (sqlite-vec) and FTS5 keyword search`;
    let candidates: SqliteStoreContext['candidates'];
    if (options.quantizedCandidates) {
      const { perResult = CANDIDATES_PER_RESULT, min = CANDIDATES_MIN } = options.quantizedCandidates;
      if (!Number.isInteger(perResult) || perResult < 1 || !Number.isInteger(min) || min < 1 || min > 4096) {
        throw new TypeError('SqliteVectorStore: quantizedCandidates.perResult and .min must be whole numbers of at least 1 (min at most 4096)');
      }
      candidates = { perResult, min };
    }
    const settings = { ...IVF_DEFAULTS, ...(ivf ? Object.fromEntries(Object.entries(ivf).filter(([, v]) => v !== undefined)) : {}) };
    for (const [key, value] of Object.entries(settings)) {
      if (!Number.isInteger(value) || value < 1) throw new TypeError(`SqliteVectorStore: ivf.${key} must be a whole number of at least 1`);
    }
    const offload = options.offload;
    this.ivf = new IvfIndex(() => this.handle(), this.table, settings, () => offload ?? sharedOffload(), ivf ? 'search' : 'maintain');
    let checkpoints: BackgroundCheckpoints | undefined;
    if (options.path !== ':memory:') {
      checkpoints = new BackgroundCheckpoints(options.path, () => offload ?? sharedOffload());
      this.reader = new SqliteReader(options.path, MMAP_BYTES);
    }
    this.db = openConnection(options.path);
    this.ctx = {
      t: this.table,
      run: (fn) => this.run(fn),
      connection: () => this.db,
      staged: false,
      bits: false,
      candidates,
      ivf: this.ivf,
      checkpoints,
      reader: this.reader,
    };
  }

  private handle(): Database.Database {
    if (!this.db) throw new RuntimeError('SERVICE_UNAVAILABLE', 'The knowledge store is closed');
    return this.db;
  }

  /** Runs synchronous SQLite work, turning driver errors into the runtime's storage errors. */
  private run<T>(fn: (db: Database.Database) => T): T {
    const db = this.handle();
    try {
      return fn(db);
    } catch (e) {
      throw RuntimeError.isInstance(e) ? e : storageError(e);
    }
  }

  async create(): Promise<void> {
    await prepareTables(this.ctx);
    void this.ivf.maybeTrain();
  }

  async upsert(contentId: string, chunks: readonly StoredChunk[], embedderId?: string, owner: ChunkOwner = {}, options: UpsertOptions = {}): Promise<void> {
    await upsertContent(this.ctx, contentId, chunks, embedderId, owner, options.replaces ?? []);
  }

  async deleteByContentId(contentId: string, options: { ownedBy?: string | undefined } = {}): Promise<number> {
    return deleteContent(this.ctx, contentId, options.ownedBy);
  }

  async contentExists(contentId: string): Promise<boolean> {
    return this.run((db) => db.prepare(`SELECT 1 FROM ${this.table}_chunks c WHERE content_id = ? AND ${visible(this.table, this.ctx.staged)} LIMIT 1`).get(contentId) !== undefined);
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
    reindex.beginReindex(this.ctx, target);
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
    const swapped = reindex.swapReindexed(this.ctx, target);
    if (swapped) void this.ivf.maybeTrain();
    return swapped;
  }

  /** Resolves when IVF training started by this store (if any) has finished. */
  async ivfSettled(): Promise<void> {
    await this.ivf.settled();
  }

  async close(): Promise<void> {
    // Training must not touch a closed handle: stop it (between batches, or its worker task)
    // and let it release its claim before the handle goes.
    this.ivf.stop();
    await this.ivf.settled();
    await this.ctx.checkpoints?.settled();
    await this.reader?.close();
    this.db?.close();
    this.db = undefined;
  }
}
