/**
 * @module storage/migrator
 * Applies migrations through any Db. The dialect supplies only the lock; bookkeeping is shared.
 */
import type { DbKind, Migration, MigrationReport, SqlClient } from './db.js';
import { ddlFor } from './ddl.js';
import { assertOrdered } from './migrations.js';

const LEDGER = `CREATE TABLE IF NOT EXISTS svc_migrations (
    version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at BIGINT NOT NULL)`;

export async function readApplied(sql: SqlClient): Promise<number[]> {
  const rows = await sql.query<{ version: number }>('SELECT version FROM svc_migrations ORDER BY version');
  return rows.map((r) => Number(r.version));
}

/**
 * Runs inside a transaction that already holds the dialect's migration lock, so two runtimes
 * starting against one database apply each step once.
 */
export async function applyPending(
  kind: DbKind,
  tx: SqlClient,
  migrations: readonly Migration[],
): Promise<MigrationReport> {
  assertOrdered(migrations);
  await tx.execute(ddlFor(kind, LEDGER));
  const done = new Set(await readApplied(tx));
  const applied: number[] = [];
  for (const m of migrations) {
    if (done.has(m.version)) continue;
    for (const statement of splitStatements(stepSql(kind, m))) await tx.execute(statement);
    await tx.execute('INSERT INTO svc_migrations (version, name, applied_at) VALUES ($1, $2, $3)', [
      m.version,
      m.name,
      Math.floor(Date.now() / 1000),
    ]);
    applied.push(m.version);
  }
  const all = [...done, ...applied];
  return { applied, current: all.length === 0 ? 0 : Math.max(...all) };
}

/** The text of step `m` on `kind`: its shared DDL translated, or its own text for the dialect. */
export function stepSql(kind: DbKind, m: Migration): string {
  return m.sql === undefined ? m[kind] : ddlFor(kind, m.sql);
}

/** Migrations may hold several statements separated by a line that is only `--;;`. */
function splitStatements(sql: string): string[] {
  return sql
    .split(/^\s*--;;\s*$/m)
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}
