/**
 * @module knowledge/vector-stores/sqlite/connection
 * The SQLite store's own connection: opened with its pragmas and sqlite-vec loaded.
 *
 * The store owns its connection because it must load the sqlite-vec extension into it. All
 * statements are synchronous, and no transaction spans an `await`. Give it a file of its own
 * rather than the runtime's database file: the runtime's connection may hold a transaction
 * across awaits, and this connection's synchronous busy-wait for the lock would then stall the
 * event loop until the busy timeout.
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import * as sqliteVec from 'sqlite-vec';

/** How much of the file SQLite maps into memory (virtual address space, not RAM). */
export const MMAP_BYTES = 1 << 30;

/** Opens `path` (or `:memory:`), creating its parent directories. */
export function openConnection(path: string): Database.Database {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  // As the runtime's database: a commit does not wait for fsync (the WAL is synced at
  // checkpoints). Without this the level depended on the file: FULL on the connection that
  // created it, NORMAL (better-sqlite3's WAL default) on every later one. A published version
  // is made durable on its own (writes.ts).
  db.pragma('synchronous = NORMAL');
  db.pragma('busy_timeout = 5000');
  // Reads through a memory map rather than read() calls: halved the exact scan (221 -> 103 ms)
  // and the IVF list scan at 100k chunks. Address space only; the OS page cache holds the data.
  db.pragma(`mmap_size = ${MMAP_BYTES}`);
  sqliteVec.load(db);
  return db;
}

/** Runs `fn` with the connection's `synchronous` level set to `level`, then restores it. */
export function withSynchronous<T>(db: Database.Database, level: 'FULL' | 'NORMAL', fn: () => T): T {
  const before = db.pragma('synchronous', { simple: true }) as number;
  db.pragma(`synchronous = ${level}`);
  try {
    return fn();
  } finally {
    db.pragma(`synchronous = ${before}`);
  }
}
