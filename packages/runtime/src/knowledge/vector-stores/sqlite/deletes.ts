/**
 * @module knowledge/vector-stores/sqlite/deletes
 * Removing a content's chunks from the SQLite store, and purging hidden versions.
 *
 * On a table without versions the rows go at once in one transaction; otherwise they are hidden
 * at once and purged in batches (staging.ts), as is a version a write replaced or abandoned.
 */
import type Database from 'better-sqlite3';
import { RuntimeError } from '../../../errors.js';
import { storageError } from '../../../storage/sql-errors.js';
import type { SqliteStoreContext } from './context.js';
import { purgeVersion, retireLive, visible } from './staging.js';

/**
 * Deletes the rows of `contentId` (only `ownedBy`'s, when given) with their keyword, candidate
 * and IVF entries, in the caller's transaction; returns how many chunk rows went.
 */
export function deleteRows(ctx: SqliteStoreContext, db: Database.Database, contentId: string, ownedBy?: string): number {
  const t = ctx.t;
  const owned = ownedBy === undefined ? '' : ' AND user_id = ?';
  const params = ownedBy === undefined ? [contentId] : [contentId, ownedBy];
  db.prepare(`DELETE FROM ${t}_fts WHERE rowid IN (SELECT rowid FROM ${t}_chunks WHERE content_id = ?${owned})`).run(...params);
  if (ctx.bits) {
    const bit = db.prepare(`DELETE FROM ${t}_vec_bits WHERE rowid = ?`);
    for (const rowid of db.prepare(`SELECT rowid FROM ${t}_chunks WHERE content_id = ?${owned}`).pluck().all(...params) as (number | bigint)[]) bit.run(BigInt(rowid));
  }
  const unlisted = db.prepare(`DELETE FROM ${t}_ivf_lists WHERE rowid IN (SELECT rowid FROM ${t}_chunks WHERE content_id = ?${owned}) RETURNING rowid`).pluck().all(...params) as number[];
  for (const rowid of unlisted) ctx.ivf.unlisted(Number(rowid));
  const deleted = db.prepare(`DELETE FROM ${t}_chunks WHERE content_id = ?${owned}`).run(...params).changes;
  // A content has one owner: when its chunks went, so do the vectors a reindex staged for it.
  if (ownedBy === undefined || deleted > 0) db.prepare(`DELETE FROM ${t}_reindex WHERE content_id = ?`).run(contentId);
  return deleted;
}

export async function deleteContent(ctx: SqliteStoreContext, contentId: string, ownedBy: string | undefined): Promise<number> {
  if (!ctx.staged) return ctx.run((db) => db.transaction(() => deleteRows(ctx, db, contentId, ownedBy))());
  // Hidden at once in one short transaction; the rows go in batches afterwards.
  const { version, count } = ctx.run((db) =>
    db.transaction(() => {
      const owned = ownedBy === undefined ? '' : ' AND user_id = ?';
      const rows = (
        db.prepare(`SELECT count(*) AS n FROM ${ctx.t}_chunks c WHERE content_id = ?${owned} AND ${visible(ctx.t, ctx.staged)}`).get(...(ownedBy === undefined ? [contentId] : [contentId, ownedBy])) as { n: number }
      ).n;
      // Someone else's content (or shared content) is not this caller's to delete.
      if (ownedBy !== undefined && rows === 0) return { version: undefined, count: 0 };
      db.prepare(`DELETE FROM ${ctx.t}_reindex WHERE content_id = ?`).run(contentId);
      return { version: retireLive(db, ctx.t, contentId), count: rows };
    })(),
  );
  if (version !== undefined) await purge(ctx, version);
  return count;
}

/** Removes a hidden version's rows in batches; nothing once the store is closed. */
export async function purge(ctx: SqliteStoreContext, version: number): Promise<void> {
  const db = ctx.connection();
  if (!db) return;
  try {
    await purgeVersion(db, ctx.t, version, { observer: ctx.checkpoints, unlisted: (rowid) => ctx.ivf.unlisted(rowid) });
  } catch (e) {
    throw RuntimeError.isInstance(e) ? e : storageError(e);
  }
}
