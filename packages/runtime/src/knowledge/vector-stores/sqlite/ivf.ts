/**
 * @module knowledge/vector-stores/sqlite/ivf
 * The SQLite store's inverted-file (IVF) index (on by default; the store's `ivf` option).
 *
 * Exact search scans every row at ~1 µs each, ~200 ms at 100k chunks. IVF partitions the
 * vectors into `lists` by their nearest k-means centroid; a search scores the centroids (a few
 * hundred dot products, in JavaScript), then runs the same exact cosine in SQL over the rows of
 * the `probes` nearest lists only, with visibility, filter and owner scope in the same WHERE.
 *
 * Tables:
 * - `{t}_ivf_centroids (list, centroid)`: unit float32 centroids.
 * - `{t}_ivf_lists (rowid, list)` keyed by the chunk's rowid, indexed on `list`. A table rather
 *   than a column of the chunk table: tables made before this have no such column (an ALTER on a
 *   100k-row table is fine, but dropping the index after a reindex would then mean rewriting
 *   every chunk row), and the (list, rowid) index gives the search the rowids of the probed lists
 *   without touching the chunk rows of other lists. Dropping and rebuilding is a DELETE here.
 * - `{t}_meta` keys: `ivf_generation` (set with the centroids), `ivf_ready` (= the generation
 *   once every vector has a list; searches use the index only then), `ivf_training` (the pid of
 *   the process training, so a second process on the same file does not train again).
 *
 * Training starts once the store holds `trainAt` chunks and has no centroids: a sample is read
 * in batches, k-means runs in the knowledge worker pool, the centroids are published in one
 * transaction (only if nobody published first), and the existing rows are assigned in batches
 * (read, assigned in the pool, written in a short transaction, yielding to the loop). Rows
 * written after the centroids exist get their list at insert (one pass over the centroids per
 * vector). A reindex swap drops all of it in the swap's transaction and trains again.
 *
 * A store opened with `ivf: false` neither trains nor searches through the lists, but keeps an
 * existing index current (lists for the rows it writes, none for the rows it deletes): every
 * process on the file may search through it, so none may let it go stale.
 */
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import type Database from 'better-sqlite3';
import type { Offload } from '../../../workers/offload.js';
import { IvfMemory } from './ivf-memory.js';
import { assignLists, nearestList, nearestLists, trainCentroids, type AssignPayload, type TrainPayload } from './ivf-kmeans.js';
import { processAlive } from '../../../util/process-alive.js';
import { defineWorkerTask } from '../../../workers/task.js';

defineWorkerTask('ivf-train', import.meta.url, './ivf-kmeans.js', 'trainTask');
defineWorkerTask('ivf-assign', import.meta.url, './ivf-kmeans.js', 'assignTask');

export interface IvfSettings {
  lists: number;
  probes: number;
  trainAt: number;
}

/**
 * 64 of 512 lists (an eighth of the rows): on a real sentence encoder's vectors (30k passages,
 * bench/knowledge-ivf-real.ts) 12 probes found 0.80 of the exact top 10, 48 found 0.96 and 64
 * 0.97; the bench's own vectors need only 12 (0.99). Scored in memory (ivf-memory.ts), 64
 * probes cost p99 ~7-9 ms at 30k-100k chunks.
 */
export const IVF_DEFAULTS: IvfSettings = { lists: 512, probes: 64, trainAt: 10_000 };

/** What a store does with the index: `search` (train when due and search through it) or only `maintain` it. */
export type IvfMode = 'search' | 'maintain';
/**
 * Sample vectors per list for k-means (enough for stable centroids), and a cap that bounds the
 * CPU: sample x lists x dims x iterations multiply-adds, ~10-40 s in one worker at 256-1024 lists.
 */
const SAMPLE_PER_LIST = 48;
const SAMPLE_MAX = 16_384;
const ITERATIONS = 10;
const ASSIGN_BATCH = 2000;
/** Writes at least this large get their lists computed in the pool before their transactions. */
export const POOL_ASSIGN_MIN = 500;

export function createIvfTables(db: Database.Database, t: string): void {
  db.exec(`
    CREATE TABLE IF NOT EXISTS ${t}_ivf_centroids (list INTEGER PRIMARY KEY, centroid BLOB NOT NULL);
    CREATE TABLE IF NOT EXISTS ${t}_ivf_lists (rowid INTEGER PRIMARY KEY, list INTEGER NOT NULL);
    CREATE INDEX IF NOT EXISTS ${t}_ivf_lists_list ON ${t}_ivf_lists (list);
  `);
}

function hasIvf(db: Database.Database, t: string): boolean {
  return db.prepare(`SELECT 1 FROM sqlite_master WHERE name = ?`).get(`${t}_ivf_lists`) !== undefined;
}

/** Forgets the index (centroids, lists, state): the vectors changed. Run inside the caller's transaction. */
export function dropIvf(db: Database.Database, t: string): void {
  if (!hasIvf(db, t)) return;
  db.exec(`DELETE FROM ${t}_ivf_centroids; DELETE FROM ${t}_ivf_lists`);
  db.prepare(`DELETE FROM ${t}_meta WHERE key IN ('ivf_generation', 'ivf_ready', 'ivf_training')`).run();
}

/** Changes when another connection commits to the file (never for this connection's own writes). */
function dataVersion(db: Database.Database): number {
  return db.pragma('data_version', { simple: true }) as number;
}

function meta(db: Database.Database, t: string, key: string): string | undefined {
  return (db.prepare(`SELECT value FROM ${t}_meta WHERE key = ?`).get(key) as { value: string } | undefined)?.value;
}

function setMeta(db: Database.Database, t: string, key: string, value: string): void {
  db.prepare(`INSERT INTO ${t}_meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value`).run(key, value);
}

interface Centroids {
  generation: string;
  dims: number;
  data: Float32Array;
}

/** Runs a task in the pool, or inline when the process has no pool (KNOWLEDGE_WORKERS=0). */
async function inPool<T>(offload: Offload, task: 'ivf-train' | 'ivf-assign', payload: TrainPayload | AssignPayload, signal?: AbortSignal): Promise<T> {
  signal?.throwIfAborted();
  if (offload === 'inline') return (task === 'ivf-train' ? trainCentroids(payload as TrainPayload) : assignLists(payload as AssignPayload)) as T;
  return offload.run<T>(task, payload, { label: `IVF ${task === 'ivf-train' ? 'training' : 'assignment'}`, timeoutMs: 600_000, signal });
}

export class IvfIndex {
  private cached: Centroids | undefined;
  /** Stops a training when the store closes (it may have minutes to go at 100k+ chunks). */
  private readonly stopping = new AbortController();
  private training: Promise<void> | undefined;
  /** Training runs of this process (tests check it trains once). */
  trainings = 0;
  /**
   * This store's claim on training: the pid (so another process can tell a dead claimer) and a
   * per-store tag (so two stores of one process on one file do not both train).
   */
  private readonly owner = `${process.pid}:${Math.random().toString(36).slice(2)}`;
  /** Searches answered from the probed lists, without the exact fallback (tests check the index is used). */
  searches = 0;
  /** Of those, the ones ranked by the in-memory codes (ivf-memory.ts) rather than by SQL over the lists. */
  memorySearches = 0;
  /** The lists' vectors in memory, for the generation they were read under. */
  private memory: IvfMemory | undefined;
  /** SQLite's `data_version` when `memory` was read: it changes when another connection writes. */
  private memoryVersion = -1;
  /** The one being read, which this connection's writes update too. */
  private pending: IvfMemory | undefined;
  private loading: Promise<void> | undefined;

  constructor(
    private readonly db: () => Database.Database,
    private readonly t: string,
    readonly settings: IvfSettings,
    private readonly offload: () => Offload,
    readonly mode: IvfMode = 'search',
  ) {}

  /** The centroids of the current generation, read again when another process (or a reindex) changed them. */
  private centroids(db: Database.Database, key: 'ivf_generation' | 'ivf_ready'): Centroids | undefined {
    const generation = meta(db, this.t, key);
    if (generation === undefined) return undefined;
    if (this.cached?.generation === generation) return this.cached;
    return db.transaction(() => {
      if (meta(db, this.t, 'ivf_generation') !== generation) return undefined;
      const rows = db.prepare(`SELECT centroid FROM ${this.t}_ivf_centroids ORDER BY list`).pluck().all() as Buffer[];
      if (rows.length === 0) return undefined;
      const dims = rows[0]!.length / 4;
      const data = new Float32Array(rows.length * dims);
      rows.forEach((b, l) => data.set(new Float32Array(b.buffer, b.byteOffset, dims), l * dims));
      this.cached = { generation, dims, data };
      return this.cached;
    })();
  }

  /**
   * The list of a vector being inserted, when centroids exist (call inside the insert's
   * transaction, so a generation published meanwhile is seen). One pass over the centroids.
   */
  listFor(db: Database.Database, vector: Float32Array, precomputed?: { generation: string; list: number }): number | undefined {
    const c = this.centroids(db, 'ivf_generation');
    if (!c || c.dims !== vector.length) return undefined;
    if (precomputed && precomputed.generation === c.generation) return precomputed.list;
    return nearestList(c.data, vector, 0, c.dims);
  }

  /**
   * The lists of a large write's vectors, computed in the pool before its transactions (a pass
   * over 256 centroids is ~0.1 ms a vector: 50 ms per 500-row transaction on the loop otherwise).
   * `listFor` uses them only if the generation is still current when the rows are inserted.
   */
  async precompute(vectors: readonly (readonly number[] | undefined)[]): Promise<{ generation: string; lists: Int32Array } | undefined> {
    const c = this.centroids(this.db(), 'ivf_generation');
    if (!c || vectors.length < POOL_ASSIGN_MIN) return undefined;
    const packed = new Float32Array(vectors.length * c.dims);
    for (const [i, v] of vectors.entries()) if (v && v.length === c.dims) packed.set(v, i * c.dims);
    const lists = await inPool<Int32Array>(this.offload(), 'ivf-assign', { centroids: c.data, vectors: packed, dims: c.dims }, this.stopping.signal);
    return { generation: c.generation, lists };
  }

  /** The lists to probe for `query`, or undefined while the index is not ready (search exactly). */
  probe(db: Database.Database, query: Float32Array): number[] | undefined {
    if (this.mode !== 'search') return undefined;
    const c = this.centroids(db, 'ivf_ready');
    if (!c || c.dims !== query.length) return undefined;
    return nearestLists(c.data, query, c.dims, this.settings.probes);
  }

  /** This connection put `rowid` in `list` (insert path): the codes in memory follow. */
  listed(rowid: number, list: number, vector: ArrayLike<number>): void {
    this.memory?.add(rowid, list, vector);
    this.pending?.add(rowid, list, vector);
  }

  /** This connection took `rowid` out of the lists. */
  unlisted(rowid: number): void {
    this.memory?.remove(rowid);
    this.pending?.remove(rowid);
  }

  /**
   * The best `count` rowids of the probed lists by the in-memory codes, or undefined while they
   * are not in memory for the ready generation (then a load starts and SQL answers meanwhile).
   * Another connection's write (SQLite's `data_version` moved) makes them stale: read again.
   */
  candidates(db: Database.Database, query: Float32Array, lists: readonly number[], count: number): number[] | undefined {
    if (this.mode !== 'search') return undefined;
    const ready = meta(db, this.t, 'ivf_ready');
    if (this.memory && (this.memory.generation !== ready || dataVersion(db) !== this.memoryVersion)) this.memory = undefined;
    if (!this.memory) {
      if (ready !== undefined) this.loadMemory();
      return undefined;
    }
    return this.memory.candidates(query, lists, count);
  }

  /** Whether every vector has a list (the store is large enough to have trained one). */
  ready(db: Database.Database): boolean {
    return meta(db, this.t, 'ivf_ready') !== undefined;
  }

  /** Rows whose codes are in memory, or undefined when none are loaded. */
  get memoryRows(): number | undefined {
    return this.memory?.size;
  }

  /** Resolves when a load of the in-memory codes under way has finished (tests and the bench wait on it). */
  async memoryLoaded(): Promise<boolean> {
    await this.loading;
    return this.memory !== undefined;
  }

  private loadMemory(): void {
    if (this.loading || this.stopping.signal.aborted) return;
    this.loading = this.readMemory()
      .catch(() => undefined)
      .finally(() => {
        this.loading = undefined;
      });
  }

  /** Reads every listed vector into codes, in batches that yield; kept only if nothing else changed meanwhile. */
  private async readMemory(): Promise<void> {
    const t = this.t;
    const db = this.db();
    const generation = meta(db, t, 'ivf_ready');
    const c = this.centroids(db, 'ivf_ready');
    if (generation === undefined || !c) return;
    const version = dataVersion(db);
    const memory = new IvfMemory(generation, c.dims, c.data.length / c.dims);
    this.pending = memory;
    try {
      const select = `SELECT l.rowid, l.list, c.embedding FROM ${t}_ivf_lists l JOIN ${t}_chunks c ON c.rowid = l.rowid
        WHERE l.rowid > ? AND c.embedding IS NOT NULL ORDER BY l.rowid LIMIT ${ASSIGN_BATCH}`;
      for await (const rows of this.batches<[number | bigint, number, Buffer]>(select)) {
        for (const [rowid, list, blob] of rows) memory.add(Number(rowid), list, new Float32Array(blob.buffer, blob.byteOffset, blob.length / 4));
      }
      const now = this.db();
      // This connection's writes meanwhile went into `memory` too; another's would be missing.
      if (meta(now, t, 'ivf_ready') === generation && dataVersion(now) === version) {
        this.memory = memory;
        this.memoryVersion = version;
      }
    } finally {
      if (this.pending === memory) this.pending = undefined;
    }
  }

  /** Abandons training (the store is closing); the claim is released, another store or process trains later. */
  stop(): void {
    this.stopping.abort(new Error('the store is closing'));
  }

  /** The training (and the reading of the codes) under way in this process, if any (tests and the bench wait on it). */
  async settled(): Promise<void> {
    await this.training;
    await this.loading;
  }

  /** Starts training (or finishing an interrupted assignment) when due; never throws, search stays exact on failure. */
  maybeTrain(): Promise<void> {
    if (this.mode !== 'search') return Promise.resolve();
    if (this.training || this.stopping.signal.aborted) return this.training ?? Promise.resolve();
    // The usual case after every write: trained already, nothing to lock.
    if (meta(this.db(), this.t, 'ivf_ready') !== undefined) return Promise.resolve();
    const run = this.train().catch(() => {
      // Release the claim so a later write (or another process) tries again.
      try {
        const db = this.db();
        db.transaction(() => {
          if (meta(db, this.t, 'ivf_training') === this.owner) db.prepare(`DELETE FROM ${this.t}_meta WHERE key = 'ivf_training'`).run();
        }).immediate();
      } catch {
        // The store was closed.
      }
    });
    this.training = run.finally(() => {
      this.training = undefined;
    });
    return this.training;
  }

  private async train(): Promise<void> {
    const t = this.t;
    const claimed = this.db().transaction(() => {
      const db = this.db();
      if (meta(db, t, 'ivf_ready') !== undefined) return false;
      const owner = meta(db, t, 'ivf_training');
      if (owner !== undefined && owner !== this.owner && processAlive(Number(owner.split(':')[0]))) return false;
      const count = (db.prepare(`SELECT count(*) AS n FROM ${t}_chunks`).get() as { n: number }).n;
      if (count < this.settings.trainAt) return false;
      setMeta(db, t, 'ivf_training', this.owner);
      return true;
    }).immediate();
    if (!claimed) return;
    if (meta(this.db(), t, 'ivf_generation') === undefined) {
      this.trainings++;
      const sample = await this.sample();
      if (!sample) throw new Error('no vectors to train on');
      const data = await inPool<Float32Array>(this.offload(), 'ivf-train', { vectors: sample.vectors, dims: sample.dims, lists: this.settings.lists, iterations: ITERATIONS, seed: 1 }, this.stopping.signal);
      const published = this.db().transaction(() => {
        const db = this.db();
        if (meta(db, t, 'ivf_training') !== this.owner || meta(db, t, 'ivf_generation') !== undefined) return false;
        db.exec(`DELETE FROM ${t}_ivf_centroids; DELETE FROM ${t}_ivf_lists`);
        const insert = db.prepare(`INSERT INTO ${t}_ivf_centroids (list, centroid) VALUES (?, ?)`);
        const lists = data.length / sample.dims;
        for (let l = 0; l < lists; l++) insert.run(l, Buffer.from(data.buffer, data.byteOffset + l * sample.dims * 4, sample.dims * 4));
        setMeta(db, t, 'ivf_generation', `${Date.now()}-${this.owner}`);
        return true;
      }).immediate();
      if (!published) return;
    }
    await this.assignAll();
  }

  /**
   * The rows of `select` (rowid first, `rowid > ?`, at most ASSIGN_BATCH a call) batch by batch,
   * yielding to the loop between batches and stopping when the store closes.
   */
  private async *batches<R extends [number | bigint, ...unknown[]]>(select: string): AsyncGenerator<R[]> {
    let last: number | bigint = -1;
    for (;;) {
      const rows = this.db().prepare(select).raw().all(last) as R[];
      if (rows.length > 0) yield rows;
      if (rows.length < ASSIGN_BATCH) return;
      last = rows[rows.length - 1]![0];
      await yieldToLoop();
      this.stopping.signal.throwIfAborted();
    }
  }

  /** A uniform sample of the stored vectors, read in rowid batches with yields between them. */
  private async sample(): Promise<{ vectors: Float32Array; dims: number } | undefined> {
    const t = this.t;
    const total = (this.db().prepare(`SELECT count(*) AS n FROM ${t}_chunks WHERE embedding IS NOT NULL`).get() as { n: number }).n;
    const want = Math.min(SAMPLE_MAX, this.settings.lists * SAMPLE_PER_LIST);
    const keep = Math.min(1, want / Math.max(1, total));
    const picked: Buffer[] = [];
    let state = 12345;
    const select = `SELECT rowid, embedding FROM ${t}_chunks WHERE rowid > ? AND embedding IS NOT NULL ORDER BY rowid LIMIT ${ASSIGN_BATCH}`;
    for await (const rows of this.batches<[number | bigint, Buffer]>(select)) {
      for (const [, blob] of rows) {
        // A fixed-seed LCG, so the same data trains the same centroids.
        state = (Math.imul(state, 1103515245) + 12345) >>> 0;
        if (state / 4294967296 < keep) picked.push(blob);
      }
    }
    if (picked.length === 0) return undefined;
    const dims = picked[0]!.length / 4;
    const vectors = new Float32Array(picked.length * dims);
    let n = 0;
    for (const b of picked) if (b.length === dims * 4) vectors.set(new Float32Array(b.buffer, b.byteOffset, dims), dims * n++);
    return { vectors: vectors.subarray(0, n * dims), dims };
  }

  /**
   * The lists of a batch, split across the pool's workers: after training on a large store this
   * is the long part (100k vectors x 512 centroids), and the pool is otherwise idle then.
   */
  private async assignSpread(c: Centroids, vectors: Float32Array): Promise<Int32Array> {
    const offload = this.offload();
    const count = vectors.length / c.dims;
    const parts = offload === 'inline' ? 1 : Math.max(1, Math.min(offload.size, Math.floor(count / 250)));
    const per = Math.ceil(count / parts);
    const results = await Promise.all(
      Array.from({ length: parts }, (_, p) =>
        inPool<Int32Array>(
          offload,
          'ivf-assign',
          // slice, not subarray: a view would post the whole batch's buffer to each worker.
          { centroids: c.data, vectors: vectors.slice(p * per * c.dims, Math.min(count, (p + 1) * per) * c.dims), dims: c.dims },
          this.stopping.signal,
        ),
      ),
    );
    const lists = new Int32Array(count);
    results.forEach((part, p) => lists.set(part, p * per));
    return lists;
  }

  /** Gives every vector without a list its list, in batches, then marks the index ready. */
  private async assignAll(): Promise<void> {
    const t = this.t;
    const generation = meta(this.db(), t, 'ivf_generation');
    const c = this.centroids(this.db(), 'ivf_generation');
    if (!c || generation === undefined) return;
    // Vectors of another length (none, since the store refuses them) would never get a list.
    const select = `SELECT c.rowid, c.embedding FROM ${t}_chunks c WHERE c.rowid > ? AND length(c.embedding) = ${c.dims * 4}
      AND NOT EXISTS (SELECT 1 FROM ${t}_ivf_lists l WHERE l.rowid = c.rowid) ORDER BY c.rowid LIMIT ${ASSIGN_BATCH}`;
    for (;;) {
      let last: number | bigint = -1;
      for (;;) {
        const rows = this.db().prepare(select).raw().all(last) as [number | bigint, Buffer][];
        if (rows.length > 0) {
          const vectors = new Float32Array(rows.length * c.dims);
          rows.forEach(([, b], i) => vectors.set(new Float32Array(b.buffer, b.byteOffset, c.dims), i * c.dims));
          const lists = await this.assignSpread(c, vectors);
          const current = this.db().transaction(() => {
            const db = this.db();
            // A reindex swapped the vectors meanwhile: these lists belong to old centroids.
            if (meta(db, t, 'ivf_generation') !== generation) return false;
            // OR IGNORE: a row inserted meanwhile got its list at insert; a row deleted meanwhile gets none.
            const insert = db.prepare(`INSERT OR IGNORE INTO ${t}_ivf_lists (rowid, list) SELECT ?, ? WHERE EXISTS (SELECT 1 FROM ${t}_chunks WHERE rowid = ?)`);
            rows.forEach(([rowid], i) => insert.run(rowid, lists[i]!, rowid));
            return true;
          })();
          if (!current) return;
          last = rows[rows.length - 1]![0];
        }
        const more = rows.length > 0;
        await yieldToLoop();
        this.stopping.signal.throwIfAborted();
        if (!more) break;
      }
      // Ready only when nothing is left without a list, checked in the transaction that says so.
      const done = this.db().transaction(() => {
        const db = this.db();
        if (meta(db, t, 'ivf_generation') !== generation) return true;
        if (db.prepare(select).get(-1) !== undefined) return false;
        setMeta(db, t, 'ivf_ready', generation);
        db.prepare(`DELETE FROM ${t}_meta WHERE key = 'ivf_training'`).run();
        return true;
      }).immediate();
      if (done) return;
    }
  }
}
