/**
 * @module knowledge/vector-stores/sqlite/writes
 * Replacing a content's chunks in the SQLite store: staged in short transactions.
 *
 * On a table with versions the write is staged (staging.ts): the new rows go in under a hidden
 * version in short transactions that yield to the event loop, one short transaction publishes
 * them and hides the old version (and the versions of the contents it replaces), and the old rows
 * are purged afterwards; a table made before versions is written in one transaction. Every row gets its keyword entry, its
 * candidate-index entry and its IVF list.
 */
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import type Database from 'better-sqlite3';
import { TimeSlicer } from '../../../util/time-slicer.js';
import { embedderConflict, embedderKey, vectorDimensions } from '../embedder-record.js';
import { routeVectors } from '../reindex.js';
import type { ChunkOwner, StoredChunk } from '../vector-store.js';
import { withSynchronous } from './connection.js';
import type { SqliteStoreContext } from './context.js';
import { deleteRows, purge } from './deletes.js';
import { readMeta } from './meta.js';
import { WRITE_BATCH, WRITE_SLICE_MS, createBitIndex, publishVersion, retireLive, stageVersion } from './staging.js';

/** Where a write's vectors go: the searched column (`main`), the reindex staging table (`stage`), or both. */
type Route = { main: boolean; stage: boolean };

export async function upsertContent(
  ctx: SqliteStoreContext,
  contentId: string,
  chunks: readonly StoredChunk[],
  embedderId: string | undefined,
  owner: ChunkOwner,
  replaces: readonly string[] = [],
): Promise<void> {
  await checkLengths(chunks, embedderId);
  const replaced = replaces.filter((id) => id !== contentId);
  if (!ctx.staged) {
    ctx.run((db) => {
      db.transaction(() => {
        const route = checkEmbedder(ctx, db, chunks, embedderId);
        deleteRows(ctx, db, contentId);
        for (const id of replaced) deleteRows(ctx, db, id);
        insertRows(ctx, db, contentId, chunks, 0, route, owner);
      })();
    });
    void ctx.ivf.maybeTrain();
    return;
  }
  const { version, route } = ctx.run((db) =>
    db.transaction(() => {
      const checked = checkEmbedder(ctx, db, chunks, embedderId);
      // The vectors a reindex staged for the version being replaced are not the new version's.
      db.prepare(`DELETE FROM ${ctx.t}_reindex WHERE content_id = ?`).run(contentId);
      return { version: stageVersion(db, ctx.t, contentId), route: checked };
    })(),
  );
  let old: number[] = [];
  try {
    // A busy or failing pool must not fail the write: the lists are then computed at insert.
    const lists = route.main ? await ctx.ivf.precompute(chunks.map((c) => c.embedding)).catch(() => undefined) : undefined;
    // Each transaction writes up to WRITE_BATCH rows and stops early once it has held the
    // event loop for WRITE_SLICE_MS (500 rows of 384-d vectors took 6-8 ms, and their commit,
    // flushing the keyword index, 3-6 ms more); the version stays hidden until all are
    // written. The log is checkpointed in a pool thread meanwhile (checkpoint.ts).
    for (let start = 0; start < chunks.length; ) {
      const from = start;
      const until = performance.now() + WRITE_SLICE_MS;
      start = ctx.run((db) => db.transaction(() => insertRows(ctx, db, contentId, chunks, version, route, owner, lists, { from, to: from + WRITE_BATCH, until }))());
      ctx.checkpoints?.wrote();
      if (start < chunks.length) await yieldToLoop();
    }
    // FULL for this one commit: fsyncing the WAL makes every staged row durable with it, so a
    // version is on disk before the record that says so is written.
    // The contents it replaces are hidden in the same transaction, so no search sees both or neither.
    old = ctx.run((db) => withSynchronous(db, 'FULL', () => db.transaction(() => [publishVersion(db, ctx.t, contentId, version), ...replaced.map((id) => retireContent(ctx, db, id))])()))
      .filter((v) => v !== undefined);
  } catch (e) {
    // Nothing of a failed write stays: its rows were never visible, and are removed now.
    await purge(ctx, version).catch(() => undefined);
    throw e;
  }
  for (const v of old) await purge(ctx, v);
  // Not awaited: training takes seconds in the pool; searches stay exact until it is done.
  void ctx.ivf.maybeTrain();
}

/** Hides a content's visible version, with the vectors a reindex staged for it; returns that version, to purge. */
function retireContent(ctx: SqliteStoreContext, db: Database.Database, contentId: string): number | undefined {
  db.prepare(`DELETE FROM ${ctx.t}_reindex WHERE content_id = ?`).run(contentId);
  return retireLive(db, ctx.t, contentId);
}

/**
 * Inserts chunk rows (and their keyword and candidate index entries) under `version`, with
 * their owner; a vector goes to the searched column or, during a reindex to another embedder,
 * to the staging table only (`route`). Returns the index after the last row written.
 */
function insertRows(
  ctx: SqliteStoreContext,
  db: Database.Database,
  contentId: string,
  chunks: readonly StoredChunk[],
  version: number,
  route: Route,
  owner: ChunkOwner,
  lists?: { generation: string; lists: Int32Array },
  range: { from: number; to: number; until?: number } = { from: 0, to: chunks.length },
): number {
  const t = ctx.t;
  const columns = 'content_id, chunk_id, name, content, meta_data, filters, embedding, created_at, knowledge_id, user_id, tenant_id';
  const insert = ctx.staged
    ? db.prepare(`INSERT INTO ${t}_chunks (${columns}, version) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
    : db.prepare(`INSERT INTO ${t}_chunks (${columns}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
  const index = db.prepare(`INSERT INTO ${t}_fts (rowid, content) VALUES (?, ?)`);
  const bits = ctx.bits && route.main ? db.prepare(`INSERT INTO ${t}_vec_bits (rowid, embedding) VALUES (?, vec_quantize_binary(?))`) : undefined;
  const stage = route.stage ? db.prepare(`INSERT OR REPLACE INTO ${t}_reindex (content_id, chunk_id, embedding) VALUES (?, ?, ?)`) : undefined;
  const list = route.main ? db.prepare(`INSERT OR REPLACE INTO ${t}_ivf_lists (rowid, list) VALUES (?, ?)`) : undefined;
  const now = Math.floor(Date.now() / 1000);
  const to = Math.min(range.to, chunks.length);
  for (let i = range.from; i < to; i++) {
    // At least one row per call, so a write always makes progress.
    if (range.until !== undefined && i > range.from && (i & 15) === 0 && performance.now() >= range.until) return i;
    const c = chunks[i]!;
    const blob = c.embedding ? Buffer.from(new Float32Array(c.embedding).buffer) : null;
    const values = [contentId, c.id, c.name ?? null, c.content, JSON.stringify(c.meta_data), JSON.stringify(c.filters), route.main ? blob : null, now, owner.knowledgeId ?? null, owner.userId ?? null, owner.tenantId ?? null];
    const info = insert.run(...(ctx.staged ? [...values, version] : values));
    index.run(info.lastInsertRowid, c.content);
    if (bits && blob) bits.run(BigInt(info.lastInsertRowid), blob);
    if (stage && blob) stage.run(contentId, c.id, blob);
    if (list && c.embedding) {
      const at = ctx.ivf.listFor(db, new Float32Array(c.embedding), lists && { generation: lists.generation, list: lists.lists[i]! });
      if (at !== undefined) {
        list.run(info.lastInsertRowid, at);
        ctx.ivf.listed(Number(info.lastInsertRowid), at, c.embedding);
      }
    }
  }
  return to;
}

/** The first vectors fix the embedder and dimension; anything else is refused (mixed lengths: checkLengths, before). */
function checkEmbedder(ctx: SqliteStoreContext, db: Database.Database, chunks: readonly StoredChunk[], embedderId: string | undefined): Route {
  const dims = vectorDimensions(chunks);
  if (dims === undefined) return { main: true, stage: false };
  const key = embedderKey(embedderId, dims);
  const meta = readMeta(db, ctx.t);
  const route = routeVectors(meta.embedder, meta.reindex, embedderId, key);
  if (route.stage) return route;
  if (meta.embedder === undefined) db.prepare(`INSERT INTO ${ctx.t}_meta (key, value) VALUES ('embedder', ?)`).run(key);
  else if (meta.embedder !== key) throw embedderConflict(meta.embedder, key);
  if (ctx.candidates && !ctx.bits) ctx.bits = createBitIndex(db, ctx.t, dims);
  return route;
}

/**
 * Refuses vectors of mixed lengths in one write, before anything is written, a slice at a time
 * (one pass over 150k chunks held the event loop ~20 ms on a loaded machine).
 */
async function checkLengths(chunks: readonly StoredChunk[], embedderId: string | undefined): Promise<void> {
  const dims = vectorDimensions(chunks);
  if (dims === undefined) return;
  const slicer = new TimeSlicer();
  for (let i = 0; i < chunks.length; i++) {
    if ((i & 1023) === 0) await slicer.pause();
    const vector = chunks[i]!.embedding;
    if (vector && vector.length !== dims) throw embedderConflict(embedderKey(embedderId, dims), 'vectors of mixed lengths');
  }
}
