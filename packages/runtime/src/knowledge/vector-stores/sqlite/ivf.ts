/**
 * @module knowledge/vector-stores/sqlite/ivf
 * The SQLite store's inverted-file (IVF) index (on by default; the store's `ivf` option).
 *
 * Exact search scans every row at ~1 µs each, ~200 ms at 100k chunks. IVF partitions the
 * vectors into `lists` by their nearest k-means centroid; a search scores the centroids (a few
 * hundred dot products, in JavaScript), then ranks the rows of the `probes` nearest lists only:
 * by their codes in memory (ivf-memory.ts), the best of them exactly in SQL, or all of them in
 * SQL while the codes are not loaded, with visibility, filter and owner scope in the same WHERE
 * (vector-search.ts). Its tables are in ivf-tables.ts, its training in ivf-training.ts.
 *
 * Rows written after the centroids exist get their list at insert (one pass over the centroids
 * per vector, computed in the pool for large writes). A reindex swap drops all of it in the
 * swap's transaction and trains again.
 *
 * A store opened with `ivf: false` neither trains nor searches through the lists, but keeps an
 * existing index current (lists for the rows it writes, none for the rows it deletes): every
 * process on the file may search through it, so none may let it go stale.
 */
import type Database from 'better-sqlite3';
import type { Offload } from '../../../workers/offload.js';
import { IvfMemory } from './ivf-memory.js';
import { nearestList, nearestLists } from './ivf-kmeans.js';
import { ASSIGN_BATCH, dataVersion, readCentroids, rowBatches, type Centroids } from './ivf-tables.js';
import { inPool, releaseClaim, train, type IvfTrainingHost } from './ivf-training.js';
import { metaValue } from './meta.js';

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
/** Writes at least this large get their lists computed in the pool before their transactions. */
export const POOL_ASSIGN_MIN = 500;

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
  private readonly trainer: IvfTrainingHost;

  constructor(
    private readonly db: () => Database.Database,
    private readonly t: string,
    readonly settings: IvfSettings,
    private readonly offload: () => Offload,
    readonly mode: IvfMode = 'search',
  ) {
    this.trainer = {
      db,
      t,
      settings,
      offload,
      signal: this.stopping.signal,
      owner: this.owner,
      centroids: (connection, key) => this.centroids(connection, key),
      trainingStarted: () => this.trainings++,
    };
  }

  /** The centroids of the current generation, read again when another process (or a reindex) changed them. */
  private centroids(db: Database.Database, key: 'ivf_generation' | 'ivf_ready'): Centroids | undefined {
    const generation = metaValue(db, this.t, key);
    if (generation === undefined) return undefined;
    if (this.cached?.generation === generation) return this.cached;
    const read = readCentroids(db, this.t, generation);
    if (read) this.cached = read;
    return read;
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
    const ready = metaValue(db, this.t, 'ivf_ready');
    if (this.memory && (this.memory.generation !== ready || dataVersion(db) !== this.memoryVersion)) this.memory = undefined;
    if (!this.memory) {
      if (ready !== undefined) this.loadMemory();
      return undefined;
    }
    return this.memory.candidates(query, lists, count);
  }

  /** Whether every vector has a list (the store is large enough to have trained one). */
  ready(db: Database.Database): boolean {
    return metaValue(db, this.t, 'ivf_ready') !== undefined;
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
    const generation = metaValue(db, t, 'ivf_ready');
    const c = this.centroids(db, 'ivf_ready');
    if (generation === undefined || !c) return;
    const version = dataVersion(db);
    const memory = new IvfMemory(generation, c.dims, c.data.length / c.dims);
    this.pending = memory;
    try {
      const select = `SELECT l.rowid, l.list, c.embedding FROM ${t}_ivf_lists l JOIN ${t}_chunks c ON c.rowid = l.rowid
        WHERE l.rowid > ? AND c.embedding IS NOT NULL ORDER BY l.rowid LIMIT ${ASSIGN_BATCH}`;
      for await (const rows of rowBatches<[number | bigint, number, Buffer]>(this.db, select, this.stopping.signal)) {
        for (const [rowid, list, blob] of rows) memory.add(Number(rowid), list, new Float32Array(blob.buffer, blob.byteOffset, blob.length / 4));
      }
      const now = this.db();
      // This connection's writes meanwhile went into `memory` too; another's would be missing.
      if (metaValue(now, t, 'ivf_ready') === generation && dataVersion(now) === version) {
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
    if (metaValue(this.db(), this.t, 'ivf_ready') !== undefined) return Promise.resolve();
    const run = train(this.trainer).catch(() => {
      // Release the claim so a later write (or another process) tries again.
      try {
        releaseClaim(this.trainer);
      } catch {
        // The store was closed.
      }
    });
    this.training = run.finally(() => {
      this.training = undefined;
    });
    return this.training;
  }
}
