/**
 * Shutdown has one bound, and what is still running then is recorded, not lost; behind a
 * trusted proxy the failed-authentication limiter counts the client named in X-Forwarded-For,
 * and nobody else's; JWTs without `exp` can be refused.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ExecutionContext, ExecutionResult, Runnable } from '../src/run/execution.js';
import { Runtime } from '../src/runtime.js';
import { SHUTDOWN_MESSAGE } from '../src/sessions/run-lease-store.js';
import { testDatabaseKinds, type TestDatabase } from './support/databases.js';
import { call } from './support/http.js';
import { sign, signingKey, type SigningKey } from './support/jwt.js';
import { startRuntimeOn, type StartedRuntime } from './support/runtime.js';

type Json = Record<string, any>;

/** An agent whose tool ignores cancellation: it never ends once started. */
const stubborn: Runnable = {
  id: 'stubborn',
  name: 'Stubborn',
  kind: 'agent',
  execute(context: ExecutionContext): Promise<ExecutionResult> {
    context.emit('RunContent', { content: 'working on it' });
    context.recordContent('working on it');
    return new Promise(() => {});
  },
};

for (const kind of testDatabaseKinds) {
  describe.skipIf(!kind.available)(`shutdown bound and trusted proxies on ${kind.kind}`, () => {
    let database: TestDatabase;
    const started: StartedRuntime[] = [];

    beforeAll(async () => {
      database = await kind.create();
    });
    afterAll(async () => {
      for (const rt of started) await rt.stop().catch(() => undefined);
      await database?.cleanup();
    });

    it('stops within shutdown_timeout_seconds although a run ignores cancellation, and records that run as interrupted', async () => {
      const rt = await startRuntimeOn(database, { agents: [stubborn], shutdown_timeout_seconds: 1 });
      const res = await fetch(`${rt.url}/agents/stubborn/runs`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ message: 'go' }) });
      const first = new TextDecoder().decode((await res.body!.getReader().read()).value);
      const runId = /"run_id":"([^"]+)"/.exec(first)![1]!;
      const stopping = Date.now();
      await rt.server.close();
      expect(Date.now() - stopping).toBeLessThan(3000);

      const after = await startRuntimeOn(database, { agents: [stubborn] });
      started.push(after);
      const run = (await call(after.url, 'GET', `/agents/stubborn/runs/${runId}`)).body as Json;
      expect(run).toMatchObject({ status: 'ERROR', error: SHUTDOWN_MESSAGE });
      // Its trace too: the run started less than a second before the shutdown, so its RUNNING
      // summary was still in the trace writer's buffer when the run was recorded as interrupted.
      const trace = (await call(after.url, 'GET', `/traces/${runId}`)).body as Json;
      expect(trace).toMatchObject({ status: 'ERROR', error: SHUTDOWN_MESSAGE, duration_ms: trace.end_ms - trace.start_ms });
      expect(trace.spans.map((s: Json) => [s.kind, s.status, s.attributes.error])).toEqual([['run', 'error', SHUTDOWN_MESSAGE]]);
    });

    it('behind a trusted proxy, failures count per forwarded client; spoofed entries to the left are ignored', async () => {
      const rt = await startRuntimeOn(database, { env: { OS_SECURITY_KEY: 'proxy-test-key-0123456789', AUTH_FAILURE_LIMIT: '2', TRUSTED_PROXIES: '127.0.0.1, ::1' } });
      started.push(rt);
      const attempt = (forwardedFor: string) =>
        fetch(`${rt.url}/config`, { headers: { authorization: 'Bearer wrong', 'x-forwarded-for': forwardedFor } }).then((r) => r.status);
      expect([await attempt('203.0.113.7'), await attempt('203.0.113.7'), await attempt('203.0.113.7')]).toEqual([401, 401, 429]);
      // Another client behind the same proxy is not punished for that one.
      expect(await attempt('198.51.100.9')).toBe(401);
      // The client prepending a fake address does not escape its own bucket.
      expect(await attempt('10.9.9.9, 203.0.113.7')).toBe(429);
    });

    it('without trusted proxies, X-Forwarded-For is not believed', async () => {
      const rt = await startRuntimeOn(database, { env: { OS_SECURITY_KEY: 'proxy-test-key-0123456789', AUTH_FAILURE_LIMIT: '2' } });
      started.push(rt);
      const statuses: number[] = [];
      for (const ip of ['192.0.2.1', '192.0.2.2', '192.0.2.3']) {
        statuses.push((await fetch(`${rt.url}/config`, { headers: { authorization: 'Bearer wrong', 'x-forwarded-for': ip } })).status);
      }
      expect(statuses).toEqual([401, 401, 429]);
    });
  });
}

describe('settings that fail the start', () => {
  it('refuses a trusted proxy that is not an address or CIDR, naming the setting', () => {
    expect(() => new Runtime({ env: { TRUSTED_PROXIES: '10.0.0.0/8, proxy.local' } })).toThrow(/TRUSTED_PROXIES: "proxy.local" is not an IP address or CIDR/);
    expect(() => new Runtime({ env: {}, trusted_proxies: ['10.0.0.0/99'] })).toThrow(/trusted_proxies: "10.0.0.0\/99"/);
  });
});

describe('JWTs without exp', () => {
  let key: SigningKey;
  let strict: StartedRuntime;
  let lenient: StartedRuntime;
  let database: TestDatabase;

  beforeAll(async () => {
    key = await signingKey('RS256', 'k1');
    database = await testDatabaseKinds[0]!.create();
    strict = await startRuntimeOn(database, { env: { JWT_VERIFICATION_KEY: key.publicPem, JWT_REQUIRE_EXP: 'true' } });
    lenient = await startRuntimeOn(database, { env: { JWT_VERIFICATION_KEY: key.publicPem } });
  });
  afterAll(async () => {
    await strict?.stop();
    await lenient?.stop();
    await database?.cleanup();
  });

  it('are refused with a clear 401 when JWT_REQUIRE_EXP is on, accepted otherwise', async () => {
    const forever = await sign(key, { expiresIn: null });
    const refused = await call(strict.url, 'GET', '/config', { token: forever });
    expect(refused.status).toBe(401);
    expect(refused.body).toEqual({ detail: 'Invalid token: it has no expiry (exp claim), which this runtime requires', error_code: 'UNAUTHENTICATED' });
    expect((await call(strict.url, 'GET', '/config', { token: await sign(key) })).status).toBe(200);
    expect((await call(lenient.url, 'GET', '/config', { token: forever })).status).toBe(200);
  });
});
