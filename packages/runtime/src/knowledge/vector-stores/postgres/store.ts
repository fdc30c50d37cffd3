/**
 * @module knowledge/vector-stores/postgres/store
 * The scale-out store: PostgreSQL with pgvector. Chunks live in one table with a `vector`
 * column, JSONB metadata and a generated `tsvector` (GIN-indexed) for keyword search. Vector
 * search is exact cosine (`<=>`), filtered in the same query by JSONB containment, which is
 * type-exact. Hybrid is RRF in the application, as on SQLite.
 *
 * It talks through the runtime's `Db`, so it shares the pool, and the transaction discipline,
 * of the rest of the runtime. pgvector's type and operator are schema-qualified with the
 * schema the extension lives in, because the runtime's search_path may not include it.
 */
import { RuntimeError } from '../../../errors.js';
import { isUniqueViolation } from '../../../storage/sql-errors.js';
import type { Db, SqlClient, SqlValue } from '../../../storage/db.js';
import type { Filter } from '../filter-language.js';
import { postgresFilter } from '../filter-sql.js';
import { queryTokens } from '../filters.js';
import { searchWith } from '../search.js';
import { embedderConflict, parseEmbedderKey } from '../embedder-record.js';
import { checkTableName } from '../identifiers.js';
import type { ChunkOwner, SearchHit, SearchRequest, StoredChunk, VectorStore } from '../vector-store.js';
import { parseLastReindex, routeVectors, type PendingChunk, type ReindexableStore, type StoreEmbedderState } from '../reindex.js';

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
   * An HNSW index for vector search (approximate), instead of the exact scan. Off by default:
   * exact search is right for up to ~10k chunks; see bench/knowledge.ts for latency and recall.
   */
  hnsw?: HnswOptions | undefined;
}

/** pgvector's HNSW settings (see its README); the defaults are pgvector's, ef_search raised for recall. */
export interface HnswOptions {
  /** Links per node; default 16. */
  m?: number;
  /** Candidate list while building; default 64. */
  efConstruction?: number;
  /** Candidate list while searching (`hnsw.ef_search`); default 100. Higher: better recall, slower. */
  efSearch?: number;
}

interface Row {
  chunk_id: string;
  content_id: string;
  name: string | null;
  content: string;
  meta_data: string | Record<string, unknown>;
  score: number | string;
}

export class PostgresVectorStore implements VectorStore, ReindexableStore {
  readonly id: string;
  readonly name: string;
  readonly description: string | undefined;
  readonly table: string;
  private readonly db: Db;

  get dbId(): string {
    return this.db.id;
  }

  private readonly language: string;
  /** `"schema".vector`, once create() found where pgvector is installed. */
  private vectorType: string | undefined;
  private cosine: string | undefined;
  private vectorSchemaName: string | undefined;
  private readonly hnsw: Required<HnswOptions> | undefined;
  /** pgvector 0.8+ can keep scanning the graph past filtered-out candidates. */
  private iterativeScan = false;
  /** The dimension the HNSW index was built for, once it exists. */
  private hnswDims: number | undefined;

  constructor(options: PostgresVectorStoreOptions) {
    if (options.db.kind !== 'postgres') throw new TypeError('PostgresVectorStore needs a PostgreSQL Db');
    this.db = options.db;
    this.table = checkTableName(options.table ?? 'svc_knowledge');
    this.language = /^[a-z_]+$/.test(options.language ?? 'english') ? (options.language ?? 'english') : 'english';
    this.id = options.id ?? `postgres-${this.table}`;
    this.name = options.name ?? 'PgVector';
    this.description = options.description ?? `PostgreSQL with pgvector: ${options.hnsw ? 'HNSW' : 'exact'} cosine and tsvector keyword search`;
    if (options.hnsw) {
      const { m = 16, efConstruction = 64, efSearch = 100 } = options.hnsw;
      checkSetting('m', m, 2, 100);
      checkSetting('efConstruction', efConstruction, 4, 1000);
      checkSetting('efSearch', efSearch, 1, 1000);
      this.hnsw = { m, efConstruction, efSearch };
    }
  }

  async create(): Promise<void> {
    const schema = await this.vectorSchema();
    const q = `"${schema.replace(/"/g, '""')}"`;
    this.vectorType = `${q}.vector`;
    this.cosine = `OPERATOR(${q}.<=>)`;
    const t = this.table;
    const lang = this.language;
    await this.db.execute(`CREATE TABLE IF NOT EXISTS ${t}_chunks (
      content_id TEXT NOT NULL,
      chunk_id TEXT NOT NULL,
      name TEXT,
      content TEXT NOT NULL,
      meta_data JSONB NOT NULL,
      filters JSONB NOT NULL,
      embedding ${this.vectorType},
      fts TSVECTOR GENERATED ALWAYS AS (to_tsvector('${lang}', content)) STORED,
      created_at BIGINT NOT NULL,
      knowledge_id TEXT,
      user_id TEXT,
      PRIMARY KEY (content_id, chunk_id)
    )`);
    await this.addOwnerColumns();
    await this.db.execute(`CREATE INDEX IF NOT EXISTS ${t}_chunks_fts ON ${t}_chunks USING GIN (fts)`);
    await this.db.execute(`CREATE TABLE IF NOT EXISTS ${t}_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)`);
    // Vectors of a reindex in progress (see reindex.ts); the type has no dimension, so a reindex may change it.
    await this.db.execute(`CREATE TABLE IF NOT EXISTS ${t}_reindex (
      content_id TEXT NOT NULL,
      chunk_id TEXT NOT NULL,
      embedding ${this.vectorType} NOT NULL,
      PRIMARY KEY (content_id, chunk_id)
    )`);
    this.vectorSchemaName = q;
    if (this.hnsw) {
      const version = (await this.db.query<{ v: string }>(`SELECT extversion AS v FROM pg_extension WHERE extname = 'vector'`))[0]?.v ?? '0';
      const [major = 0, minor = 0] = version.split('.').map(Number);
      this.iterativeScan = major > 0 || minor >= 8;
      const stored = (await this.db.query<{ value: string }>(`SELECT value FROM ${t}_meta WHERE key = 'embedder'`))[0]?.value;
      const dims = Number(stored?.split(':').pop());
      if (Number.isInteger(dims) && dims > 0) await this.createHnsw(dims);
    }
  }

  /**
   * Tables made before chunks carried their owner get the columns; old rows stay shared (NULL).
   * Looked up first, because ALTER TABLE locks the table against searches even when it has
   * nothing to do.
   */
  private async addOwnerColumns(): Promise<void> {
    const table = `${this.table}_chunks`;
    const present = await this.db.query<{ name: string }>(
      `SELECT attname AS name FROM pg_attribute WHERE attrelid = to_regclass($1) AND attname IN ('knowledge_id', 'user_id') AND NOT attisdropped`,
      [table],
    );
    if (present.length < 2) await this.db.execute(`ALTER TABLE ${table} ADD COLUMN IF NOT EXISTS knowledge_id TEXT, ADD COLUMN IF NOT EXISTS user_id TEXT`);
  }

  /**
   * The HNSW index, on the column cast to its dimension (an index needs one; the column takes any).
   * Built once; on a large table the first build takes a while.
   */
  private async createHnsw(dims: number): Promise<void> {
    if (!this.hnsw || this.hnswDims === dims || dims > 2000) return;
    const { vectorType } = this.ready();
    await this.db.execute(
      `CREATE INDEX IF NOT EXISTS ${this.table}_chunks_hnsw ON ${this.table}_chunks USING hnsw ((embedding::${vectorType}(${dims})) ${this.vectorSchemaName}.vector_cosine_ops) WITH (m = ${this.hnsw.m}, ef_construction = ${this.hnsw.efConstruction})`,
    );
    this.hnswDims = dims;
  }

  /** Installs pgvector if needed (tolerating a concurrent install) and returns its schema. */
  private async vectorSchema(): Promise<string> {
    const find = async () =>
      (await this.db.query<{ schema: string }>(`SELECT n.nspname AS schema FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'vector'`))[0]?.schema;
    let schema = await find();
    if (schema) return schema;
    try {
      await this.db.execute('CREATE EXTENSION IF NOT EXISTS vector');
    } catch (e) {
      if (!isUniqueViolation(e)) {
        throw new RuntimeError('SERVICE_UNAVAILABLE', 'The pgvector extension is not available on this PostgreSQL server (CREATE EXTENSION vector failed)', { cause: e });
      }
    }
    schema = await find();
    if (!schema) throw new RuntimeError('SERVICE_UNAVAILABLE', 'The pgvector extension could not be found after CREATE EXTENSION vector');
    return schema;
  }

  private ready(): { vectorType: string; cosine: string } {
    if (!this.vectorType || !this.cosine) throw new RuntimeError('SERVICE_UNAVAILABLE', 'PostgresVectorStore: call create() first');
    return { vectorType: this.vectorType, cosine: this.cosine };
  }

  async upsert(contentId: string, chunks: readonly StoredChunk[], embedderId?: string, owner: ChunkOwner = {}): Promise<void> {
    const { vectorType } = this.ready();
    const t = this.table;
    let searched = false;
    await this.db.transaction(async (tx) => {
      const route = await this.checkEmbedder(tx, chunks, embedderId);
      searched = route.main;
      await tx.execute(`DELETE FROM ${t}_chunks WHERE content_id = $1`, [contentId]);
      await tx.execute(`DELETE FROM ${t}_reindex WHERE content_id = $1`, [contentId]);
      const now = Math.floor(Date.now() / 1000);
      // Many rows per statement: one round trip per row made 100k chunks take minutes.
      for (let start = 0; start < chunks.length; start += INSERT_BATCH) {
        const params: SqlValue[] = [];
        const staged: SqlValue[] = [];
        const rows = chunks.slice(start, start + INSERT_BATCH).map((c) => {
          const vector = c.embedding ? vectorLiteral(c.embedding) : null;
          if (route.stage && vector) staged.push(contentId, c.id, vector);
          const n = params.push(
            contentId,
            c.id,
            c.name ?? null,
            stripNul(c.content),
            JSON.stringify(c.meta_data),
            JSON.stringify(c.filters),
            route.main ? vector : null,
            now,
            owner.knowledgeId ?? null,
            owner.userId ?? null,
          );
          const p = (i: number) => `$${n - 10 + i}`;
          return `(${p(1)}, ${p(2)}, ${p(3)}, ${p(4)}, ${p(5)}::jsonb, ${p(6)}::jsonb, ${p(7)}::${vectorType}, ${p(8)}, ${p(9)}, ${p(10)})`;
        });
        await tx.execute(
          `INSERT INTO ${t}_chunks (content_id, chunk_id, name, content, meta_data, filters, embedding, created_at, knowledge_id, user_id) VALUES ${rows.join(', ')}`,
          params,
        );
        // A reindex in progress gets this content's vectors in its staging table too.
        if (staged.length > 0) {
          const values = Array.from({ length: staged.length / 3 }, (_, i) => `($${i * 3 + 1}, $${i * 3 + 2}, $${i * 3 + 3}::${vectorType})`);
          await tx.execute(`INSERT INTO ${t}_reindex (content_id, chunk_id, embedding) VALUES ${values.join(', ')}`, staged);
        }
      }
    });
    const dims = chunks.find((c) => c.embedding)?.embedding?.length;
    // Vectors staged for a reindex to another dimension are not the ones the index serves.
    if (dims !== undefined && searched && this.hnsw && this.hnswDims === undefined) await this.createHnsw(dims);
  }

  private async checkEmbedder(tx: SqlClient, chunks: readonly StoredChunk[], embedderId: string | undefined): Promise<{ main: boolean; stage: boolean }> {
    const dims = chunks.find((c) => c.embedding)?.embedding?.length;
    if (dims === undefined) return { main: true, stage: false };
    const key = `${embedderId ?? 'unknown'}:${dims}`;
    const meta = await this.meta(tx, true);
    const route = routeVectors(meta.embedder, meta.reindex, embedderId, key);
    if (route.stage) {
      if (chunks.some((c) => c.embedding && c.embedding.length !== dims)) throw embedderConflict(key, 'vectors of mixed lengths');
      return route;
    }
    // Concurrent first inserts agree through the primary key: the loser reads the winner's value.
    await tx.execute(`INSERT INTO ${this.table}_meta (key, value) VALUES ('embedder', $1) ON CONFLICT (key) DO NOTHING`, [key]);
    const stored = (await tx.query<{ value: string }>(`SELECT value FROM ${this.table}_meta WHERE key = 'embedder'`))[0]?.value;
    if (stored !== key) throw embedderConflict(stored ?? 'unknown', key);
    if (chunks.some((c) => c.embedding && c.embedding.length !== dims)) throw embedderConflict(key, 'vectors of mixed lengths');
    return route;
  }

  async deleteByContentId(contentId: string, options: { ownedBy?: string | undefined } = {}): Promise<number> {
    const { ownedBy } = options;
    return this.db.transaction(async (tx) => {
      const deleted =
        ownedBy === undefined
          ? await tx.execute(`DELETE FROM ${this.table}_chunks WHERE content_id = $1`, [contentId])
          : await tx.execute(`DELETE FROM ${this.table}_chunks WHERE content_id = $1 AND user_id = $2`, [contentId, ownedBy]);
      // A content has one owner: when its chunks went, so do the vectors a reindex staged for it.
      if (ownedBy === undefined || deleted > 0) await tx.execute(`DELETE FROM ${this.table}_reindex WHERE content_id = $1`, [contentId]);
      return deleted;
    });
  }

  async contentExists(contentId: string): Promise<boolean> {
    return (await this.db.query(`SELECT 1 FROM ${this.table}_chunks WHERE content_id = $1 LIMIT 1`, [contentId])).length > 0;
  }

  async search(request: SearchRequest): Promise<SearchHit[]> {
    const who = request.visibleTo;
    return searchWith(request, { vector: (v, limit, f) => this.vectorSearch(v, limit, f, who), keyword: (q, limit, f) => this.keywordSearch(q, limit, f, who) });
  }

  private async vectorSearch(vector: number[], limit: number, filters: Filter | undefined, visibleTo: string | undefined): Promise<SearchHit[]> {
    if (this.hnsw && this.hnswDims === vector.length) {
      const approximate = await this.hnswSearch(vector, limit, filters, visibleTo, this.hnsw.efSearch);
      // A filter can leave the index's candidates short of `limit`: then scan exactly.
      if (approximate.length >= limit) return approximate;
    }
    const { vectorType, cosine } = this.ready();
    const params: SqlValue[] = [vectorLiteral(vector), limit];
    const where = filterSql(filters, visibleTo, params);
    const rows = await this.db.query<Row>(
      `SELECT chunk_id, content_id, name, content, meta_data, (embedding ${cosine} $1::${vectorType}) AS score
       FROM ${this.table}_chunks WHERE embedding IS NOT NULL ${where} ORDER BY score LIMIT $2`,
      params,
    );
    return rows.map((r) => toHit(r, Math.min(1, Math.max(0, 1 - Number(r.score)))));
  }

  /** Through the HNSW index: the ORDER BY must be the indexed expression for the planner to use it. */
  private async hnswSearch(vector: number[], limit: number, filters: Filter | undefined, visibleTo: string | undefined, efSearch: number): Promise<SearchHit[]> {
    const { vectorType, cosine } = this.ready();
    const typed = `${vectorType}(${vector.length})`;
    const params: SqlValue[] = [vectorLiteral(vector), limit];
    const where = filterSql(filters, visibleTo, params);
    const rows = await this.db.transaction(async (tx) => {
      await tx.execute(`SET LOCAL hnsw.ef_search = ${efSearch}`);
      // pgvector 0.8: keep scanning the graph while a filter rejects candidates.
      if (this.iterativeScan) await tx.execute(`SET LOCAL hnsw.iterative_scan = strict_order`);
      return tx.query<Row>(
        `SELECT chunk_id, content_id, name, content, meta_data, (embedding::${typed} ${cosine} $1::${typed}) AS score
         FROM ${this.table}_chunks WHERE embedding IS NOT NULL ${where} ORDER BY embedding::${typed} ${cosine} $1::${typed} LIMIT $2`,
        params,
      );
    });
    return rows.map((r) => toHit(r, Math.min(1, Math.max(0, 1 - Number(r.score)))));
  }

    private async keywordSearch(query: string, limit: number, filters: Filter | undefined, visibleTo: string | undefined): Promise<SearchHit[]> {
    const tokens = queryTokens(query);
    if (tokens.length === 0) return [];
    // Tokens are letters and digits only, so joining them with `|` is a safe OR query.
    const params: SqlValue[] = [tokens.join(' | '), limit];
    const where = filterSql(filters, visibleTo, params);
    const rows = await this.db.query<Row>(
      `SELECT chunk_id, content_id, name, content, meta_data, ts_rank_cd(fts, q) AS score
       FROM ${this.table}_chunks, to_tsquery('${this.language}', $1) q
       WHERE fts @@ q ${where} ORDER BY score DESC, chunk_id LIMIT $2`,
      params,
    );
    // agno's normalisation of ts_rank_cd: r / (r + 0.1).
    return rows.map((r) => toHit(r, Number(r.score) / (Number(r.score) + 0.1)));
  }

  async filterKeys(visibleTo?: string): Promise<string[]> {
    return this.jsonKeys('filters', visibleTo);
  }

  async metadataKeys(visibleTo?: string): Promise<string[]> {
    return this.jsonKeys('meta_data', visibleTo);
  }

  private async jsonKeys(column: 'filters' | 'meta_data', visibleTo: string | undefined): Promise<string[]> {
    const params: SqlValue[] = [];
    const where = filterSql(undefined, visibleTo, params);
    const rows = await this.db.query<{ key: string }>(`SELECT DISTINCT jsonb_object_keys(${column}) AS key FROM ${this.table}_chunks WHERE TRUE ${where} ORDER BY key`, params);
    return rows.map((r) => r.key);
  }

  private async meta(sql: SqlClient, lock = false): Promise<Record<string, string>> {
    // FOR SHARE: a reindex's swap (which locks these rows for update) waits for this writer, or
    // this writer for it. Both lock in key order, so neither can hold one row the other waits on.
    const rows = await sql.query<{ key: string; value: string }>(`SELECT key, value FROM ${this.table}_meta ORDER BY key ${lock ? 'FOR SHARE' : ''}`);
    return Object.fromEntries(rows.map((r) => [r.key, r.value]));
  }

  async embedderState(): Promise<StoreEmbedderState> {
    this.ready();
    const meta = await this.meta(this.db);
    return { embedder: meta.embedder ? parseEmbedderKey(meta.embedder) : undefined, reindexTarget: meta.reindex, lastReindex: parseLastReindex(meta.reindex_done) };
  }

  async beginReindex(target: string): Promise<void> {
    this.ready();
    await this.db.transaction(async (tx) => {
      // One reindex at a time: the row lock orders concurrent starts.
      await tx.execute(`INSERT INTO ${this.table}_meta (key, value) VALUES ('reindex', $1) ON CONFLICT (key) DO NOTHING`, [target]);
      const [current] = await tx.query<{ value: string }>(`SELECT value FROM ${this.table}_meta WHERE key = 'reindex' FOR UPDATE`);
      if (current?.value === target) return;
      await tx.execute(`UPDATE ${this.table}_meta SET value = $1 WHERE key = 'reindex'`, [target]);
      await tx.execute(`DELETE FROM ${this.table}_reindex`);
    });
  }

  async pendingChunks(limit: number): Promise<PendingChunk[]> {
    const t = this.table;
    return this.db.query<PendingChunk>(
      `SELECT c.content_id, c.chunk_id, c.content FROM ${t}_chunks c
       WHERE NOT EXISTS (SELECT 1 FROM ${t}_reindex r WHERE r.content_id = c.content_id AND r.chunk_id = c.chunk_id)
       ORDER BY c.content_id, c.chunk_id LIMIT $1`,
      [limit],
    );
  }

  async stageVectors(rows: readonly (PendingChunk & { embedding: number[] })[]): Promise<number> {
    const { vectorType } = this.ready();
    const t = this.table;
    if (rows.length === 0) return 0;
    return this.db.transaction(async (tx) => {
      let staged = 0;
      for (const r of rows) {
        // Only if the chunk still holds the text that was embedded (it may have been replaced meanwhile).
        staged += await tx.execute(
          `INSERT INTO ${t}_reindex (content_id, chunk_id, embedding)
           SELECT $1, $2, $3::${vectorType} WHERE EXISTS (SELECT 1 FROM ${t}_chunks WHERE content_id = $1 AND chunk_id = $2 AND content = $4)
           ON CONFLICT (content_id, chunk_id) DO NOTHING`,
          [r.content_id, r.chunk_id, vectorLiteral(r.embedding), r.content],
        );
      }
      return staged;
    });
  }

  async reindexCounts(): Promise<{ done: number; total: number }> {
    const t = this.table;
    const [row] = await this.db.query<{ total: string | number; done: string | number }>(
      `SELECT (SELECT count(*) FROM ${t}_chunks) AS total,
              (SELECT count(*) FROM ${t}_reindex r WHERE EXISTS (SELECT 1 FROM ${t}_chunks c WHERE c.content_id = r.content_id AND c.chunk_id = r.chunk_id)) AS done`,
    );
    return { done: Number(row?.done ?? 0), total: Number(row?.total ?? 0) };
  }

  async finishReindex(target: string): Promise<boolean> {
    const t = this.table;
    const swapped = await this.db.transaction(async (tx): Promise<number | null | false> => {
      const meta = await tx.query<{ key: string; value: string }>(`SELECT key, value FROM ${t}_meta ORDER BY key FOR UPDATE`);
      if (meta.find((m) => m.key === 'reindex')?.value !== target) return false;
      // Writers of chunks wait until the swap is done, so none slips in between the check and it.
      await tx.execute(`LOCK TABLE ${t}_chunks IN SHARE ROW EXCLUSIVE MODE`);
      const [left] = await tx.query(
        `SELECT 1 FROM ${t}_chunks c WHERE NOT EXISTS (SELECT 1 FROM ${t}_reindex r WHERE r.content_id = c.content_id AND r.chunk_id = c.chunk_id) LIMIT 1`,
      );
      if (left) return false;
      const dimsOf = this.ready().vectorType.replace(/\.vector$/, '.vector_dims');
      const dims = await tx.query<{ dims: number }>(`SELECT DISTINCT ${dimsOf}(embedding) AS dims FROM ${t}_reindex`);
      if (dims.length > 1) throw embedderConflict(target, 'vectors of mixed lengths');
      // An HNSW index is built for one dimension (its expression casts to it): another one goes.
      if (dims[0] && Number(dims[0].dims) !== this.hnswDims) await tx.execute(`DROP INDEX IF EXISTS ${t}_chunks_hnsw`);
      const chunks = await tx.execute(
        `UPDATE ${t}_chunks c SET embedding = r.embedding FROM ${t}_reindex r WHERE r.content_id = c.content_id AND r.chunk_id = c.chunk_id`,
      );
      await tx.execute(`DELETE FROM ${t}_reindex`);
      await tx.execute(`DELETE FROM ${t}_meta WHERE key = 'reindex'`);
      const dimensions = dims[0] ? Number(dims[0].dims) : null;
      // Updated in place, so a writer that waited on the row reads the new value.
      if (dimensions === null) await tx.execute(`DELETE FROM ${t}_meta WHERE key = 'embedder'`);
      else await tx.execute(`INSERT INTO ${t}_meta (key, value) VALUES ('embedder', $1) ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value`, [`${target}:${dimensions}`]);
      const done = JSON.stringify({ embedder: target, dimensions, chunks, finished_at: Math.floor(Date.now() / 1000) });
      await tx.execute(`INSERT INTO ${t}_meta (key, value) VALUES ('reindex_done', $1) ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value`, [done]);
      return dimensions;
    });
    if (swapped === false) return false;
    if (swapped !== null && swapped !== this.hnswDims) {
      this.hnswDims = undefined;
      if (this.hnsw) await this.createHnsw(swapped);
    }
    return true;
  }

  /** The Db belongs to the caller (usually the runtime), which closes it. */
  async close(): Promise<void> {}
}

/** Rows per INSERT: 10 parameters each, well under PostgreSQL's 65,535 per statement. */
const INSERT_BATCH = 500;

function checkSetting(name: string, value: number, min: number, max: number): void {
  if (!Number.isInteger(value) || value < min || value > max) throw new TypeError(`PostgresVectorStore: hnsw.${name} must be a whole number from ${min} to ${max}, got ${value}`);
}

function vectorLiteral(vector: readonly number[]): string {
  return `[${vector.join(',')}]`;
}

/** PostgreSQL text cannot hold NUL; agno substitutes U+FFFD too. */
function stripNul(text: string): string {
  return text.includes('\u0000') ? text.replaceAll('\u0000', '\uFFFD') : text;
}

/**
 * The filter as an `AND ...` clause over the chunk's metadata (type-exact, see filter-sql.ts),
 * and the user scope: shared chunks and the user's own.
 */
function filterSql(filter: Filter | undefined, visibleTo: string | undefined, params: SqlValue[]): string {
  let sql = filter ? ` AND ${postgresFilter(filter, 'meta_data', params)}` : '';
  if (visibleTo !== undefined) {
    params.push(visibleTo);
    sql += ` AND (user_id IS NULL OR user_id = $${params.length})`;
  }
  return sql;
}

function toHit(row: Row, score: number): SearchHit {
  const meta = typeof row.meta_data === 'string' ? (JSON.parse(row.meta_data) as Record<string, unknown>) : row.meta_data;
  return {
    chunk: { id: row.chunk_id, content_id: row.content_id, ...(row.name !== null ? { name: row.name } : {}), content: row.content, meta_data: meta },
    score,
  };
}
