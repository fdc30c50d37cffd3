/**
 * Service accounts end to end: minting rules, the token's lifecycle, listing, revocation that
 * takes effect on the next request (also on another runtime sharing the database), and PATs
 * in each auth mode.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mintToken } from '../src/auth/service-accounts/token.js';
import { OpenAIChatModel } from '../src/providers/openai/chat.js';
import { Runtime, type RunningRuntime } from '../src/runtime.js';
import type { RuntimeOptions } from '../src/runtime-options.js';
import { silentLogger } from '../src/util/logger.js';
import { testComponents } from './support/components.js';
import { testDatabaseKinds } from './support/databases.js';
import { startFakeLlm, type FakeLlm } from './support/fake-llm.js';
import { call } from './support/http.js';
import { sign, signingKey, type SigningKey } from './support/jwt.js';
import { startRuntime, type StartedRuntime } from './support/runtime.js';

let rsa: SigningKey;
let fake: FakeLlm;
let model: OpenAIChatModel;

beforeAll(async () => {
  rsa = await signingKey('RS256', 'k1');
  fake = await startFakeLlm();
  model = new OpenAIChatModel({ model: 'fake-model', baseURL: `${fake.url}/v1`, maxRetries: 0 });
});
afterAll(async () => {
  await fake?.close();
});

function options(): RuntimeOptions {
  const c = testComponents(model);
  return { agents: c.agents, teams: c.teams, workflows: c.workflows, authorization: true, authorization_config: { verification_keys: [rsa.publicPem] } };
}

const jwt = (scopes: string[], sub = 'admin-user') => sign(rsa, { claims: { scopes, sub } });

for (const kind of testDatabaseKinds) {
  describe.skipIf(!kind.available)(`service accounts on ${kind.kind}`, () => {
    let rt: StartedRuntime;
    let admin: string;
    let second: { runtime: Runtime; server: RunningRuntime } | undefined;

    beforeAll(async () => {
      rt = await startRuntime(kind, options());
      admin = await jwt(['agent_os:admin']);
    });
    afterAll(async () => {
      await second?.server.close();
      await rt?.stop();
    });

    const mint = (body: Record<string, unknown>, token = admin) => call(rt.url, 'POST', '/service-accounts', { token, body });

    it('mints a token with the default scopes, shown once', async () => {
      const res = await mint({ name: 'ci-bot' });
      expect(res.status).toBe(201);
      expect(Object.keys(res.body)).toEqual([
        'id', 'name', 'principal', 'user_id', 'token_prefix', 'scopes', 'created_at', 'expires_at', 'last_used_at', 'revoked_at', 'created_by', 'tenant_id', 'token',
      ]);
      expect(res.body).toMatchObject({
        name: 'ci-bot',
        principal: 'sa:ci-bot',
        user_id: 'admin-user',
        created_by: 'admin-user',
        scopes: ['agents:run', 'teams:run', 'workflows:run', 'sessions:read', 'config:read'],
        last_used_at: null,
        revoked_at: null,
        tenant_id: null,
      });
      expect(res.body.token).toMatch(/^svc_pat_[0-9A-Za-z]+$/);
      expect(res.body.token_prefix).toBe(res.body.token.slice(0, 16));
      expect(res.body.expires_at - res.body.created_at).toBe(90 * 86_400);

      const list = await call(rt.url, 'GET', '/service-accounts', { token: admin });
      const listed = list.body.data.find((a: any) => a.id === res.body.id);
      expect(listed).not.toHaveProperty('token');
      expect(listed).not.toHaveProperty('token_hash');
      expect(JSON.stringify(list.body)).not.toContain(res.body.token);
    });

    it('authenticates with the token, enforces its scopes and runs as sa:<name>', async () => {
      const { token } = (await mint({ name: 'runner' })).body;
      expect((await call(rt.url, 'GET', '/config', { token })).status).toBe(200);
      const listing = await call(rt.url, 'GET', '/agents', { token });
      expect(listing.status).toBe(403);
      expect(listing.body.detail).toBe('Insufficient permissions. Required scope(s): agents:read');
      const run = await call(rt.url, 'POST', '/agents/writer/runs', { token, body: { message: 'hi', stream: false, user_id: 'someone' } });
      expect(run.status).toBe(200);
      expect(run.body.user_id).toBe('sa:runner');
      expect((await call(rt.url, 'DELETE', '/sessions/x', { token })).status).toBe(403);
      // last_used_at is written off the request path; wait for it without timing assumptions.
      let used: number | null = null;
      for (let i = 0; i < 50 && used === null; i++) {
        const list = await call(rt.url, 'GET', '/service-accounts?limit=100', { token: admin });
        used = list.body.data.find((a: any) => a.name === 'runner').last_used_at;
        if (used === null) await new Promise((r) => setTimeout(r, 20));
      }
      expect(used).toBeGreaterThan(0);
    });

    it('validates requests in order: 422, 400 unknown, 400 privileged, 403 not held, 409 duplicate', async () => {
      expect((await mint({ name: 'Bad Name' })).status).toBe(422);
      expect((await mint({ name: 'x'.repeat(64) })).status).toBe(422);
      expect((await mint({ name: 'ok\n' })).status).toBe(422);
      expect((await mint({ name: 'strings', scopes: ['agents:run'] })).status).toBe(422);
      const deny = await mint({ name: 'deny', scopes: [{ scope: 'agents:run', effect: 'deny' }] });
      expect(deny.status).toBe(422);
      expect(deny.body.errors[0].msg).toBe("Token scopes are grants: effect must be 'allow' (got 'deny' for 'agents:run')");
      const unknown = await mint({ name: 'unknown', scopes: [{ scope: 'agents:fly' }, { scope: 'nope' }] });
      expect(unknown).toMatchObject({ status: 400, body: { detail: 'Invalid scope(s): agents:fly, nope' } });
      const privileged = await mint({ name: 'priv', scopes: [{ scope: 'sessions:delete' }, { scope: 'agents:run' }] });
      expect(privileged.status).toBe(400);
      expect(privileged.body.detail).toMatch(/^Privileged scope\(s\) require allow_privileged_scopes=true: sessions:delete\./);
      expect((await mint({ name: 'priv', scopes: [{ scope: 'sessions:delete' }], allow_privileged_scopes: true })).status).toBe(201);

      const limited = await jwt(['service_accounts:write', 'agents:run'], 'carol');
      const notHeld = await mint({ name: 'subset', scopes: [{ scope: 'agents:a1:run' }, { scope: 'config:read' }] }, limited);
      expect(notHeld).toMatchObject({ status: 403, body: { detail: 'Cannot grant scope(s) you do not hold: config:read' } });
      const subset = await mint({ name: 'subset', scopes: [{ scope: 'agents:a1:run' }] }, limited);
      expect(subset.body).toMatchObject({ user_id: 'carol', scopes: ['agents:a1:run'] });
      expect((await mint({ name: 'nope' }, await jwt(['agents:run']))).status).toBe(403);

      const duplicate = await mint({ name: 'subset', scopes: [] });
      expect(duplicate).toMatchObject({ status: 409, body: { error_code: 'CONFLICT', detail: "An active service account named 'subset' already exists. Revoke it first to rotate." } });
    });

    it('honours expiry options', async () => {
      const never = await mint({ name: 'forever', never_expires: true, expires_in_days: 5 });
      expect(never.body.expires_at).toBeNull();
      const short = await mint({ name: 'short', expires_in_days: 1 });
      expect(short.body.expires_at - short.body.created_at).toBe(86_400);
      expect((await mint({ name: 'long', expires_in_days: 3651 })).status).toBe(422);
      // Expire it in the database: the very next request fails.
      await rt.runtime.db.execute('UPDATE svc_service_accounts SET expires_at = $1 WHERE id = $2', [Math.floor(Date.now() / 1000) - 1, short.body.id]);
      const res = await call(rt.url, 'GET', '/config', { token: short.body.token });
      expect(res).toMatchObject({ status: 401, body: { detail: 'Invalid or expired service account token' } });
    });

    it('lists with paging, sorting and revoked accounts included by default', async () => {
      const first = await call(rt.url, 'GET', '/service-accounts?limit=2&page=1&sort_by=name&sort_order=asc', { token: admin });
      expect(first.status).toBe(200);
      expect(first.body.data).toHaveLength(2);
      const names = first.body.data.map((a: any) => a.name);
      expect(names).toEqual([...names].sort());
      expect(first.body.meta).toMatchObject({ page: 1, limit: 2, total_pages: Math.ceil(first.body.meta.total_count / 2) });
      expect(first.body.meta.search_time_ms).toEqual(expect.any(Number));
      const bogusSort = await call(rt.url, 'GET', '/service-accounts?sort_by=token_hash', { token: admin });
      expect(bogusSort.status).toBe(200);
      expect((await call(rt.url, 'GET', '/service-accounts?limit=0', { token: admin })).status).toBe(422);
    });

    it('revokes idempotently; the token fails on its next request, on every runtime sharing the database', async () => {
      const created = (await mint({ name: 'shared' })).body;
      second = { runtime: new Runtime({ ...options(), env: {}, db: rt.database.open() }, { logger: silentLogger }), server: undefined as never };
      second.server = await second.runtime.serve({ port: 0, host: '127.0.0.1' });
      const other = second.server.url;
      expect((await call(other, 'GET', '/config', { token: created.token })).status).toBe(200);
      expect((await call(rt.url, 'GET', '/config', { token: created.token })).status).toBe(200);

      expect((await call(rt.url, 'DELETE', `/service-accounts/${created.id}`, { token: admin })).status).toBe(204);
      expect((await call(other, 'GET', '/config', { token: created.token })).status).toBe(401);
      expect((await call(rt.url, 'GET', '/config', { token: created.token })).status).toBe(401);
      const again = await call(other, 'DELETE', `/service-accounts/${created.id}`, { token: admin });
      expect(again.status).toBe(204);
      const missing = await call(rt.url, 'DELETE', '/service-accounts/no-such-id', { token: admin });
      expect(missing).toMatchObject({ status: 404, body: { detail: "Service account 'no-such-id' not found" } });

      const active = await call(rt.url, 'GET', '/service-accounts?include_revoked=false&limit=100', { token: admin });
      expect(active.body.data.map((a: any) => a.id)).not.toContain(created.id);
      const all = await call(rt.url, 'GET', '/service-accounts?limit=100', { token: admin });
      expect(all.body.data.find((a: any) => a.id === created.id).revoked_at).toBeGreaterThan(0);
      // The name is free again once revoked.
      expect((await mint({ name: 'shared' })).status).toBe(201);
    });

    it('needs the service_accounts scopes, which a default token lacks', async () => {
      const { token, id } = (await mint({ name: 'plain' })).body;
      expect((await call(rt.url, 'GET', '/service-accounts', { token })).status).toBe(403);
      expect((await call(rt.url, 'DELETE', `/service-accounts/${id}`, { token })).status).toBe(403);
      expect((await mint({ name: 'child' }, token)).status).toBe(403);
    });
  });

  describe.skipIf(!kind.available)(`service-account tokens in other modes on ${kind.kind}`, () => {
    it('answers 503, not 500 or 401, while the database cannot be asked about a token', async () => {
      const database = await kind.create();
      const inner = database.open();
      let failing = false;
      // The real store, made to fail on demand the way a lost connection does.
      const db = new Proxy(inner, {
        get(target, prop, receiver) {
          const value = Reflect.get(target, prop, receiver) as unknown;
          if (prop === 'query' && typeof value === 'function') {
            return (...args: unknown[]) => (failing ? Promise.reject(new Error('connection lost')) : (value as (...a: unknown[]) => unknown).apply(target, args));
          }
          return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
        },
      });
      const runtime = new Runtime({ env: {}, ...options(), db }, { logger: silentLogger });
      const server = await runtime.serve({ port: 0, host: '127.0.0.1' });
      try {
        const minted = await call(server.url, 'POST', '/service-accounts', { token: await jwt(['agent_os:admin']), body: { name: 'flaky' } });
        expect(minted.status).toBe(201);
        failing = true;
        const res = await call(server.url, 'GET', '/config', { token: minted.body.token });
        expect(res.status).toBe(503);
        expect(res.body).toEqual({ detail: 'Authentication is temporarily unavailable', error_code: 'SERVICE_UNAVAILABLE' });
        failing = false;
        expect((await call(server.url, 'GET', '/config', { token: minted.body.token })).status).toBe(200);
      } finally {
        await server.close();
        await database.cleanup();
      }
    });

    it('security key: the key mints anything, and tokens work next to it', async () => {
      const rt = await startRuntime(kind, { env: { OS_SECURITY_KEY: 'key-key-key-key-key' } });
      try {
        const res = await call(rt.url, 'POST', '/service-accounts', {
          token: 'key-key-key-key-key',
          body: { name: 'ops', scopes: [{ scope: 'agent_os:admin' }], allow_privileged_scopes: true },
        });
        expect(res.status).toBe(201);
        expect(res.body).toMatchObject({ user_id: null, created_by: null });
        expect((await call(rt.url, 'GET', '/service-accounts', { token: res.body.token })).status).toBe(200);
      } finally {
        await rt.stop();
      }
    });

    it('open runtime: anonymous minting is refused, a valid token is still held to its scopes', async () => {
      const rt = await startRuntime(kind, {});
      try {
        const anon = await call(rt.url, 'POST', '/service-accounts', { body: { name: 'anon' } });
        expect(anon).toMatchObject({ status: 401, body: { detail: 'Authentication is required to mint a service account.' } });
        const minted = mintToken();
        await rt.runtime.serviceAccountStore.create({
          name: 'reader', userId: null, createdBy: null, tokenHash: minted.hash, tokenPrefix: minted.prefix,
          scopes: ['config:read'], createdAt: Math.floor(Date.now() / 1000), expiresAt: null,
        });
        expect((await call(rt.url, 'GET', '/config', { token: minted.token })).status).toBe(200);
        expect((await call(rt.url, 'GET', '/sessions', { token: minted.token })).status).toBe(403);
        // A stale or unknown token on an open runtime is ignored, not refused.
        expect((await call(rt.url, 'GET', '/sessions', { token: mintToken().token })).status).toBe(200);
      } finally {
        await rt.stop();
      }
    });
  });
}
