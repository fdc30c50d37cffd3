/**
 * The 429 after repeated failed authentications holds across runtimes sharing a database: a
 * client alternating between two runtimes meets the limit as if it talked to one.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabaseKinds, type TestDatabase } from './support/databases.js';
import { call } from './support/http.js';
import { startRuntimeOn, type StartedRuntime } from './support/runtime.js';

const KEY = 'failure-limit-test-security-key';

for (const kind of testDatabaseKinds) {
  describe.skipIf(!kind.available)(`failed-authentication limit across runtimes on ${kind.kind}`, () => {
    let database: TestDatabase;
    let a: StartedRuntime;
    let b: StartedRuntime;

    beforeAll(async () => {
      database = await kind.create();
      const env = { OS_SECURITY_KEY: KEY, AUTH_FAILURE_LIMIT: '5', AUTH_FAILURE_WINDOW_SECONDS: '60' };
      a = await startRuntimeOn(database, { env });
      b = await startRuntimeOn(database, { env });
    });
    afterAll(async () => {
      await b?.stop();
      await a?.stop();
      await database?.cleanup();
    });

    it('counts failures at every runtime together; the right key still gets in', async () => {
      const statuses: number[] = [];
      for (let i = 0; i < 6; i++) statuses.push((await call(i % 2 === 0 ? a.url : b.url, 'GET', '/config', { token: `wrong-${i}` })).status);
      // Each runtime saw three failures, under the limit of five on its own.
      expect(statuses).toEqual([401, 401, 401, 401, 401, 429]);
      const limited = await call(a.url, 'GET', '/config', { token: 'wrong-again' });
      expect(limited.status).toBe(429);
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
      expect((await call(b.url, 'GET', '/config', { token: KEY })).status).toBe(200);
    });
  });
}
