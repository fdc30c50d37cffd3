import { describe, expect, it } from 'vitest';
import { describeDbContract } from '../db.contract.js';
import { PostgresDb } from './postgres-db.js';
import { postgresTestDatabase } from '../../../test/support/databases.js';

// Skipped only where no PostgreSQL is configured; CI sets REQUIRE_POSTGRES=1 so it always runs.
describeDbContract(postgresTestDatabase);

describe.skipIf(!postgresTestDatabase.available)('PostgresDb.session', () => {
  it('runs outside a transaction on one connection, and its settings and advisory locks stay in it', async () => {
    const database = await postgresTestDatabase.create();
    // One connection in the pool: the session's connection is the one later queries get.
    const db = new PostgresDb({ url: database.url, maxConnections: 1 });
    try {
      await db.execute('CREATE TABLE s (n INTEGER)');
      const inside = await db.session!(async (s) => {
        await s.execute('SET maintenance_work_mem = 123456');
        await s.query('SELECT pg_advisory_lock(42)');
        // Only outside a transaction block.
        await s.execute('CREATE INDEX CONCURRENTLY s_n ON s (n)');
        return (await s.query<{ v: string }>("SELECT current_setting('maintenance_work_mem') AS v"))[0]?.v;
      });
      expect(inside).toBe('123456kB');
      expect((await db.query<{ v: string }>("SELECT current_setting('maintenance_work_mem') AS v"))[0]?.v).not.toBe('123456kB');
      expect((await db.query<{ n: number }>("SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid()"))[0]?.n).toBe(0);
      expect((await db.query<{ valid: boolean }>("SELECT indisvalid AS valid FROM pg_index WHERE indexrelid = to_regclass('s_n')"))[0]?.valid).toBe(true);
    } finally {
      await db.close();
      await database.cleanup();
    }
  });
});
