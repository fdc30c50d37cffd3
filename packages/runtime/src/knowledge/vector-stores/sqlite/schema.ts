/**
 * @module knowledge/vector-stores/sqlite/schema
 * The SQLite store's tables, created or brought up to date when it opens.
 *
 * A chunk table (vectors as float32 BLOBs, metadata as JSON), an FTS5 index, `{t}_meta`, the
 * reindex staging table, and what later versions added beside them (owner columns, versions,
 * the IVF tables); then what a previous run left behind is finished (the candidate index
 * filled, abandoned versions removed).
 */
import type Database from 'better-sqlite3';
import { recordedDimensions } from '../embedder-record.js';
import type { SqliteStoreContext } from './context.js';
import { createIvfTables } from './ivf-tables.js';
import { backfillBitIndex, createBitIndex, createStagingTables, hasBitIndex, hasVersions, purgeAbandoned } from './staging.js';

function createChunkTables(db: Database.Database, t: string): void {
  db.exec(`
        CREATE TABLE IF NOT EXISTS ${t}_chunks (
          rowid INTEGER PRIMARY KEY,
          content_id TEXT NOT NULL,
          chunk_id TEXT NOT NULL,
          name TEXT,
          content TEXT NOT NULL,
          meta_data TEXT NOT NULL,
          filters TEXT NOT NULL,
          embedding BLOB,
          created_at INTEGER NOT NULL,
          knowledge_id TEXT,
          user_id TEXT,
          tenant_id TEXT,
          version INTEGER NOT NULL DEFAULT 0,
          UNIQUE (content_id, chunk_id, version)
        );
        CREATE VIRTUAL TABLE IF NOT EXISTS ${t}_fts USING fts5(content, tokenize = 'porter unicode61');
        CREATE TABLE IF NOT EXISTS ${t}_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
        CREATE TABLE IF NOT EXISTS ${t}_reindex (content_id TEXT NOT NULL, chunk_id TEXT NOT NULL, embedding BLOB NOT NULL, PRIMARY KEY (content_id, chunk_id));
      `);
}

/** Tables made before chunks carried their owner (and tenant) get the columns; old rows stay shared (NULL) and of no tenant. */
function addOwnerColumns(db: Database.Database, table: string): void {
  const columns = new Set((db.prepare(`SELECT name FROM pragma_table_info(?)`).all(table) as { name: string }[]).map((c) => c.name));
  for (const column of ['knowledge_id', 'user_id', 'tenant_id']) {
    if (!columns.has(column)) db.exec(`ALTER TABLE ${table} ADD COLUMN ${column} TEXT`);
  }
}

/** Creates or updates the tables and records in `ctx` what the file has (versions, the candidate index). */
export async function prepareTables(ctx: SqliteStoreContext): Promise<void> {
  const t = ctx.t;
  ctx.run((db) => createChunkTables(db, t));
  // IMMEDIATE: another process opening the same file adds them once, not twice.
  ctx.run((db) => db.transaction(() => addOwnerColumns(db, `${t}_chunks`)).immediate());
  ctx.run((db) => {
    createStagingTables(db, t);
    ctx.staged = hasVersions(db, t);
    if (ctx.staged) db.exec(`CREATE INDEX IF NOT EXISTS ${t}_chunks_version ON ${t}_chunks (version)`);
    // Vectors stored before the candidate index existed get one (the dimension is recorded).
    if (!ctx.candidates) {
      // An index nobody maintains would go stale: drop it; turning the option on rebuilds it.
      db.exec(`DROP TABLE IF EXISTS ${t}_vec_bits`);
    } else {
      const stored = db.prepare(`SELECT value FROM ${t}_meta WHERE key = 'embedder'`).get() as { value: string } | undefined;
      const dims = recordedDimensions(stored?.value);
      if (dims !== undefined && !hasBitIndex(db, t)) createBitIndex(db, t, dims);
    }
    ctx.bits = hasBitIndex(db, t);
    createIvfTables(db, t);
  });
  if (ctx.bits) await ctx.run((db) => backfillBitIndex(db, t));
  if (ctx.staged) await ctx.run((db) => purgeAbandoned(db, t, { unlisted: (rowid) => ctx.ivf.unlisted(rowid) }));
}
