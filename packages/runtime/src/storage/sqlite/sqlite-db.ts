/**
 * @module storage/sqlite/sqlite-db
 * The embedded default store: one SQLite file through better-sqlite3, in WAL mode.
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import type { Db, MigrationReport, SqlClient, SqlValue } from '../db.js';
import { MIGRATIONS } from '../migrations.js';
import { applyPending, readApplied } from '../migrator.js';
import { checkParams, closedError, storageError } from '../sql-errors.js';
import type { NotificationBus } from '../notifications.js';
import { localBus } from './local-bus.js';

export interface SqliteDbOptions {
  /** File path, or `:memory:`. Parent directories are created. */
  path: string;
  /** Reported in `/config`; defaults to `sqlite`. */
  id?: string;
}

/**
 * Rewrites `$n` placeholders to `?` and orders the values to match, so SQL is written once in
 * PostgreSQL style (a value may be referenced twice, as `$1 ... $1`).
 */
export function toSqlite(sql: string, params: readonly SqlValue[]): { sql: string; values: unknown[] } {
  const translated = translate(sql);
  return { sql: translated.sql, values: bind(translated, params) };
}

interface Translated {
  sql: string;
  /** For each `?` in order, the index of the parameter it takes. */
  order: number[];
}

// The same few dozen statements run over and over: translate each text once.
const translations = new Map<string, Translated>();
const MAX_CACHED = 500;

function translate(sql: string): Translated {
  let t = translations.get(sql);
  if (!t) {
    const order: number[] = [];
    const text = sql.replace(/\$(\d+)/g, (_, n: string) => {
      order.push(Number(n) - 1);
      return '?';
    });
    t = { sql: text, order };
    if (translations.size >= MAX_CACHED) translations.clear();
    translations.set(sql, t);
  }
  return t;
}

function bind(t: Translated, params: readonly SqlValue[]): unknown[] {
  return t.order.map((index) => {
    if (index < 0 || index >= params.length) throw new RangeError(`SQL parameter $${index + 1} has no value`);
    const p = params[index];
    // SQLite has no boolean type; 0/1 is what its integer affinity stores.
    return typeof p === 'boolean' ? (p ? 1 : 0) : p;
  });
}

/**
 * better-sqlite3 blocks the thread while it waits for SQLite's file lock. If one connection
 * held a transaction open across an `await` while another connection in this process waited
 * on the lock, the event loop would stop and the first could never commit. So every connection
 * to one file in this process shares one queue.
 */
interface FileQueue {
  tail: Promise<void>;
}
const queues = new Map<string, FileQueue>();

function queueFor(path: string): FileQueue {
  if (path === ':memory:') return { tail: Promise.resolve() };
  let queue = queues.get(path);
  if (!queue) {
    queue = { tail: Promise.resolve() };
    queues.set(path, queue);
  }
  return queue;
}

export class SqliteDb implements Db {
  readonly kind = 'sqlite' as const;
  readonly id: string;
  readonly path: string;
  private db: Database.Database | undefined;
  /** A transaction keeps every other caller on this file out until it ends. */
  private readonly queue: FileQueue;

  constructor(options: SqliteDbOptions) {
    this.id = options.id ?? 'sqlite';
    this.path = options.path;
    if (options.path !== ':memory:') mkdirSync(dirname(options.path), { recursive: true });
    const db = new Database(options.path);
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
    // Another process (a second runtime, the CLI in tests) may hold the write lock briefly.
    db.pragma('busy_timeout = 5000');
    this.db = db;
    this.queue = queueFor(options.path);
  }

  private handle(): Database.Database {
    if (!this.db) throw closedError();
    return this.db;
  }

  /** Preparing costs more than running a small statement, so each text is prepared once. */
  private readonly statements = new Map<string, Database.Statement>();

  private statement(sql: string, params: readonly SqlValue[]): { stmt: Database.Statement; values: unknown[] } {
    // Asked first, so a closed database fails the same way whether or not the text is cached.
    const db = this.handle();
    checkParams(params);
    const translated = translate(sql);
    let stmt = this.statements.get(translated.sql);
    if (!stmt) {
      stmt = db.prepare(translated.sql);
      if (this.statements.size >= MAX_CACHED) this.statements.clear();
      this.statements.set(translated.sql, stmt);
    }
    return { stmt, values: bind(translated, params) };
  }

  private direct: SqlClient = {
    query: async <Row>(sql: string, params: readonly SqlValue[] = []) => {
      try {
        const { stmt, values } = this.statement(sql, params);
        return stmt.all(...values) as Row[];
      } catch (e) {
        throw storageError(e);
      }
    },
    execute: async (sql: string, params: readonly SqlValue[] = []) => {
      try {
        const { stmt, values } = this.statement(sql, params);
        if (stmt.reader) {
          stmt.all(...values);
          return 0;
        }
        return stmt.run(...values).changes;
      } catch (e) {
        throw storageError(e);
      }
    },
  };

  /** Waits until no transaction on this file is open; the caller then runs synchronously. */
  private async idle(): Promise<void> {
    let tail: Promise<void>;
    do {
      tail = this.queue.tail;
      await tail;
    } while (tail !== this.queue.tail);
  }

  async query<Row = Record<string, unknown>>(sql: string, params?: readonly SqlValue[]): Promise<Row[]> {
    await this.idle();
    return this.direct.query<Row>(sql, params);
  }

  async execute(sql: string, params?: readonly SqlValue[]): Promise<number> {
    await this.idle();
    return this.direct.execute(sql, params);
  }

  async transaction<T>(fn: (tx: SqlClient) => Promise<T>, mode: 'DEFERRED' | 'IMMEDIATE' = 'IMMEDIATE'): Promise<T> {
    let release!: () => void;
    const previous = this.queue.tail;
    this.queue.tail = new Promise((resolve) => (release = resolve));
    await previous;
    try {
      const db = this.handle();
      try {
        db.exec(`BEGIN ${mode}`);
      } catch (e) {
        throw storageError(e);
      }
      let result: T;
      try {
        result = await fn(this.direct);
      } catch (e) {
        // The caller's own error passes through unchanged; only the transaction is undone.
        if (db.inTransaction) db.exec('ROLLBACK');
        throw e;
      }
      try {
        db.exec('COMMIT');
      } catch (e) {
        if (db.inTransaction) db.exec('ROLLBACK');
        throw storageError(e);
      }
      return result;
    } finally {
      release();
    }
  }

  async migrate(): Promise<MigrationReport> {
    // IMMEDIATE takes SQLite's write lock up front: a second process waits (busy_timeout), then
    // sees the ledger the first one wrote.
    return this.transaction((tx) => applyPending('sqlite', tx, MIGRATIONS), 'IMMEDIATE');
  }

  async appliedMigrations(): Promise<number[]> {
    return readApplied(this);
  }

  async ping(): Promise<void> {
    await this.query('SELECT 1');
  }

  private bus: NotificationBus | undefined;

  notifications(): NotificationBus {
    this.bus ??= localBus(this.path);
    return this.bus;
  }

  async close(): Promise<void> {
    await this.bus?.close();
    await this.idle();
    const db = this.db;
    this.db = undefined;
    this.statements.clear();
    db?.close();
  }
}
