/**
 * @module knowledge/vector-stores/sqlite/meta
 * The SQLite store's `{t}_meta` table of key/value records: read, read one, set.
 */
import type Database from 'better-sqlite3';

/** Every record, read in one statement (a write checks several against each other). */
export function readMeta(db: Database.Database, t: string): Record<string, string> {
  const rows = db.prepare(`SELECT key, value FROM ${t}_meta`).all() as { key: string; value: string }[];
  return Object.fromEntries(rows.map((r) => [r.key, r.value]));
}

export function metaValue(db: Database.Database, t: string, key: string): string | undefined {
  return (db.prepare(`SELECT value FROM ${t}_meta WHERE key = ?`).get(key) as { value: string } | undefined)?.value;
}

export function setMeta(db: Database.Database, t: string, key: string, value: string): void {
  db.prepare(`INSERT INTO ${t}_meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value`).run(key, value);
}
