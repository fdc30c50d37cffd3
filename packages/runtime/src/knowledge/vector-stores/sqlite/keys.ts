/**
 * @module knowledge/vector-stores/sqlite/keys
 * The metadata keys of the SQLite store's visible chunks, for the chunks a user may see.
 */
import type { ChunkScope } from '../chunk-scope.js';
import { sqliteConditions } from '../filter-sql.js';
import type { SqliteStoreContext } from './context.js';
import { visible } from './staging.js';

export function jsonKeys(ctx: SqliteStoreContext, column: 'filters' | 'meta_data', visibleTo: ChunkScope | undefined): string[] {
  const where = sqliteConditions(undefined, visibleTo);
  const sql = `SELECT DISTINCT j.key AS key FROM ${ctx.t}_chunks c, json_each(c.${column}) j WHERE ${visible(ctx.t, ctx.staged)} ${where.sql} ORDER BY j.key`;
  return ctx.run((db) => (db.prepare(sql).all(...where.params) as { key: string }[]).map((r) => r.key));
}
