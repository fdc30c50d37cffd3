/**
 * The behaviour every Db must have. Run by sqlite-db.test.ts and postgres-db.test.ts against
 * real databases, so the two stores cannot drift apart.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { TestDatabaseKind, TestDatabase } from '../../test/support/databases.js';
import { RuntimeError } from '../errors.js';
import type { Db } from './db.js';
import { MIGRATIONS } from './migrations.js';
import { isUniqueViolation } from './sql-errors.js';

async function waitFor(check: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 10));
  }
}

export function describeDbContract(kind: TestDatabaseKind): void {
  describe.skipIf(!kind.available)(`Db contract: ${kind.kind}`, () => {
    let database: TestDatabase;
    let db: Db;

    beforeEach(async () => {
      database = await kind.create();
      db = database.open();
      await db.migrate();
    });

    afterEach(async () => {
      await db.close();
      await database.cleanup();
    });

    it('reports its kind', () => {
      expect(db.kind).toBe(kind.kind);
    });

    it('applies every migration once and records it', async () => {
      const versions = MIGRATIONS.map((m) => m.version);
      expect(await db.appliedMigrations()).toEqual(versions);
      const again = await db.migrate();
      expect(again.applied).toEqual([]);
      expect(again.current).toBe(Math.max(...versions));
    });

    it('lets concurrent openers migrate one database without applying a step twice', async () => {
      const others = [database.open(), database.open(), database.open()];
      try {
        const reports = await Promise.all(others.map((o) => o.migrate()));
        expect(reports.flatMap((r) => r.applied)).toEqual([]);
        const rows = await db.query<{ n: number }>('SELECT COUNT(*) AS n FROM svc_migrations');
        expect(Number(rows[0]?.n)).toBe(MIGRATIONS.length);
      } finally {
        await Promise.all(others.map((o) => o.close()));
      }
    });

    it('binds positional parameters and round-trips values', async () => {
      await db.execute('INSERT INTO svc_metadata (key, value, updated_at) VALUES ($1, $2, $3)', [
        'greeting',
        'héllo "wörld" \' ; DROP TABLE x',
        1_900_000_000_123,
      ]);
      const rows = await db.query<{ key: string; value: string; updated_at: number }>(
        'SELECT key, value, updated_at FROM svc_metadata WHERE key = $1',
        ['greeting'],
      );
      expect(rows).toEqual([{ key: 'greeting', value: 'héllo "wörld" \' ; DROP TABLE x', updated_at: 1_900_000_000_123 }]);
      expect(typeof rows[0]?.updated_at).toBe('number');
    });

    it('reports how many rows a statement changed', async () => {
      for (const key of ['a', 'b', 'c']) {
        await db.execute('INSERT INTO svc_metadata (key, value, updated_at) VALUES ($1, $2, $3)', [key, 'v', 1]);
      }
      expect(await db.execute('UPDATE svc_metadata SET value = $1 WHERE key <> $2', ['w', 'a'])).toBe(2);
      expect(await db.execute('DELETE FROM svc_metadata WHERE key = $1', ['missing'])).toBe(0);
    });

    it('commits a transaction as a whole', async () => {
      const result = await db.transaction(async (tx) => {
        await tx.execute('INSERT INTO svc_metadata (key, value, updated_at) VALUES ($1, $2, $3)', ['t1', 'x', 1]);
        await tx.execute('INSERT INTO svc_metadata (key, value, updated_at) VALUES ($1, $2, $3)', ['t2', 'y', 1]);
        return 'done';
      });
      expect(result).toBe('done');
      const rows = await db.query('SELECT key FROM svc_metadata ORDER BY key');
      expect(rows).toEqual([{ key: 't1' }, { key: 't2' }]);
    });

    it('rolls back a failed transaction and passes the error through unchanged', async () => {
      const boom = new Error('boom');
      await expect(
        db.transaction(async (tx) => {
          await tx.execute('INSERT INTO svc_metadata (key, value, updated_at) VALUES ($1, $2, $3)', ['r', 'x', 1]);
          throw boom;
        }),
      ).rejects.toBe(boom);
      expect(await db.query('SELECT key FROM svc_metadata')).toEqual([]);
    });

    it('keeps statements outside a transaction from seeing or joining it', async () => {
      let insideDone!: () => void;
      const gate = new Promise<void>((r) => (insideDone = r));
      const tx = db.transaction(async (t) => {
        await t.execute('INSERT INTO svc_metadata (key, value, updated_at) VALUES ($1, $2, $3)', ['in', 'x', 1]);
        await gate;
        throw new Error('abort');
      });
      const outside = db.execute('INSERT INTO svc_metadata (key, value, updated_at) VALUES ($1, $2, $3)', ['out', 'y', 1]);
      insideDone();
      await expect(tx).rejects.toThrow('abort');
      await outside;
      expect(await db.query('SELECT key FROM svc_metadata ORDER BY key')).toEqual([{ key: 'out' }]);
    });

    it('maps a unique violation to a recognisable error without leaking SQL', async () => {
      await db.execute('INSERT INTO svc_metadata (key, value, updated_at) VALUES ($1, $2, $3)', ['dup', 'x', 1]);
      const error = await db
        .execute('INSERT INTO svc_metadata (key, value, updated_at) VALUES ($1, $2, $3)', ['dup', 'y', 1])
        .catch((e: unknown) => e);
      expect(RuntimeError.isInstance(error)).toBe(true);
      expect(isUniqueViolation(error)).toBe(true);
      expect((error as RuntimeError).message).not.toMatch(/svc_metadata|INSERT/);
    });

    it('rejects invalid SQL with an internal error, not a driver error', async () => {
      const error = await db.query('SELECT * FROM no_such_table').catch((e: unknown) => e);
      expect(RuntimeError.isInstance(error)).toBe(true);
      expect((error as RuntimeError).code).toBe('INTERNAL_SERVER_ERROR');
    });

    it('answers ping, and refuses work once closed', async () => {
      await db.ping();
      const other = database.open();
      await other.close();
      const error = await other.query('SELECT 1').catch((e: unknown) => e);
      expect((error as RuntimeError).code).toBe('SERVICE_UNAVAILABLE');
      await other.close(); // closing twice is harmless
    });

    it('delivers notifications to every connection of the database, and stops after close', async () => {
      const other = database.open();
      try {
        const received: string[] = [];
        const bus = other.notifications();
        const off = bus.subscribe('contract_test', (payload) => received.push(payload));
        await waitFor(() => bus.connected);
        await db.notifications().publish('contract_test', 'hello');
        await waitFor(() => received.length === 1);
        expect(received).toEqual(['hello']);
        off();
        await db.notifications().publish('contract_test', 'unheard');
        await new Promise((r) => setTimeout(r, 50));
        expect(received).toEqual(['hello']);
        expect(() => bus.subscribe('Bad Channel', () => {})).toThrow(/Invalid notification channel/);
      } finally {
        await other.close();
      }
    });

    it('keeps data across reopening', async () => {
      await db.execute('INSERT INTO svc_metadata (key, value, updated_at) VALUES ($1, $2, $3)', ['kept', 'v', 1]);
      await db.close();
      db = database.open();
      expect(await db.query('SELECT value FROM svc_metadata WHERE key = $1', ['kept'])).toEqual([{ value: 'v' }]);
    });
  });
}
