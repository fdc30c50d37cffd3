/**
 * @module knowledge/vector-stores/sqlite/store
 * The embedded store: one SQLite file holding a chunk table (vectors as float32 BLOBs, metadata
 * as JSON) and an FTS5 index.
 *
 * Vector search is an exact scan (`vec_distance_cosine` over every row, the filter in the same
 * WHERE): recall 1, ~3 ms at 10k 384-d chunks, ~55-125 ms at 100k (2 shared cores). With
 * `quantizedCandidates` the vectors are also kept binary-quantized (one bit per dimension) in a
 * sqlite-vec `vec0` table: a search takes the nearest candidates by Hamming distance there and
 * ranks them by exact cosine, falling back to the exact scan if fewer than `limit` survive the
 * filter. See sqlite-staging.ts for the numbers and for how writes are staged. Once the store
 * holds 10k chunks the vectors are also partitioned into k-means lists (ivf.ts, the `ivf`
 * option, on unless turned off or `quantizedCandidates` is chosen), trained in the worker pool;
 * a search then runs the same exact cosine over the nearest lists' rows only, with the same
 * fallback. A store opened with `ivf: false` searches exactly but keeps an existing index current.
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
import { RuntimeError } from '../../../errors.js';
import { storageError } from '../../../storage/sql-errors.js';
import type { Filter } from '../filter-language.js';
import { sqliteFilter } from '../filter-sql.js';
import { queryTokens } from '../filters.js';
import { searchWith } from '../search.js';
import { embedderConflict, parseEmbedderKey } from '../embedder-record.js';
import { checkTableName } from '../identifiers.js';
import { TimeSlicer } from '../../../util/time-slicer.js';
import { BackgroundCheckpoints } from './checkpoint.js';
import { SqliteReader } from './reader-thread.js';
import { IVF_DEFAULTS, IvfIndex } from './ivf.js';
import { createIvfTables, dropIvf } from './ivf-tables.js';
import { sharedOffload, type Offload } from '../../../workers/offload.js';
import {
  CANDIDATES_MIN,
  CANDIDATES_PER_RESULT,
  WRITE_BATCH,
  WRITE_SLICE_MS,
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
} from './staging.js';
import type { ChunkOwner, SearchHit, SearchRequest, StoredChunk, VectorStore } from '../vector-store.js';
import { parseLastReindex, routeVectors, type PendingChunk, type ReindexableStore, type StoreEmbedderState } from '../reindex.js';

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
   * (sqlite-checkpoint.ts); default the process's knowledge worker pool. `inline`: neither
   * leaves the event loop (SQLite checkpoints as it commits).
   */
  offload?: Offload | undefined;
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

/** How much of the file SQLite maps into memory (virtual address space, not RAM). */
const MMAP_BYTES = 1 << 30;
/**
 * Candidates the in-memory IVF codes pass to the exact ranking in SQL: max(min, perResult x
 * limit). int8 scores rank closely: 40 and 100 candidates gave the same recall@10 (0.973) on
 * the real-encoder bench.
 */
const IVF_RERANK_PER_RESULT = 4;
const IVF_RERANK_MIN = 40;
/** Keyword candidates taken from the FTS index before the filter: max(min, perResult x limit). */
const KEYWORD_CANDIDATES_PER_RESULT = 4;
const KEYWORD_CANDIDATES_MIN = 40;

export class SqliteVectorStore implements VectorStore, ReindexableStore {
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
  /** The IVF index: searched through (and trained) unless `ivf: false`, maintained always. */
  readonly ivf: IvfIndex;
  /** Checkpoints of the log in a pool thread during staged writes (not for `:memory:`). */
  private readonly checkpoints: BackgroundCheckpoints | undefined;
  /** A thread reading the file for full-text queries of large stores (not for `:memory:`). */
  readonly reader: SqliteReader | undefined;

  /** The store's file is its own database, so its id is the store id. */
  get dbId(): string {
    return this.id;
  }

  constructor(options: SqliteVectorStoreOptions) {
    this.table = checkTableName(options.table ?? 'svc_knowledge');
    this.id = options.id ?? `sqlite-${this.table}`;
    this.name = options.name ?? 'SQLite';
    const ivf = options.ivf ?? (options.quantizedCandidates ? false : {});
    const method = ivf ? `cosine (exact, then over k-means lists from ${ivf.trainAt ?? IVF_DEFAULTS.trainAt} chunks)` : options.quantizedCandidates ? 'cosine over binary-quantized candidates' : 'exact cosine';
    this.description = options.description ?? `Embedded SQLite: ${method} (sqlite-vec) and FTS5 keyword search`;
    if (options.quantizedCandidates) {
      const { perResult = CANDIDATES_PER_RESULT, min = CANDIDATES_MIN } = options.quantizedCandidates;
      if (!Number.isInteger(perResult) || perResult < 1 || !Number.isInteger(min) || min < 1 || min > 4096) {
        throw new TypeError('SqliteVectorStore: quantizedCandidates.perResult and .min must be whole numbers of at least 1 (min at most 4096)');
      }
      this.candidates = { perResult, min };
    }
    const settings = { ...IVF_DEFAULTS, ...(ivf ? Object.fromEntries(Object.entries(ivf).filter(([, v]) => v !== undefined)) : {}) };
    for (const [key, value] of Object.entries(settings)) {
      if (!Number.isInteger(value) || value < 1) throw new TypeError(`SqliteVectorStore: ivf.${key} must be a whole number of at least 1`);
    }
    const offload = options.offload;
    this.ivf = new IvfIndex(() => this.handle(), this.table, settings, () => offload ?? sharedOffload(), ivf ? 'search' : 'maintain');
    if (options.path !== ':memory:') {
      mkdirSync(dirname(options.path), { recursive: true });
      this.checkpoints = new BackgroundCheckpoints(options.path, () => offload ?? sharedOffload());
      this.reader = new SqliteReader(options.path, MMAP_BYTES);
    }
    const db = new Database(options.path);
    db.pragma('journal_mode = WAL');
    // As the runtime's database: a commit does not wait for fsync (the WAL is synced at
    // checkpoints). Without this the level depended on the file: FULL on the connection that
    // created it, NORMAL (better-sqlite3's WAL default) on every later one. A published version
    // is made durable on its own (publish below).
    db.pragma('synchronous = NORMAL');
    db.pragma('busy_timeout = 5000');
    // Reads through a memory map rather than read() calls: halved the exact scan (221 -> 103 ms)
    // and the IVF list scan at 100k chunks. Address space only; the OS page cache holds the data.
    db.pragma(`mmap_size = ${MMAP_BYTES}`);
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
          knowledge_id TEXT,
          user_id TEXT,
          version INTEGER NOT NULL DEFAULT 0,
          UNIQUE (content_id, chunk_id, version)
        );
        CREATE VIRTUAL TABLE IF NOT EXISTS ${t}_fts USING fts5(content, tokenize = 'porter unicode61');
        CREATE TABLE IF NOT EXISTS ${t}_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
        CREATE TABLE IF NOT EXISTS ${t}_reindex (content_id TEXT NOT NULL, chunk_id TEXT NOT NULL, embedding BLOB NOT NULL, PRIMARY KEY (content_id, chunk_id));
      `),
    );
    // IMMEDIATE: another process opening the same file adds them once, not twice.
    this.run((db) => db.transaction(() => addOwnerColumns(db, `${t}_chunks`)).immediate());
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
      createIvfTables(db, t);
    });
    if (this.bits) await this.run((db) => backfillBitIndex(db, t));
    if (this.staged) await this.run((db) => purgeAbandoned(db, t, { unlisted: (rowid) => this.ivf.unlisted(rowid) }));
    void this.ivf.maybeTrain();
  }

  /** The dimension of the stored vectors, from the embedder record (`id:dims`). */
  private storedDimensions(db: Database.Database): number | undefined {
    const stored = db.prepare(`SELECT value FROM ${this.table}_meta WHERE key = 'embedder'`).get() as { value: string } | undefined;
    const dims = Number(stored?.value.split(':').pop());
    return Number.isInteger(dims) && dims > 0 ? dims : undefined;
  }

  async upsert(contentId: string, chunks: readonly StoredChunk[], embedderId?: string, owner: ChunkOwner = {}): Promise<void> {
    await checkLengths(chunks, embedderId);
    if (!this.staged) {
      this.run((db) => {
        db.transaction(() => {
          const route = this.checkEmbedder(db, chunks, embedderId);
          this.deleteSync(db, contentId);
          this.insertRows(db, contentId, chunks, 0, route, owner);
        })();
      });
      void this.ivf.maybeTrain();
      return;
    }
    const { version, route } = this.run((db) =>
      db.transaction(() => {
        const checked = this.checkEmbedder(db, chunks, embedderId);
        // The vectors a reindex staged for the version being replaced are not the new version's.
        db.prepare(`DELETE FROM ${this.table}_reindex WHERE content_id = ?`).run(contentId);
        return { version: stageVersion(db, this.table, contentId), route: checked };
      })(),
    );
    let old: number | undefined;
    try {
      // A busy or failing pool must not fail the write: the lists are then computed at insert.
      const lists = route.main ? await this.ivf.precompute(chunks.map((c) => c.embedding)).catch(() => undefined) : undefined;
      // Each transaction writes up to WRITE_BATCH rows and stops early once it has held the
      // event loop for WRITE_SLICE_MS (500 rows of 384-d vectors took 6-8 ms, and their commit,
      // flushing the keyword index, 3-6 ms more); the version stays hidden until all are
      // written. The log is checkpointed in a pool thread meanwhile (sqlite-checkpoint.ts).
      for (let start = 0; start < chunks.length; ) {
        const from = start;
        const until = performance.now() + WRITE_SLICE_MS;
        start = this.run((db) => db.transaction(() => this.insertRows(db, contentId, chunks, version, route, owner, lists, { from, to: from + WRITE_BATCH, until }))());
        this.checkpoints?.wrote();
        if (start < chunks.length) await yieldToLoop();
      }
      // FULL for this one commit: fsyncing the WAL makes every staged row durable with it, so a
      // version is on disk before the record that says so is written.
      old = this.run((db) => withSynchronous(db, 'FULL', () => db.transaction(() => publishVersion(db, this.table, contentId, version))()));
    } catch (e) {
      // Nothing of a failed write stays: its rows were never visible, and are removed now.
      await this.purge(version).catch(() => undefined);
      throw e;
    }
    if (old !== undefined) await this.purge(old);
    // Not awaited: training takes seconds in the pool; searches stay exact until it is done.
    void this.ivf.maybeTrain();
  }

  private async purge(version: number): Promise<void> {
    const db = this.db;
    if (!db) return;
    try {
      await purgeVersion(db, this.table, version, { observer: this.checkpoints, unlisted: (rowid) => this.ivf.unlisted(rowid) });
    } catch (e) {
      throw RuntimeError.isInstance(e) ? e : storageError(e);
    }
  }

  /**
   * Inserts chunk rows (and their keyword and candidate index entries) under `version`, with
   * their owner; a vector goes to the searched column or, during a reindex to another embedder,
   * to the staging table only (`route`).
   */
  private insertRows(
    db: Database.Database,
    contentId: string,
    chunks: readonly StoredChunk[],
    version: number,
    route: { main: boolean; stage: boolean },
    owner: ChunkOwner,
    lists?: { generation: string; lists: Int32Array },
    range: { from: number; to: number; until?: number } = { from: 0, to: chunks.length },
  ): number {
    const t = this.table;
    const columns = 'content_id, chunk_id, name, content, meta_data, filters, embedding, created_at, knowledge_id, user_id';
    const insert = this.staged
      ? db.prepare(`INSERT INTO ${t}_chunks (${columns}, version) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
      : db.prepare(`INSERT INTO ${t}_chunks (${columns}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
    const index = db.prepare(`INSERT INTO ${t}_fts (rowid, content) VALUES (?, ?)`);
    const bits = this.bits && route.main ? db.prepare(`INSERT INTO ${t}_vec_bits (rowid, embedding) VALUES (?, vec_quantize_binary(?))`) : undefined;
    const stage = route.stage ? db.prepare(`INSERT OR REPLACE INTO ${t}_reindex (content_id, chunk_id, embedding) VALUES (?, ?, ?)`) : undefined;
    const list = route.main ? db.prepare(`INSERT OR REPLACE INTO ${t}_ivf_lists (rowid, list) VALUES (?, ?)`) : undefined;
    const now = Math.floor(Date.now() / 1000);
    const to = Math.min(range.to, chunks.length);
    for (let i = range.from; i < to; i++) {
      // At least one row per call, so a write always makes progress.
      if (range.until !== undefined && i > range.from && (i & 15) === 0 && performance.now() >= range.until) return i;
      const c = chunks[i]!;
      const blob = c.embedding ? Buffer.from(new Float32Array(c.embedding).buffer) : null;
      const values = [contentId, c.id, c.name ?? null, c.content, JSON.stringify(c.meta_data), JSON.stringify(c.filters), route.main ? blob : null, now, owner.knowledgeId ?? null, owner.userId ?? null];
      const info = insert.run(...(this.staged ? [...values, version] : values));
      index.run(info.lastInsertRowid, c.content);
      if (bits && blob) bits.run(BigInt(info.lastInsertRowid), blob);
      if (stage && blob) stage.run(contentId, c.id, blob);
      if (list && c.embedding) {
        const at = this.ivf.listFor(db, new Float32Array(c.embedding), lists && { generation: lists.generation, list: lists.lists[i]! });
        if (at !== undefined) {
          list.run(info.lastInsertRowid, at);
          this.ivf.listed(Number(info.lastInsertRowid), at, c.embedding);
        }
      }
    }
    return to;
  }

  /** The first vectors fix the embedder and dimension; anything else is refused (mixed lengths: checkLengths, before). */
  private checkEmbedder(db: Database.Database, chunks: readonly StoredChunk[], embedderId: string | undefined): { main: boolean; stage: boolean } {
    const dims = chunks.find((c) => c.embedding)?.embedding?.length;
    if (dims === undefined) return { main: true, stage: false };
    const key = `${embedderId ?? 'unknown'}:${dims}`;
    const meta = this.metaSync(db);
    const route = routeVectors(meta.embedder, meta.reindex, embedderId, key);
    if (route.stage) return route;
    if (meta.embedder === undefined) db.prepare(`INSERT INTO ${this.table}_meta (key, value) VALUES ('embedder', ?)`).run(key);
    else if (meta.embedder !== key) throw embedderConflict(meta.embedder, key);
    if (this.candidates && !this.bits) this.bits = createBitIndex(db, this.table, dims);
    return route;
  }

  private metaSync(db: Database.Database): Record<string, string> {
    const rows = db.prepare(`SELECT key, value FROM ${this.table}_meta`).all() as { key: string; value: string }[];
    return Object.fromEntries(rows.map((r) => [r.key, r.value]));
  }

  async embedderState(): Promise<StoreEmbedderState> {
    const meta = this.run((db) => this.metaSync(db));
    return { embedder: meta.embedder ? parseEmbedderKey(meta.embedder) : undefined, reindexTarget: meta.reindex, lastReindex: parseLastReindex(meta.reindex_done) };
  }

  async beginReindex(target: string): Promise<void> {
    const t = this.table;
    this.run((db) =>
      db.transaction(() => {
        const current = this.metaSync(db).reindex;
        if (current === target) return;
        db.prepare(`INSERT INTO ${t}_meta (key, value) VALUES ('reindex', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value`).run(target);
        db.prepare(`DELETE FROM ${t}_reindex`).run();
      }).immediate(),
    );
  }

  async pendingChunks(limit: number): Promise<PendingChunk[]> {
    const t = this.table;
    return this.run(
      (db) =>
        db
          .prepare(
            `SELECT c.content_id, c.chunk_id, c.content FROM ${t}_chunks c
             WHERE ${this.visible()} AND NOT EXISTS (SELECT 1 FROM ${t}_reindex r WHERE r.content_id = c.content_id AND r.chunk_id = c.chunk_id)
             ORDER BY c.content_id, c.chunk_id LIMIT ?`,
          )
          .all(limit) as PendingChunk[],
    );
  }

  async stageVectors(rows: readonly (PendingChunk & { embedding: number[] })[]): Promise<number> {
    const t = this.table;
    return this.run((db) =>
      db.transaction(() => {
        // Only if the chunk still holds the text that was embedded (it may have been replaced meanwhile).
        const insert = db.prepare(
          `INSERT INTO ${t}_reindex (content_id, chunk_id, embedding)
           SELECT @cid, @chid, @embedding WHERE EXISTS (SELECT 1 FROM ${t}_chunks c WHERE content_id = @cid AND chunk_id = @chid AND content = @content AND ${this.visible()})
           ON CONFLICT (content_id, chunk_id) DO NOTHING`,
        );
        let staged = 0;
        for (const r of rows) {
          staged += insert.run({ cid: r.content_id, chid: r.chunk_id, embedding: Buffer.from(new Float32Array(r.embedding).buffer), content: r.content }).changes;
        }
        return staged;
      }).immediate(),
    );
  }

  async reindexCounts(): Promise<{ done: number; total: number }> {
    const t = this.table;
    const row = this.run(
      (db) =>
        db
          .prepare(
            `SELECT (SELECT count(*) FROM ${t}_chunks c WHERE ${this.visible()}) AS total,
                    (SELECT count(*) FROM ${t}_reindex r WHERE EXISTS (SELECT 1 FROM ${t}_chunks c WHERE c.content_id = r.content_id AND c.chunk_id = r.chunk_id AND ${this.visible()})) AS done`,
          )
          .get() as { total: number; done: number },
    );
    return { done: row.done, total: row.total };
  }

  async finishReindex(target: string): Promise<boolean> {
    const swapped = this.swapReindexed(target);
    if (swapped) void this.ivf.maybeTrain();
    return swapped;
  }

  private swapReindexed(target: string): boolean {
    const t = this.table;
    return this.run((db) =>
      db.transaction(() => {
        const meta = this.metaSync(db);
        if (meta.reindex !== target) return false;
        const left = db
          .prepare(`SELECT 1 FROM ${t}_chunks c WHERE ${this.visible()} AND NOT EXISTS (SELECT 1 FROM ${t}_reindex r WHERE r.content_id = c.content_id AND r.chunk_id = c.chunk_id) LIMIT 1`)
          .get();
        if (left) return false;
        const dims = db.prepare(`SELECT DISTINCT length(embedding) / 4 AS dims FROM ${t}_reindex`).all() as { dims: number }[];
        if (dims.length > 1) throw embedderConflict(target, 'vectors of mixed lengths');
        // Visible rows only: a hidden version is on its way out, and its text may not be the one embedded.
        const hidden = this.staged ? ` WHERE version NOT IN (SELECT version FROM ${t}_hidden)` : '';
        const chunks = db
          .prepare(`UPDATE ${t}_chunks SET embedding = (SELECT r.embedding FROM ${t}_reindex r WHERE r.content_id = ${t}_chunks.content_id AND r.chunk_id = ${t}_chunks.chunk_id)${hidden}`)
          .run().changes;
        // The candidate index holds the old vectors: it is rebuilt for the new ones.
        if (this.bits) {
          db.exec(`DROP TABLE IF EXISTS ${t}_vec_bits`);
          this.bits = false;
        }
        // The centroids and lists describe the old vectors: dropped here, trained again after.
        dropIvf(db, t);
        db.prepare(`DELETE FROM ${t}_reindex`).run();
        db.prepare(`DELETE FROM ${t}_meta WHERE key IN ('reindex', 'embedder')`).run();
        const dimensions = dims[0]?.dims ?? null;
        if (dimensions !== null) db.prepare(`INSERT INTO ${t}_meta (key, value) VALUES ('embedder', ?)`).run(`${target}:${dimensions}`);
        const done = JSON.stringify({ embedder: target, dimensions, chunks, finished_at: Math.floor(Date.now() / 1000) });
        db.prepare(`INSERT INTO ${t}_meta (key, value) VALUES ('reindex_done', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value`).run(done);
        return true;
      }).immediate(),
    );
  }

  private deleteSync(db: Database.Database, contentId: string, ownedBy?: string): number {
    const t = this.table;
    const owned = ownedBy === undefined ? '' : ' AND user_id = ?';
    const params = ownedBy === undefined ? [contentId] : [contentId, ownedBy];
    db.prepare(`DELETE FROM ${t}_fts WHERE rowid IN (SELECT rowid FROM ${t}_chunks WHERE content_id = ?${owned})`).run(...params);
    if (this.bits) {
      const bit = db.prepare(`DELETE FROM ${t}_vec_bits WHERE rowid = ?`);
      for (const rowid of db.prepare(`SELECT rowid FROM ${t}_chunks WHERE content_id = ?${owned}`).pluck().all(...params) as (number | bigint)[]) bit.run(BigInt(rowid));
    }
    const unlisted = db.prepare(`DELETE FROM ${t}_ivf_lists WHERE rowid IN (SELECT rowid FROM ${t}_chunks WHERE content_id = ?${owned}) RETURNING rowid`).pluck().all(...params) as number[];
    for (const rowid of unlisted) this.ivf.unlisted(Number(rowid));
    const deleted = db.prepare(`DELETE FROM ${t}_chunks WHERE content_id = ?${owned}`).run(...params).changes;
    // A content has one owner: when its chunks went, so do the vectors a reindex staged for it.
    if (ownedBy === undefined || deleted > 0) db.prepare(`DELETE FROM ${t}_reindex WHERE content_id = ?`).run(contentId);
    return deleted;
  }

  async deleteByContentId(contentId: string, options: { ownedBy?: string | undefined } = {}): Promise<number> {
    const { ownedBy } = options;
    if (!this.staged) return this.run((db) => db.transaction(() => this.deleteSync(db, contentId, ownedBy))());
    // Hidden at once in one short transaction; the rows go in batches afterwards.
    const { version, count } = this.run((db) =>
      db.transaction(() => {
        const owned = ownedBy === undefined ? '' : ' AND user_id = ?';
        const rows = (
          db.prepare(`SELECT count(*) AS n FROM ${this.table}_chunks c WHERE content_id = ?${owned} AND ${this.visible()}`).get(...(ownedBy === undefined ? [contentId] : [contentId, ownedBy])) as { n: number }
        ).n;
        // Someone else's content (or shared content) is not this caller's to delete.
        if (ownedBy !== undefined && rows === 0) return { version: undefined, count: 0 };
        db.prepare(`DELETE FROM ${this.table}_reindex WHERE content_id = ?`).run(contentId);
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
    const who = request.visibleTo;
    return searchWith(request, { vector: (v, limit, f) => this.vectorSearch(v, limit, f, who), keyword: (q, limit, f) => this.keywordSearch(q, limit, f, who) });
  }

  private vectorSearch(vector: number[], limit: number, filter: Filter | undefined, visibleTo: string | undefined): SearchHit[] {
    const where = filterSql(filter, visibleTo);
    const blob = Buffer.from(new Float32Array(vector).buffer);
    const query = new Float32Array(vector);
    const probes = this.run((db) => this.ivf.probe(db, query));
    let candidates: Row[] | undefined;
    if (probes) {
      // The lists' vectors in memory rank the candidates; SQL ranks those exactly and applies
      // visibility and the filter. Not loaded yet (or too few survive): the lists in SQL.
      const rowids = this.run((db) => this.ivf.candidates(db, query, probes, Math.max(IVF_RERANK_MIN, IVF_RERANK_PER_RESULT * limit)));
      if (rowids) {
        candidates = this.rerank(blob, rowids, limit, where);
        if (candidates.length >= limit) this.ivf.memorySearches++;
      }
      if (!candidates || candidates.length < limit) candidates = this.listSearch(blob, probes, limit, where);
    } else if (this.bits) candidates = this.candidateSearch(blob, limit, where);
    // Too few candidates survived the filter (or there is no index): scan every row.
    if (probes && candidates && candidates.length >= limit) this.ivf.searches++;
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

  /** Exact cosine over the given rows only (the same WHERE as the full scan). */
  private rerank(blob: Buffer, rowids: readonly number[], limit: number, where: { sql: string; params: Bind[] }): Row[] {
    const sql = `SELECT chunk_id, content_id, name, content, meta_data, vec_distance_cosine(c.embedding, ?) AS score
      FROM ${this.table}_chunks c WHERE c.rowid IN (SELECT value FROM json_each(?)) AND c.embedding IS NOT NULL AND ${this.visible()} ${where.sql} ORDER BY score LIMIT ?`;
    return this.run((db) => db.prepare(sql).all(blob, JSON.stringify(rowids), ...where.params, limit) as Row[]);
  }

  /** Exact cosine over the rows of the probed IVF lists only (the same WHERE as the full scan). */
  private listSearch(blob: Buffer, probes: readonly number[], limit: number, where: { sql: string; params: Bind[] }): Row[] {
    const sql = `SELECT chunk_id, content_id, name, content, meta_data, vec_distance_cosine(c.embedding, ?) AS score
      FROM ${this.table}_ivf_lists l JOIN ${this.table}_chunks c ON c.rowid = l.rowid
      WHERE l.list IN (${probes.map(() => '?').join(', ')}) AND c.embedding IS NOT NULL AND ${this.visible()} ${where.sql} ORDER BY score LIMIT ?`;
    return this.run((db) => db.prepare(sql).all(blob, ...probes, ...where.params, limit) as Row[]);
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

  private keywordSearch(query: string, limit: number, filter: Filter | undefined, visibleTo: string | undefined): SearchHit[] | Promise<SearchHit[]> {
    const tokens = queryTokens(query);
    if (tokens.length === 0) return [];
    // Each token is quoted, so FTS5 syntax in user text is inert; OR ranks by how many match.
    const match = tokens.map((tok) => `"${tok}"`).join(' OR ');
    const where = filterSql(filter, visibleTo);
    // First the best-ranked matches from the FTS index alone (FTS5 orders by `rank` itself and
    // reads no chunk row), then visibility and filter on those only: a common word matches
    // ~20k of 100k chunks, and joining every match to its chunk row before ranking made p99
    // 58-81 ms; this is ~15 ms. Fewer than `limit` survivors: the full query below.
    const candidates = Math.max(KEYWORD_CANDIDATES_MIN, KEYWORD_CANDIDATES_PER_RESULT * limit);
    const top = `SELECT c.chunk_id, c.content_id, c.name, c.content, c.meta_data, f.score
      FROM (SELECT rowid, rank AS score FROM ${this.table}_fts WHERE ${this.table}_fts MATCH ? ORDER BY rank LIMIT ?) f
      JOIN ${this.table}_chunks c ON c.rowid = f.rowid
      WHERE ${this.visible()} ${where.sql} ORDER BY f.score LIMIT ?`;
    const full = `SELECT c.chunk_id, c.content_id, c.name, c.content, c.meta_data, bm25(${this.table}_fts) AS score
      FROM ${this.table}_fts f JOIN ${this.table}_chunks c ON c.rowid = f.rowid
      WHERE ${this.table}_fts MATCH ? AND ${this.visible()} ${where.sql} ORDER BY score LIMIT ?`;
    const first = { sql: top, params: [match, candidates, ...where.params, limit] };
    const fallback = { sql: full, params: [match, ...where.params, limit] };
    const here = () =>
      this.run((db) => {
        const rows = db.prepare(first.sql).all(...first.params) as Row[];
        return rows.length >= limit ? rows : (db.prepare(fallback.sql).all(...fallback.params) as Row[]);
      });
    // bm25() is negative, lower is better; r/(1+r) maps it into [0, 1).
    const hits = (rows: Row[]) => rows.map((r) => toHit(r, -r.score / (1 - r.score)));
    // A large store (one with an IVF index) asks its reader thread (sqlite-reader.ts): the
    // scoring runs beside a hybrid search's vector side and off the event loop.
    if (this.reader && this.run((db) => this.ivf.ready(db))) return this.reader.query<Row>(first, fallback, limit).then((rows) => hits(rows ?? here()));
    return hits(here());
  }

  async filterKeys(visibleTo?: string): Promise<string[]> {
    return this.jsonKeys('filters', visibleTo);
  }

  async metadataKeys(visibleTo?: string): Promise<string[]> {
    return this.jsonKeys('meta_data', visibleTo);
  }

  private jsonKeys(column: 'filters' | 'meta_data', visibleTo: string | undefined): string[] {
    const where = filterSql(undefined, visibleTo);
    const sql = `SELECT DISTINCT j.key AS key FROM ${this.table}_chunks c, json_each(c.${column}) j WHERE ${this.visible()} ${where.sql} ORDER BY j.key`;
    return this.run((db) => (db.prepare(sql).all(...where.params) as { key: string }[]).map((r) => r.key));
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
    await this.checkpoints?.settled();
    await this.reader?.close();
    this.db?.close();
    this.db = undefined;
  }
}



/**
 * The filter as an `AND ...` clause over the chunk's metadata (type-exact, see filter-sql.ts),
 * and the user scope: shared chunks and the user's own.
 */
function filterSql(filter: Filter | undefined, visibleTo: string | undefined): { sql: string; params: Bind[] } {
  const sql: string[] = [];
  const params: Bind[] = [];
  if (filter) {
    const compiled = sqliteFilter(filter, 'c.meta_data');
    sql.push(` AND ${compiled.sql}`);
    params.push(...compiled.params);
  }
  if (visibleTo !== undefined) {
    sql.push(' AND (c.user_id IS NULL OR c.user_id = ?)');
    params.push(visibleTo);
  }
  return { sql: sql.join(''), params };
}

/** Tables made before chunks carried their owner get the columns; old rows stay shared (NULL). */
function addOwnerColumns(db: Database.Database, table: string): void {
  const columns = new Set((db.prepare(`SELECT name FROM pragma_table_info(?)`).all(table) as { name: string }[]).map((c) => c.name));
  for (const column of ['knowledge_id', 'user_id']) {
    if (!columns.has(column)) db.exec(`ALTER TABLE ${table} ADD COLUMN ${column} TEXT`);
  }
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

/**
 * Refuses vectors of mixed lengths in one write, before anything is written, a slice at a time
 * (one pass over 150k chunks held the event loop ~20 ms on a loaded machine).
 */
async function checkLengths(chunks: readonly StoredChunk[], embedderId: string | undefined): Promise<void> {
  const dims = chunks.find((c) => c.embedding)?.embedding?.length;
  if (dims === undefined) return;
  const slicer = new TimeSlicer();
  for (let i = 0; i < chunks.length; i++) {
    if ((i & 1023) === 0) await slicer.pause();
    const vector = chunks[i]!.embedding;
    if (vector && vector.length !== dims) throw embedderConflict(`${embedderId ?? 'unknown'}:${dims}`, 'vectors of mixed lengths');
  }
}

/** Runs `fn` with the connection's `synchronous` level set to `level`, then restores it. */
function withSynchronous<T>(db: Database.Database, level: 'FULL' | 'NORMAL', fn: () => T): T {
  const before = db.pragma('synchronous', { simple: true }) as number;
  db.pragma(`synchronous = ${level}`);
  try {
    return fn();
  } finally {
    db.pragma(`synchronous = ${before}`);
  }
}
