/**
 * @module storage/db
 * The one storage interface. SQLite (embedded default) and PostgreSQL (scale-out) implement
 * it; everything above storage talks only to this.
 */

import type { NotificationBus } from './notifications.js';

export type DbKind = 'sqlite' | 'postgres';

/** A value that can be bound to a statement parameter. */
export type SqlValue = string | number | bigint | boolean | null | Uint8Array;

/**
 * Runs SQL. Statements use PostgreSQL-style positional parameters (`$1`, `$2`); the SQLite
 * implementation rewrites them, so domain stores write their SQL once.
 */
export interface SqlClient {
  /** Rows of a SELECT (or of a statement with RETURNING). */
  query<Row = Record<string, unknown>>(sql: string, params?: readonly SqlValue[]): Promise<Row[]>;
  /** A statement without a result set; resolves to the number of rows it changed. */
  execute(sql: string, params?: readonly SqlValue[]): Promise<number>;
}

/**
 * A migration: one forward step. `sql` is PostgreSQL DDL that storage/ddl.ts turns into SQLite's;
 * a step needing what that translation cannot express (pgvector, full-text search) gives
 * `sqlite` and `postgres` texts instead.
 */
export type Migration = MigrationStep & ({ sql: string; sqlite?: never; postgres?: never } | { sql?: never; sqlite: string; postgres: string });

interface MigrationStep {
  /** Increasing integer; applied in order, each exactly once. */
  version: number;
  name: string;
}

export interface Db extends SqlClient {
  /** Stable id reported in `/config` (`os_database`, `databases`). */
  readonly id: string;
  readonly kind: DbKind;
  /**
   * Runs `fn` in one transaction: all its statements commit together or none do. The client
   * passed to `fn` must be used for statements that belong to the transaction.
   */
  transaction<T>(fn: (tx: SqlClient) => Promise<T>): Promise<T>;
  /**
   * Runs `fn` on one connection of its own, outside any transaction (PostgreSQL only): for
   * statements that cannot run in one (`CREATE INDEX CONCURRENTLY`) and for session settings
   * they need (`SET maintenance_work_mem`), discarded (with its advisory locks) before the
   * connection goes back to the pool.
   */
  session?<T>(fn: (client: SqlClient) => Promise<T>): Promise<T>;
  /** Applies pending migrations; safe to call from several processes at once. */
  migrate(): Promise<MigrationReport>;
  /** Versions applied so far, ascending. */
  appliedMigrations(): Promise<number[]>;
  /** Cheap round trip used by health checks. */
  ping(): Promise<void>;
  /** Messages to every runtime sharing this database (created on first use; closed with it). */
  notifications(): NotificationBus;
  /** Releases the connection(s); further calls reject with SERVICE_UNAVAILABLE. */
  close(): Promise<void>;
}

export interface MigrationReport {
  applied: number[];
  current: number;
}
