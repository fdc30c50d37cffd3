/**
 * Verified service-account tokens are cached in memory, yet a revocation through one runtime
 * holds on every runtime sharing the database before the revoking request returns: a token
 * hammered through another runtime is accepted up to the revoke and refused from then on. When
 * the notification channel is down, the cache is bypassed rather than trusted.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PgBus } from '../src/storage/postgres/pg-bus.js';
import { postgresTestDatabase, testDatabaseKinds, type TestDatabase } from './support/databases.js';
import { eventually } from './support/eventually.js';
import { call } from './support/http.js';
import { startRuntimeOn, type StartedRuntime } from './support/runtime.js';

const KEY = 'token-cache-test-security-key';

for (const kind of testDatabaseKinds) {
  describe.skipIf(!kind.available)(`token cache with shared revocation on ${kind.kind}`, () => {
    let database: TestDatabase;
    let a: StartedRuntime;
    let b: StartedRuntime;

    const mint = async (name: string): Promise<{ id: string; token: string }> => {
      const res = await call(a.url, 'POST', '/service-accounts', { token: KEY, body: { name, scopes: [{ scope: 'config:read' }] } });
      expect(res.status).toBe(201);
      return { id: res.body.id as string, token: res.body.token as string };
    };

    beforeAll(async () => {
      database = await kind.create();
      a = await startRuntimeOn(database, { env: { OS_SECURITY_KEY: KEY } });
      b = await startRuntimeOn(database, { env: { OS_SECURITY_KEY: KEY } });
    });
    afterAll(async () => {
      await b?.stop();
      await a?.stop();
      await database?.cleanup();
    });

    it('a token hammered through one runtime is refused by it from the moment a revoke through another returns', async () => {
      const { id, token } = await mint('hammered');
      expect((await call(b.url, 'GET', '/config', { token })).status).toBe(200);
      const results: { sentAt: number; status: number }[] = [];
      const state = { stop: false };
      const hammer = async () => {
        while (!state.stop) {
          const sentAt = performance.now();
          const res = await fetch(`${b.url}/config`, { headers: { authorization: `Bearer ${token}` } });
          await res.arrayBuffer();
          results.push({ sentAt, status: res.status });
        }
      };
      const workers = [hammer(), hammer(), hammer(), hammer()];
      await new Promise((r) => setTimeout(r, 300));
      const revoke = await call(a.url, 'DELETE', `/service-accounts/${id}`, { token: KEY });
      const revokedAt = performance.now();
      expect(revoke.status).toBe(204);
      await new Promise((r) => setTimeout(r, 300));
      state.stop = true;
      await Promise.all(workers);

      const before = results.filter((r) => r.sentAt < revokedAt);
      const after = results.filter((r) => r.sentAt > revokedAt);
      expect(before.length).toBeGreaterThan(10);
      expect(before.some((r) => r.status === 200)).toBe(true);
      expect(after.length).toBeGreaterThan(10);
      // Not one request sent after the revoke returned got in (refusals turn into 429s once the
      // failed-authentication limit for this address is reached).
      expect(after.filter((r) => r.status === 200)).toEqual([]);
      expect(after.every((r) => r.status === 401 || r.status === 429)).toBe(true);
    });
  });
}

// PostgreSQL only: SQLite's bus lives inside the process and cannot go down.
describe.skipIf(!postgresTestDatabase.available)('token cache on postgresql with the notification channel down', () => {
  let database: TestDatabase;
  let a: StartedRuntime;
  let b: StartedRuntime;

  const mint = async (name: string): Promise<{ id: string; token: string }> => {
    const res = await call(a.url, 'POST', '/service-accounts', { token: KEY, body: { name, scopes: [{ scope: 'config:read' }] } });
    expect(res.status).toBe(201);
    return { id: res.body.id as string, token: res.body.token as string };
  };

  beforeAll(async () => {
    database = await postgresTestDatabase.create();
    a = await startRuntimeOn(database, { env: { OS_SECURITY_KEY: KEY } });
    b = await startRuntimeOn(database, { env: { OS_SECURITY_KEY: KEY } });
  });
  afterAll(async () => {
    await b?.stop();
    await a?.stop();
    await database?.cleanup();
  });

it('with the notification channel down, tokens are checked in the database, not the cache', async () => {
    const { token } = await mint('unheard');
    expect((await call(b.url, 'GET', '/config', { token })).status).toBe(200);
    // Cut b's LISTEN connection: b can no longer hear revocations.
    const db = database.open();
    try {
      const bus = b.runtime.db.notifications() as PgBus;
      await db.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1', [bus.applicationName]);
      // A revocation nobody announces (as if the notification were lost), straight in the table.
      await db.execute("UPDATE svc_service_accounts SET revoked_at = 1 WHERE name = 'unheard'");
      expect([401, 429]).toContain((await call(b.url, 'GET', '/config', { token })).status);
    } finally {
      await db.close();
    }
    // The channel comes back by itself, and a fresh token is cached again.
    const fresh = await mint('after-reconnect');
    await eventually(async () => ((await call(b.url, 'GET', '/config', { token: fresh.token })).status === 200 ? true : undefined), 10_000);
  });
});
