/**
 * @module knowledge/vector-stores/sqlite/ivf-tables
 * The IVF index (ivf.ts) as stored in the file: its tables, `_meta` keys and batched reads.
 *
 * - `{t}_ivf_centroids (list, centroid)`: unit float32 centroids.
 * - `{t}_ivf_lists (rowid, list)` keyed by the chunk's rowid, indexed on `list`. A table rather
 *   than a column of the chunk table: tables made before this have no such column (an ALTER on a
 *   100k-row table is fine, but dropping the index after a reindex would then mean rewriting
 *   every chunk row), and the (list, rowid) index gives the search the rowids of the probed lists
 *   without touching the chunk rows of other lists. Dropping and rebuilding is a DELETE here.
 * - `{t}_meta` keys: `ivf_generation` (set with the centroids), `ivf_ready` (= the generation
 *   once every vector has a list; searches use the index only then), `ivf_training` (the pid of
 *   the process training, so a second process on the same file does not train again).
 */
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import type Database from 'better-sqlite3';
import { metaValue } from './meta.js';

/** Rows read (and assigned) per batch; the loop gets a turn between batches. */
export const ASSIGN_BATCH = 2000;

export interface Centroids {
  generation: string;
  dims: number;
  data: Float32Array;
}

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
export function dataVersion(db: Database.Database): number {
  return db.pragma('data_version', { simple: true }) as number;
}

/** The centroids of `generation`, read in one transaction; undefined when another generation replaced it meanwhile. */
export function readCentroids(db: Database.Database, t: string, generation: string): Centroids | undefined {
  return db.transaction(() => {
    if (metaValue(db, t, 'ivf_generation') !== generation) return undefined;
    const rows = db.prepare(`SELECT centroid FROM ${t}_ivf_centroids ORDER BY list`).pluck().all() as Buffer[];
    if (rows.length === 0) return undefined;
    const dims = rows[0]!.length / 4;
    const data = new Float32Array(rows.length * dims);
    rows.forEach((b, l) => data.set(new Float32Array(b.buffer, b.byteOffset, dims), l * dims));
    return { generation, dims, data };
  })();
}

/**
 * The rows of `select` (rowid first, `rowid > ?`, at most ASSIGN_BATCH a call) batch by batch,
 * yielding to the loop between batches and stopping when `signal` aborts (the store closes).
 */
export async function* rowBatches<R extends [number | bigint, ...unknown[]]>(db: () => Database.Database, select: string, signal: AbortSignal): AsyncGenerator<R[]> {
  let last: number | bigint = -1;
  for (;;) {
    const rows = db().prepare(select).raw().all(last) as R[];
    if (rows.length > 0) yield rows;
    if (rows.length < ASSIGN_BATCH) return;
    last = rows[rows.length - 1]![0];
    await yieldToLoop();
    signal.throwIfAborted();
  }
}
