/**
 * @module storage/postgres/postgres-db
 * The scale-out store: PostgreSQL through a `pg` pool. Several runtimes may share one database.
 */
import pg from 'pg';
import type { Db, MigrationReport, SqlClient, SqlValue } from '../db.js';
import { MIGRATIONS } from '../migrations.js';
import { applyPending, readApplied } from '../migrator.js';
import type { NotificationBus } from '../notifications.js';
import { checkParams, closedError, storageError } from '../sql-errors.js';
import { PgBus } from './pg-bus.js';

export interface PostgresDbOptions {
  /** `postgres://user:pass@host:port/db` */
  url: string;
  /** Reported in `/config`; defaults to `postgres`. */
  id?: string;
  /** Pool size; defaults to 10. */
  maxConnections?: number;
}

/** Any constant works as long as every runtime uses the same one. */
const MIGRATION_LOCK_KEY = 7_777_001;

// BIGINT (epoch seconds, counts) comes back as a string by default; our values fit in a double.
const types = {
  getTypeParser(oid: number, format?: string) {
    if (oid === pg.types.builtins.INT8) return (value: string) => Number(value);
    return pg.types.getTypeParser(oid, format as 'text');
  },
};

function clientFor(run: (sql: string, params: unknown[]) => Promise<pg.QueryResult>): SqlClient {
  return {
    async query<Row>(sql: string, params: readonly SqlValue[] = []) {
      checkParams(params);
      try {
        return (await run(sql, [...params])).rows as Row[];
      } catch (e) {
        throw storageError(e);
      }
    },
    async execute(sql: string, params: readonly SqlValue[] = []) {
      checkParams(params);
      try {
        return (await run(sql, [...params])).rowCount ?? 0;
      } catch (e) {
        throw storageError(e);
      }
    },
  };
}

export class PostgresDb implements Db {
  readonly kind = 'postgres' as const;
  readonly id: string;
  private pool: pg.Pool | undefined;
  private readonly client: SqlClient;
  private readonly url: string;
  private bus: PgBus | undefined;

  constructor(options: PostgresDbOptions) {
    this.id = options.id ?? 'postgres';
    this.url = options.url;
    const pool = new pg.Pool({
      connectionString: options.url,
      max: options.maxConnections ?? 10,
      connectionTimeoutMillis: 10_000,
      types,
    });
    // An idle client losing its connection must not crash the process; the pool replaces it.
    pool.on('error', () => {});
    this.pool = pool;
    this.client = clientFor((sql, params) => this.handle().query(sql, params));
  }

  private handle(): pg.Pool {
    if (!this.pool) throw closedError();
    return this.pool;
  }

  query<Row = Record<string, unknown>>(sql: string, params?: readonly SqlValue[]): Promise<Row[]> {
    return this.client.query<Row>(sql, params);
  }

  execute(sql: string, params?: readonly SqlValue[]): Promise<number> {
    return this.client.execute(sql, params);
  }

  async transaction<T>(fn: (tx: SqlClient) => Promise<T>): Promise<T> {
    let conn: pg.PoolClient;
    try {
      conn = await this.handle().connect();
    } catch (e) {
      throw storageError(e);
    }
    const tx = clientFor((sql, params) => conn.query(sql, params));
    let broken = false;
    try {
      await tx.execute('BEGIN');
      let result: T;
      try {
        result = await fn(tx);
      } catch (e) {
        await conn.query('ROLLBACK').catch(() => (broken = true));
        throw e;
      }
      await tx.execute('COMMIT');
      return result;
    } finally {
      // A connection whose ROLLBACK failed is in an unknown state: drop it instead of reusing it.
      conn.release(broken);
    }
  }

  async session<T>(fn: (client: SqlClient) => Promise<T>): Promise<T> {
    let conn: pg.PoolClient;
    try {
      conn = await this.handle().connect();
    } catch (e) {
      throw storageError(e);
    }
    let broken = false;
    try {
      return await fn(clientFor((sql, params) => conn.query(sql, params)));
    } finally {
      // Settings and advisory locks of the session must not follow the connection back into the
      // pool (DISCARD ALL: RESET ALL, pg_advisory_unlock_all and the rest).
      await conn.query('DISCARD ALL').catch(() => (broken = true));
      conn.release(broken);
    }
  }

  async migrate(): Promise<MigrationReport> {
    return this.transaction(async (tx) => {
      // Held until COMMIT: concurrent runtimes queue here and then find the work done.
      await tx.execute('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK_KEY]);
      return applyPending('postgres', tx, MIGRATIONS);
    });
  }

  async appliedMigrations(): Promise<number[]> {
    return readApplied(this);
  }

  async ping(): Promise<void> {
    await this.query('SELECT 1');
  }

  notifications(): NotificationBus {
    this.bus ??= new PgBus(this.url, (sql, params) => this.query(sql, params));
    return this.bus;
  }

  async close(): Promise<void> {
    await this.bus?.close();
    const pool = this.pool;
    this.pool = undefined;
    await pool?.end();
  }
}
