/**
 * @module knowledge/vector-stores/sqlite
 * The embedded store: one SQLite file holding a chunk table (vectors as float32 BLOBs, metadata
 * as JSON) and an FTS5 index.
 *
 * Vector search is an exact scan (`vec_distance_cosine` over every row, the filter in the same
 * WHERE): recall 1, ~3 ms at 10k 384-d chunks, ~55-125 ms at 100k (2 shared cores). With
 * `quantizedCandidates` the vectors are also kept binary-quantized (one bit per dimension) in a
 * sqlite-vec `vec0` table: a search takes the nearest candidates by Hamming distance there and
 * ranks them by exact cosine, falling back to the exact scan if fewer than `limit` survive the
 * filter. See sqlite-staging.ts for the numbers and for how writes are staged.
 *
 * Writes are staged (sqlite-staging.ts): a content's new chunks are written in small
 * transactions under a version number that searches do not see yet, then made visible in one
 * short transaction that also hides the old version; the old rows are deleted afterwards, again
 * in small transactions. So writing 100k chunks never holds the event loop for long, a search
 * never sees half a version, and a crash leaves nothing half-visible.
 *
 * The store owns its own better-sqlite3 connection because it must load the sqlite-vec
 * extension into it. All statements are synchronous, and no transaction spans an `await`.
 * Give it a file of its own rather than the runtime's database file: the runtime's connection
 * may hold a transaction across awaits, and this connection's synchronous busy-wait for the
 * lock would then stall the event loop until the busy timeout.
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import Database from 'better-sqlite3';
import * as sqliteVec from 'sqlite-vec';
import { RuntimeError } from '../../errors.js';
import { storageError } from '../../storage/sql-errors.js';
import type { Filter } from './filter-language.js';
import { sqliteFilter } from './filter-sql.js';
import { queryTokens } from './filters.js';
import { embedderConflict, searchWith } from './search.js';
import { checkTableName } from './identifiers.js';
import {
  CANDIDATES_MIN,
  CANDIDATES_PER_RESULT,
  WRITE_BATCH,
  backfillBitIndex,
  createBitIndex,
  createStagingTables,
  hasBitIndex,
  hasVersions,
  publishVersion,
  purgeAbandoned,
  purgeVersion,
  retireLive,
  stageVersion,
  visible,
} from './sqlite-staging.js';
import type { SearchHit, SearchRequest, StoredChunk, VectorStore } from './vector-store.js';

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
}

interface Row {
  chunk_id: string;
  content_id: string;
  name: string | null;
  content: string;
  meta_data: string;
  score: number;
}

type Bind = string | number | null | Buffer;

export class SqliteVectorStore implements VectorStore {
  readonly id: string;
  readonly name: string;
  readonly description: string | undefined;
  readonly table: string;
  private db: Database.Database | undefined;
  /** Whether the chunk table has versions (staged writes); false for a table made before them. */
  private staged = false;
  /** Whether the binary-quantized candidate index exists. */
  private bits = false;
  private readonly candidates: { perResult: number; min: number } | undefined;

  /** The store's file is its own database, so its id is the store id. */
  get dbId(): string {
    return this.id;
  }

  constructor(options: SqliteVectorStoreOptions) {
    this.table = checkTableName(options.table ?? 'svc_knowledge');
    this.id = options.id ?? `sqlite-${this.table}`;
    this.name = options.name ?? 'SQLite';
    this.description =
      options.description ?? `Embedded SQLite: ${options.quantizedCandidates ? 'cosine over binary-quantized candidates' : 'exact cosine'} (sqlite-vec) and FTS5 keyword search`;
    if (options.quantizedCandidates) {
      const { perResult = CANDIDATES_PER_RESULT, min = CANDIDATES_MIN } = options.quantizedCandidates;
      if (!Number.isInteger(perResult) || perResult < 1 || !Number.isInteger(min) || min < 1 || min > 4096) {
        throw new TypeError('SqliteVectorStore: quantizedCandidates.perResult and .min must be whole numbers of at least 1 (min at most 4096)');
      }
      this.candidates = { perResult, min };
    }
    if (options.path !== ':memory:') mkdirSync(dirname(options.path), { recursive: true });
    const db = new Database(options.path);
    db.pragma('journal_mode = WAL');
    db.pragma('busy_timeout = 5000');
    sqliteVec.load(db);
    this.db = db;
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
    const t = this.table;
    this.run((db) =>
      db.exec(`
        CREATE TABLE IF NOT EXISTS ${t}_chunks (
          rowid INTEGER PRIMARY KEY,
          content_id TEXT NOT NULL,
          chunk_id TEXT NOT NULL,
          name TEXT,
          content TEXT NOT NULL,
          meta_data TEXT NOT NULL,
          filters TEXT NOT NULL,
          embedding BLOB,
          created_at INTEGER NOT NULL,
          version INTEGER NOT NULL DEFAULT 0,
          UNIQUE (content_id, chunk_id, version)
        );
        CREATE VIRTUAL TABLE IF NOT EXISTS ${t}_fts USING fts5(content, tokenize = 'porter unicode61');
        CREATE TABLE IF NOT EXISTS ${t}_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
      `),
    );
    this.run((db) => {
      createStagingTables(db, t);
      this.staged = hasVersions(db, t);
      if (this.staged) db.exec(`CREATE INDEX IF NOT EXISTS ${t}_chunks_version ON ${t}_chunks (version)`);
      // Vectors stored before the candidate index existed get one (the dimension is recorded).
      if (!this.candidates) {
        // An index nobody maintains would go stale: drop it; turning the option on rebuilds it.
        db.exec(`DROP TABLE IF EXISTS ${t}_vec_bits`);
      } else {
        const dims = this.storedDimensions(db);
        if (dims !== undefined && !hasBitIndex(db, t)) createBitIndex(db, t, dims);
      }
      this.bits = hasBitIndex(db, t);
    });
    if (this.bits) await this.run((db) => backfillBitIndex(db, t));
    if (this.staged) await this.run((db) => purgeAbandoned(db, t));
  }

  /** The dimension of the stored vectors, from the embedder record (`id:dims`). */
  private storedDimensions(db: Database.Database): number | undefined {
    const stored = db.prepare(`SELECT value FROM ${this.table}_meta WHERE key = 'embedder'`).get() as { value: string } | undefined;
    const dims = Number(stored?.value.split(':').pop());
    return Number.isInteger(dims) && dims > 0 ? dims : undefined;
  }

  async upsert(contentId: string, chunks: readonly StoredChunk[], embedderId?: string): Promise<void> {
    if (!this.staged) {
      this.run((db) => {
        db.transaction(() => {
          this.checkEmbedder(db, chunks, embedderId);
          this.deleteSync(db, contentId);
          this.insertRows(db, contentId, chunks, 0);
        })();
      });
      return;
    }
    const version = this.run((db) =>
      db.transaction(() => {
        this.checkEmbedder(db, chunks, embedderId);
        return stageVersion(db, this.table, contentId);
      })(),
    );
    let old: number | undefined;
    try {
      for (let start = 0; start < chunks.length; start += WRITE_BATCH) {
        this.run((db) => db.transaction(() => this.insertRows(db, contentId, chunks.slice(start, start + WRITE_BATCH), version))());
        if (start + WRITE_BATCH < chunks.length) await yieldToLoop();
      }
      old = this.run((db) => db.transaction(() => publishVersion(db, this.table, contentId, version))());
    } catch (e) {
      // Nothing of a failed write stays: its rows were never visible, and are removed now.
      await this.purge(version).catch(() => undefined);
      throw e;
    }
    if (old !== undefined) await this.purge(old);
  }

  private async purge(version: number): Promise<void> {
    const db = this.db;
    if (!db) return;
    try {
      await purgeVersion(db, this.table, version);
    } catch (e) {
      throw RuntimeError.isInstance(e) ? e : storageError(e);
    }
  }

  /** Inserts chunk rows (and their keyword and candidate index entries) under `version`. */
  private insertRows(db: Database.Database, contentId: string, chunks: readonly StoredChunk[], version: number): void {
    const t = this.table;
    const insert = this.staged
      ? db.prepare(`INSERT INTO ${t}_chunks (content_id, chunk_id, name, content, meta_data, filters, embedding, created_at, version) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`)
      : db.prepare(`INSERT INTO ${t}_chunks (content_id, chunk_id, name, content, meta_data, filters, embedding, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`);
    const index = db.prepare(`INSERT INTO ${t}_fts (rowid, content) VALUES (?, ?)`);
    const bits = this.bits ? db.prepare(`INSERT INTO ${t}_vec_bits (rowid, embedding) VALUES (?, vec_quantize_binary(?))`) : undefined;
    const now = Math.floor(Date.now() / 1000);
    for (const c of chunks) {
      const blob = c.embedding ? Buffer.from(new Float32Array(c.embedding).buffer) : null;
      const values = [contentId, c.id, c.name ?? null, c.content, JSON.stringify(c.meta_data), JSON.stringify(c.filters), blob, now];
      const info = insert.run(...(this.staged ? [...values, version] : values));
      index.run(info.lastInsertRowid, c.content);
      if (bits && blob) bits.run(BigInt(info.lastInsertRowid), blob);
    }
  }

  /** The first vectors fix the embedder and dimension; anything else is refused. */
  private checkEmbedder(db: Database.Database, chunks: readonly StoredChunk[], embedderId: string | undefined): void {
    const dims = chunks.find((c) => c.embedding)?.embedding?.length;
    if (dims === undefined) return;
    const key = `${embedderId ?? 'unknown'}:${dims}`;
    const stored = db.prepare(`SELECT value FROM ${this.table}_meta WHERE key = 'embedder'`).get() as { value: string } | undefined;
    if (!stored) db.prepare(`INSERT INTO ${this.table}_meta (key, value) VALUES ('embedder', ?)`).run(key);
    else if (stored.value !== key) throw embedderConflict(stored.value, key);
    if (chunks.some((c) => c.embedding && c.embedding.length !== dims)) throw embedderConflict(key, 'vectors of mixed lengths');
    if (this.candidates && !this.bits) this.bits = createBitIndex(db, this.table, dims);
  }

  private deleteSync(db: Database.Database, contentId: string): number {
    const t = this.table;
    db.prepare(`DELETE FROM ${t}_fts WHERE rowid IN (SELECT rowid FROM ${t}_chunks WHERE content_id = ?)`).run(contentId);
    if (this.bits) {
      const bit = db.prepare(`DELETE FROM ${t}_vec_bits WHERE rowid = ?`);
      for (const rowid of db.prepare(`SELECT rowid FROM ${t}_chunks WHERE content_id = ?`).pluck().all(contentId) as (number | bigint)[]) bit.run(BigInt(rowid));
    }
    return db.prepare(`DELETE FROM ${t}_chunks WHERE content_id = ?`).run(contentId).changes;
  }

  async deleteByContentId(contentId: string): Promise<number> {
    if (!this.staged) return this.run((db) => db.transaction(() => this.deleteSync(db, contentId))());
    // Hidden at once in one short transaction; the rows go in batches afterwards.
    const { version, count } = this.run((db) =>
      db.transaction(() => {
        const rows = (db.prepare(`SELECT count(*) AS n FROM ${this.table}_chunks c WHERE content_id = ? AND ${this.visible()}`).get(contentId) as { n: number }).n;
        return { version: retireLive(db, this.table, contentId), count: rows };
      })(),
    );
    if (version !== undefined) await this.purge(version);
    return count;
  }

  async contentExists(contentId: string): Promise<boolean> {
    return this.run((db) => db.prepare(`SELECT 1 FROM ${this.table}_chunks c WHERE content_id = ? AND ${this.visible()} LIMIT 1`).get(contentId) !== undefined);
  }

  private visible(): string {
    return visible(this.table, this.staged);
  }

  async search(request: SearchRequest): Promise<SearchHit[]> {
    return searchWith(request, { vector: (v, limit, f) => this.vectorSearch(v, limit, f), keyword: (q, limit, f) => this.keywordSearch(q, limit, f) });
  }

  private vectorSearch(vector: number[], limit: number, filter: Filter | undefined): SearchHit[] {
    const where = filterSql(filter);
    const blob = Buffer.from(new Float32Array(vector).buffer);
    const candidates = this.bits ? this.candidateSearch(blob, limit, where) : undefined;
    // Too few candidates survived the filter (or there is no index): scan every row.
    const rows =
      candidates && candidates.length >= limit
        ? candidates
        : this.run((db) =>
            db
              .prepare(
                `SELECT chunk_id, content_id, name, content, meta_data, vec_distance_cosine(embedding, ?) AS score
                 FROM ${this.table}_chunks c WHERE embedding IS NOT NULL AND ${this.visible()} ${where.sql} ORDER BY score LIMIT ?`,
              )
              .all(blob, ...where.params, limit) as Row[],
          );
    // Cosine distance is in [0, 2]; similarity is clamped to [0, 1] as agno reports it.
    return rows.map((r) => toHit(r, Math.min(1, Math.max(0, 1 - r.score))));
  }

  /** The nearest candidates by Hamming distance of the quantized vectors, ranked by exact cosine. */
  private candidateSearch(blob: Buffer, limit: number, where: { sql: string; params: Bind[] }): Row[] | undefined {
    const k = Math.min(4096, Math.max(this.candidates?.min ?? CANDIDATES_MIN, (this.candidates?.perResult ?? CANDIDATES_PER_RESULT) * limit));
    const sql = `SELECT chunk_id, content_id, name, content, meta_data, vec_distance_cosine(c.embedding, ?) AS score
      FROM (SELECT rowid FROM ${this.table}_vec_bits WHERE embedding MATCH vec_quantize_binary(?) AND k = ${k}) b
      JOIN ${this.table}_chunks c ON c.rowid = b.rowid
      WHERE ${this.visible()} ${where.sql} ORDER BY score LIMIT ?`;
    return this.run((db) => db.prepare(sql).all(blob, blob, ...where.params, limit) as Row[]);
  }

  private keywordSearch(query: string, limit: number, filter: Filter | undefined): SearchHit[] {
    const tokens = queryTokens(query);
    if (tokens.length === 0) return [];
    // Each token is quoted, so FTS5 syntax in user text is inert; OR ranks by how many match.
    const match = tokens.map((tok) => `"${tok}"`).join(' OR ');
    const where = filterSql(filter);
    const sql = `SELECT c.chunk_id, c.content_id, c.name, c.content, c.meta_data, bm25(${this.table}_fts) AS score
      FROM ${this.table}_fts f JOIN ${this.table}_chunks c ON c.rowid = f.rowid
      WHERE ${this.table}_fts MATCH ? AND ${this.visible()} ${where.sql} ORDER BY score LIMIT ?`;
    const rows = this.run((db) => db.prepare(sql).all(match, ...where.params, limit) as Row[]);
    // bm25() is negative, lower is better; r/(1+r) maps it into [0, 1).
    return rows.map((r) => toHit(r, -r.score / (1 - r.score)));
  }

  async filterKeys(): Promise<string[]> {
    const rows = this.run(
      (db) => db.prepare(`SELECT DISTINCT j.key AS key FROM ${this.table}_chunks c, json_each(c.filters) j WHERE ${this.visible()} ORDER BY j.key`).all() as { key: string }[],
    );
    return rows.map((r) => r.key);
  }

  async metadataKeys(): Promise<string[]> {
    const rows = this.run(
      (db) => db.prepare(`SELECT DISTINCT j.key AS key FROM ${this.table}_chunks c, json_each(c.meta_data) j WHERE ${this.visible()} ORDER BY j.key`).all() as { key: string }[],
    );
    return rows.map((r) => r.key);
  }

  async close(): Promise<void> {
    this.db?.close();
    this.db = undefined;
  }
}



/** The filter as an `AND ...` clause over the chunk's metadata (type-exact, see filter-sql.ts). */
function filterSql(filter: Filter | undefined): { sql: string; params: Bind[] } {
  if (!filter) return { sql: '', params: [] };
  const compiled = sqliteFilter(filter, 'c.meta_data');
  return { sql: ` AND ${compiled.sql}`, params: compiled.params };
}

function toHit(row: Row, score: number): SearchHit {
  return {
    chunk: {
      id: row.chunk_id,
      content_id: row.content_id,
      ...(row.name !== null ? { name: row.name } : {}),
      content: row.content,
      meta_data: JSON.parse(row.meta_data) as Record<string, unknown>,
    },
    score,
  };
}
