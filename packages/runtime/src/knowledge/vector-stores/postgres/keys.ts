/**
 * @module knowledge/vector-stores/postgres/keys
 * The metadata keys of the PostgreSQL store's chunks, for the chunks a user may see.
 */
import type { ChunkScope } from '../chunk-scope.js';
import type { SqlValue } from '../../../storage/db.js';
import { postgresConditions } from '../filter-sql.js';
import type { PostgresStoreContext } from './context.js';

export async function jsonKeys(ctx: PostgresStoreContext, column: 'filters' | 'meta_data', visibleTo: ChunkScope | undefined): Promise<string[]> {
  const params: SqlValue[] = [];
  const where = postgresConditions(undefined, visibleTo, params);
  const rows = await ctx.db.query<{ key: string }>(`SELECT DISTINCT jsonb_object_keys(${column}) AS key FROM ${ctx.t}_chunks WHERE TRUE ${where} ORDER BY key`, params);
  return rows.map((r) => r.key);
}
