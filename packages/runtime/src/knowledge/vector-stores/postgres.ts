/**
 * @module knowledge/vector-stores/postgres
 * The scale-out store: PostgreSQL with pgvector. Chunks live in one table with a `vector`
 * column, JSONB metadata and a generated `tsvector` (GIN-indexed) for keyword search. Vector
 * search is exact cosine (`<=>`), filtered in the same query by JSONB containment, which is
 * type-exact. Hybrid is RRF in the application, as on SQLite.
 *
 * It talks through the runtime's `Db`, so it shares the pool, and the transaction discipline,
 * of the rest of the runtime. pgvector's type and operator are schema-qualified with the
 * schema the extension lives in, because the runtime's search_path may not include it.
 */
import { RuntimeError } from '../../errors.js';
import { isUniqueViolation } from '../../storage/sql-errors.js';
import type { Db, SqlClient, SqlValue } from '../../storage/db.js';
import type { Filter } from './filter-language.js';
import { postgresFilter } from './filter-sql.js';
import { queryTokens } from './filters.js';
import { embedderConflict, searchWith } from './search.js';
import { checkTableName } from './identifiers.js';
import type { SearchHit, SearchRequest, StoredChunk, VectorStore } from './vector-store.js';

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

export class PostgresVectorStore implements VectorStore {
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
      PRIMARY KEY (content_id, chunk_id)
    )`);
    await this.db.execute(`CREATE INDEX IF NOT EXISTS ${t}_chunks_fts ON ${t}_chunks USING GIN (fts)`);
    await this.db.execute(`CREATE TABLE IF NOT EXISTS ${t}_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)`);
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

  async upsert(contentId: string, chunks: readonly StoredChunk[], embedderId?: string): Promise<void> {
    const { vectorType } = this.ready();
    const t = this.table;
    await this.db.transaction(async (tx) => {
      await this.checkEmbedder(tx, chunks, embedderId);
      await tx.execute(`DELETE FROM ${t}_chunks WHERE content_id = $1`, [contentId]);
      const now = Math.floor(Date.now() / 1000);
      // Many rows per statement: one round trip per row made 100k chunks take minutes.
      for (let start = 0; start < chunks.length; start += INSERT_BATCH) {
        const params: SqlValue[] = [];
        const rows = chunks.slice(start, start + INSERT_BATCH).map((c) => {
          const n = params.push(contentId, c.id, c.name ?? null, stripNul(c.content), JSON.stringify(c.meta_data), JSON.stringify(c.filters), c.embedding ? vectorLiteral(c.embedding) : null, now);
          const p = (i: number) => `$${n - 8 + i}`;
          return `(${p(1)}, ${p(2)}, ${p(3)}, ${p(4)}, ${p(5)}::jsonb, ${p(6)}::jsonb, ${p(7)}::${vectorType}, ${p(8)})`;
        });
        await tx.execute(`INSERT INTO ${t}_chunks (content_id, chunk_id, name, content, meta_data, filters, embedding, created_at) VALUES ${rows.join(', ')}`, params);
      }
    });
    const dims = chunks.find((c) => c.embedding)?.embedding?.length;
    if (dims !== undefined && this.hnsw && this.hnswDims === undefined) await this.createHnsw(dims);
  }

  private async checkEmbedder(tx: SqlClient, chunks: readonly StoredChunk[], embedderId: string | undefined): Promise<void> {
    const dims = chunks.find((c) => c.embedding)?.embedding?.length;
    if (dims === undefined) return;
    const key = `${embedderId ?? 'unknown'}:${dims}`;
    // Concurrent first inserts agree through the primary key: the loser reads the winner's value.
    await tx.execute(`INSERT INTO ${this.table}_meta (key, value) VALUES ('embedder', $1) ON CONFLICT (key) DO NOTHING`, [key]);
    const stored = (await tx.query<{ value: string }>(`SELECT value FROM ${this.table}_meta WHERE key = 'embedder'`))[0]?.value;
    if (stored !== key) throw embedderConflict(stored ?? 'unknown', key);
    if (chunks.some((c) => c.embedding && c.embedding.length !== dims)) throw embedderConflict(key, 'vectors of mixed lengths');
  }

  async deleteByContentId(contentId: string): Promise<number> {
    return this.db.execute(`DELETE FROM ${this.table}_chunks WHERE content_id = $1`, [contentId]);
  }

  async contentExists(contentId: string): Promise<boolean> {
    return (await this.db.query(`SELECT 1 FROM ${this.table}_chunks WHERE content_id = $1 LIMIT 1`, [contentId])).length > 0;
  }

  async search(request: SearchRequest): Promise<SearchHit[]> {
    return searchWith(request, { vector: (v, limit, f) => this.vectorSearch(v, limit, f), keyword: (q, limit, f) => this.keywordSearch(q, limit, f) });
  }

  private async vectorSearch(vector: number[], limit: number, filters: Filter | undefined): Promise<SearchHit[]> {
    if (this.hnsw && this.hnswDims === vector.length) {
      const approximate = await this.hnswSearch(vector, limit, filters, this.hnsw.efSearch);
      // A filter can leave the index's candidates short of `limit`: then scan exactly.
      if (approximate.length >= limit) return approximate;
    }
    const { vectorType, cosine } = this.ready();
    const params: SqlValue[] = [vectorLiteral(vector), limit];
    const where = filterSql(filters, params);
    const rows = await this.db.query<Row>(
      `SELECT chunk_id, content_id, name, content, meta_data, (embedding ${cosine} $1::${vectorType}) AS score
       FROM ${this.table}_chunks WHERE embedding IS NOT NULL ${where} ORDER BY score LIMIT $2`,
      params,
    );
    return rows.map((r) => toHit(r, Math.min(1, Math.max(0, 1 - Number(r.score)))));
  }

  /** Through the HNSW index: the ORDER BY must be the indexed expression for the planner to use it. */
  private async hnswSearch(vector: number[], limit: number, filters: Filter | undefined, efSearch: number): Promise<SearchHit[]> {
    const { vectorType, cosine } = this.ready();
    const typed = `${vectorType}(${vector.length})`;
    const params: SqlValue[] = [vectorLiteral(vector), limit];
    const where = filterSql(filters, params);
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

  private async keywordSearch(query: string, limit: number, filters: Filter | undefined): Promise<SearchHit[]> {
    const tokens = queryTokens(query);
    if (tokens.length === 0) return [];
    // Tokens are letters and digits only, so joining them with `|` is a safe OR query.
    const params: SqlValue[] = [tokens.join(' | '), limit];
    const where = filterSql(filters, params);
    const rows = await this.db.query<Row>(
      `SELECT chunk_id, content_id, name, content, meta_data, ts_rank_cd(fts, q) AS score
       FROM ${this.table}_chunks, to_tsquery('${this.language}', $1) q
       WHERE fts @@ q ${where} ORDER BY score DESC, chunk_id LIMIT $2`,
      params,
    );
    // agno's normalisation of ts_rank_cd: r / (r + 0.1).
    return rows.map((r) => toHit(r, Number(r.score) / (Number(r.score) + 0.1)));
  }

  async filterKeys(): Promise<string[]> {
    const rows = await this.db.query<{ key: string }>(`SELECT DISTINCT jsonb_object_keys(filters) AS key FROM ${this.table}_chunks ORDER BY key`);
    return rows.map((r) => r.key);
  }

  async metadataKeys(): Promise<string[]> {
    const rows = await this.db.query<{ key: string }>(`SELECT DISTINCT jsonb_object_keys(meta_data) AS key FROM ${this.table}_chunks ORDER BY key`);
    return rows.map((r) => r.key);
  }

  /** The Db belongs to the caller (usually the runtime), which closes it. */
  async close(): Promise<void> {}
}



/** Rows per INSERT: 8 parameters each, well under PostgreSQL's 65,535 per statement. */
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

/** The filter as an `AND ...` clause over the chunk's metadata (type-exact, see filter-sql.ts). */
function filterSql(filter: Filter | undefined, params: SqlValue[]): string {
  return filter ? ` AND ${postgresFilter(filter, 'meta_data', params)}` : '';
}

function toHit(row: Row, score: number): SearchHit {
  const meta = typeof row.meta_data === 'string' ? (JSON.parse(row.meta_data) as Record<string, unknown>) : row.meta_data;
  return {
    chunk: { id: row.chunk_id, content_id: row.content_id, ...(row.name !== null ? { name: row.name } : {}), content: row.content, meta_data: meta },
    score,
  };
}
