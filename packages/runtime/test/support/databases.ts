/**
 * Test databases: a fresh SQLite file, and a fresh PostgreSQL schema when TEST_POSTGRES_URL
 * names a server (CI starts one with .ci/postgres.sh). With REQUIRE_POSTGRES=1 a missing server
 * is an error rather than a skipped suite, so CI cannot pass without running PostgreSQL.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { Db } from '../../src/storage/db.js';
import { PostgresDb } from '../../src/storage/postgres/postgres-db.js';
import { SqliteDb } from '../../src/storage/sqlite/sqlite-db.js';

export interface TestDatabase {
  /** A DATABASE_URL that opens this database (for servers started as subprocesses). */
  url: string;
  open(): Db;
  cleanup(): Promise<void>;
}

export interface TestDatabaseKind {
  kind: 'sqlite' | 'postgres';
  /** False when PostgreSQL is not configured on this machine (never in CI). */
  available: boolean;
  create(): Promise<TestDatabase>;
}

const postgresUrl = process.env.TEST_POSTGRES_URL;
if (!postgresUrl && process.env.REQUIRE_POSTGRES === '1') {
  throw new Error('REQUIRE_POSTGRES=1 but TEST_POSTGRES_URL is not set: run .ci/postgres.sh first');
}

export const sqliteTestDatabase: TestDatabaseKind = {
  kind: 'sqlite',
  available: true,
  async create() {
    const dir = mkdtempSync(join(tmpdir(), 'svc-sqlite-'));
    const path = join(dir, 'runtime.db');
    return {
      url: path,
      open: () => new SqliteDb({ path }),
      cleanup: async () => rmSync(dir, { recursive: true, force: true }),
    };
  },
};

export const postgresTestDatabase: TestDatabaseKind = {
  kind: 'postgres',
  available: Boolean(postgresUrl),
  async create() {
    if (!postgresUrl) throw new Error('TEST_POSTGRES_URL is not set');
    // One schema per test database keeps parallel test files apart on one server.
    const schema = `svc_t_${randomBytes(6).toString('hex')}`;
    const admin = new pg.Client({ connectionString: postgresUrl });
    await admin.connect();
    await admin.query(`CREATE SCHEMA ${schema}`);
    await admin.end();
    const url = new URL(postgresUrl);
    url.searchParams.set('options', `-c search_path=${schema}`);
    return {
      url: url.toString(),
      open: () => new PostgresDb({ url: url.toString() }),
      cleanup: async () => {
        const c = new pg.Client({ connectionString: postgresUrl });
        await c.connect();
        await c.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
        await c.end();
      },
    };
  },
};

export const testDatabaseKinds = [sqliteTestDatabase, postgresTestDatabase];
