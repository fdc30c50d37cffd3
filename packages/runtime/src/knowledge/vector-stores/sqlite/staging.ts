/**
 * @module knowledge/vector-stores/sqlite/staging
 * Staged writes and the binary-quantized candidate index of the SQLite store.
 *
 * **Versions.** Every chunk row carries a `version`. `{t}_live` maps each content to its visible
 * version; `{t}_hidden` lists the versions searches must skip: `staged` (being written) and
 * `retired` (replaced or deleted, waiting to be removed). A write:
 *   1. allocates a version, recorded as staged (one short transaction);
 *   2. inserts the chunks in transactions of at most WRITE_BATCH rows, each ending early once
 *      it has run for WRITE_SLICE_MS, yielding to the event loop between them (100k chunks held
 *      the loop for ~4 s in one transaction; 500 rows of 384-d vectors with their commit,
 *      10-15 ms, and 20-55 ms when SQLite checkpointed the log in that commit);
 *   3. publishes: points `live` at the new version, unhides it and hides the old one, in one
 *      transaction that touches three small rows;
 *   4. removes the old version's rows in batches.
 * A search skips hidden versions, so it sees either the old version or the new one, whole. If a
 * write fails, its staged rows are removed; if the process dies, they stay hidden and are
 * removed when a store opens the file again (a staged version whose writer process is gone).
 *
 * Tables created before versions existed have a UNIQUE (content_id, chunk_id) constraint that
 * an old and a new version of the same content would break; they keep the single-transaction
 * write (`staged` false), and a new table gets versions.
 *
 * **Candidate index** (the store's `quantizedCandidates` option). `{t}_vec_bits` is a `vec0`
 * table of the vectors quantized to one bit per dimension (created with the first vectors, when
 * the dimension is a multiple of 8). Measured at 100k 384-d vectors (shared 2-core machine):
 * exact cosine scan ~95 ms p50, vec0 float k-NN ~65 ms, an int8 scan ~90 ms (the per-row cost,
 * not the vector size, dominates a scan), 100-200 Hamming candidates reranked by exact cosine
 * ~6-20 ms. Recall is the catch: 1.0 on well-clustered vectors, but 0.48 (200 candidates) to
 * 0.92 (4000, at ~175 ms) on the bench's bag-of-words vectors, whose neighbours are close
 * together. Hence off by default.
 */
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import type Database from 'better-sqlite3';
import { processAlive } from '../../../util/process-alive.js';

export const WRITE_BATCH = 500;
/** How long one write transaction of a staged version may hold the event loop. */
export const WRITE_SLICE_MS = 4;
export const CANDIDATES_MIN = 200;
export const CANDIDATES_PER_RESULT = 10;

/** This process, as the owner recorded on the versions it writes. */
const OWNER = String(process.pid);

export function createStagingTables(db: Database.Database, t: string): void {
  db.exec(`
    CREATE TABLE IF NOT EXISTS ${t}_live (content_id TEXT PRIMARY KEY, version INTEGER NOT NULL);
    CREATE TABLE IF NOT EXISTS ${t}_hidden (version INTEGER PRIMARY KEY AUTOINCREMENT, content_id TEXT NOT NULL, state TEXT NOT NULL, owner TEXT NOT NULL);
  `);
}

/** True when the chunk table has the `version` column (created by this code, not before it). */
export function hasVersions(db: Database.Database, t: string): boolean {
  return (db.prepare(`SELECT name FROM pragma_table_info('${t}_chunks')`).all() as { name: string }[]).some((c) => c.name === 'version');
}

/** The SQL condition a visible chunk row `c` meets. */
export function visible(t: string, staged: boolean): string {
  return staged ? `c.version NOT IN (SELECT version FROM ${t}_hidden)` : '1';
}

export function hasBitIndex(db: Database.Database, t: string): boolean {
  return db.prepare(`SELECT 1 FROM sqlite_master WHERE name = ?`).get(`${t}_vec_bits`) !== undefined;
}

/** Creates the candidate index for `dims`-dimensional vectors; false when the dimension does not allow one. */
export function createBitIndex(db: Database.Database, t: string, dims: number): boolean {
  if (dims % 8 !== 0 || dims > 8192) return false;
  db.exec(`CREATE VIRTUAL TABLE IF NOT EXISTS ${t}_vec_bits USING vec0(embedding bit[${dims}])`);
  return true;
}

/**
 * Fills the candidate index from vectors stored before it existed, in batches. Rows are taken in
 * rowid order past the largest indexed rowid, so it resumes where it stopped.
 */
export async function backfillBitIndex(db: Database.Database, t: string): Promise<void> {
  const insert = db.prepare(`INSERT INTO ${t}_vec_bits (rowid, embedding) VALUES (?, vec_quantize_binary(?))`);
  for (;;) {
    const last = (db.prepare(`SELECT max(rowid) AS m FROM ${t}_vec_bits`).get() as { m: number | bigint | null }).m ?? 0;
    const rows = db.prepare(`SELECT rowid, embedding FROM ${t}_chunks WHERE rowid > ? AND embedding IS NOT NULL ORDER BY rowid LIMIT ${WRITE_BATCH}`).raw().all(last) as [number | bigint, Buffer][];
    if (rows.length === 0) return;
    db.transaction(() => {
      for (const [rowid, blob] of rows) insert.run(BigInt(rowid), blob);
    })();
    await yieldToLoop();
  }
}

/** Allocates a version for a write of `contentId`, hidden until published. */
export function stageVersion(db: Database.Database, t: string, contentId: string): number {
  const info = db.prepare(`INSERT INTO ${t}_hidden (content_id, state, owner) VALUES (?, 'staged', ?)`).run(contentId, OWNER);
  return Number(info.lastInsertRowid);
}

/**
 * Makes `version` the visible version of `contentId` and hides the one it replaces; returns
 * the replaced version (to remove), if any. Must run inside a transaction.
 */
export function publishVersion(db: Database.Database, t: string, contentId: string, version: number): number | undefined {
  const old = retireLive(db, t, contentId);
  db.prepare(`INSERT INTO ${t}_live (content_id, version) VALUES (?, ?)`).run(contentId, version);
  db.prepare(`DELETE FROM ${t}_hidden WHERE version = ?`).run(version);
  return old;
}

/** Hides the visible version of `contentId`, if it has one, and returns it. Must run inside a transaction. */
export function retireLive(db: Database.Database, t: string, contentId: string): number | undefined {
  const live = db.prepare(`SELECT version FROM ${t}_live WHERE content_id = ?`).get(contentId) as { version: number } | undefined;
  if (!live) return undefined;
  db.prepare(`DELETE FROM ${t}_live WHERE content_id = ?`).run(contentId);
  db.prepare(`INSERT OR REPLACE INTO ${t}_hidden (version, content_id, state, owner) VALUES (?, ?, 'retired', ?)`).run(live.version, contentId, OWNER);
  return live.version;
}

/** Told about each batch of writes, so the log can be checkpointed off the event loop (checkpoint.ts). */
export interface WriteObserver {
  wrote(): void;
}

/** What a purge tells its store: each committed batch (for checkpoints), each row leaving the IVF lists (for the codes in memory). */
export interface PurgeHooks {
  observer?: WriteObserver | undefined;
  unlisted?: ((rowid: number) => void) | undefined;
}

/** Deletes the rows of a hidden version in batches (chunks, keyword index, candidate index), then forgets the version. */
export async function purgeVersion(db: Database.Database, t: string, version: number, hooks: PurgeHooks = {}): Promise<void> {
  const bits = hasBitIndex(db, t);
  const select = db.prepare(`SELECT rowid FROM ${t}_chunks WHERE version = ? LIMIT ${WRITE_BATCH}`).pluck();
  const fts = db.prepare(`DELETE FROM ${t}_fts WHERE rowid = ?`);
  const chunk = db.prepare(`DELETE FROM ${t}_chunks WHERE rowid = ?`);
  const bit = bits ? db.prepare(`DELETE FROM ${t}_vec_bits WHERE rowid = ?`) : undefined;
  // The IVF lists (ivf.ts) must not keep a removed row, whose rowid a new chunk may take.
  const list = db.prepare(`SELECT 1 FROM sqlite_master WHERE name = ?`).get(`${t}_ivf_lists`) ? db.prepare(`DELETE FROM ${t}_ivf_lists WHERE rowid = ?`) : undefined;
  for (;;) {
    const removed = db.transaction(() => {
      const rowids = select.all(version) as (number | bigint)[];
      for (const rowid of rowids) {
        fts.run(rowid);
        bit?.run(BigInt(rowid));
        if (list && list.run(rowid).changes > 0) hooks.unlisted?.(Number(rowid));
        chunk.run(rowid);
      }
      return rowids.length;
    })();
    hooks.observer?.wrote();
    if (removed < WRITE_BATCH) break;
    await yieldToLoop();
  }
  db.prepare(`DELETE FROM ${t}_hidden WHERE version = ?`).run(version);
}

/**
 * Removes versions left hidden by a writer that is gone: a process that died mid-write, or
 * retired versions whose removal it never finished. Versions of live processes (this one
 * included) are left to them.
 */
export async function purgeAbandoned(db: Database.Database, t: string, hooks: PurgeHooks = {}): Promise<number> {
  const rows = db.prepare(`SELECT version, owner FROM ${t}_hidden`).all() as { version: number; owner: string }[];
  let purged = 0;
  for (const row of rows) {
    if (row.owner === OWNER || processAlive(Number(row.owner))) continue;
    await purgeVersion(db, t, row.version, hooks);
    purged++;
  }
  return purged;
}
