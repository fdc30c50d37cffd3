/**
 * Every 401 carries a `WWW-Authenticate` challenge (RFC 6750 §3), in every auth mode, on REST
 * routes and on `/mcp`: a bare `Bearer realm="..."` when no credential was sent, and
 * `error="invalid_token"` with a reason (never the token) when one was refused. The
 * OAuth-protected MCP endpoint adds `resource_metadata` (RFC 9728). 429s are not challenges.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabaseKinds } from './support/databases.js';
import { call, type Reply } from './support/http.js';
import { sign, signingKey, type SigningKey } from './support/jwt.js';
import { startRuntime, type StartedRuntime } from './support/runtime.js';

const NAME = 'Support Desk';
const KEY = 'the-security-key-0123456789';
const agents = [{ id: 'helper', name: 'Helper' }];

/** One REST route and the MCP endpoint, each refusing the same way. */
const TARGETS = [
  ['GET', '/config'],
  ['POST', '/mcp'],
] as const;

const ping = { jsonrpc: '2.0', id: 0, method: 'ping' };
const request = (url: string, method: string, path: string, token?: string): Promise<Reply> =>
  call(url, method, path, { ...(token === undefined ? {} : { token }), ...(method === 'POST' ? { body: ping } : {}) });

const bare = `Bearer realm="${NAME}"`;
const invalid = (description: string) => `Bearer realm="${NAME}", error="invalid_token", error_description="${description}"`;

/** What a refusal looks like to a client; compared whole, so a challenge echoing the token fails too. */
const refusal = (res: Reply) => ({ status: res.status, challenge: res.headers.get('www-authenticate'), body: res.body as unknown });
/** REST and the non-OAuth `/mcp` keep the one error envelope. */
const refused = (challenge: string, detail: string) => ({ status: 401, challenge, body: { detail, error_code: 'UNAUTHENTICATED' } });

let rsa: SigningKey;
beforeAll(async () => {
  rsa = await signingKey('RS256', 'k1');
});

/** Mints a service-account token with `admin`, then revokes it. */
async function revokedToken(url: string, admin: string, name: string): Promise<string> {
  const minted = await call(url, 'POST', '/service-accounts', { token: admin, body: { name } });
  expect(minted.status).toBe(201);
  expect((await call(url, 'DELETE', `/service-accounts/${minted.body.id}`, { token: admin })).status).toBe(204);
  return minted.body.token as string;
}

for (const kind of testDatabaseKinds) {
  describe.skipIf(!kind.available)(`401 challenges in JWT mode on ${kind.kind}`, () => {
    let rt: StartedRuntime;
    beforeAll(async () => {
      rt = await startRuntime(kind, {
        name: NAME,
        agents,
        mcp_server: true,
        authorization: true,
        authorization_config: { verification_keys: [rsa.publicPem], failed_auth_limit: { max_failures: 1000, window_seconds: 60 } },
      });
    });
    afterAll(async () => {
      await rt?.stop();
    });

    it('sends a bare challenge when no credential was sent', async () => {
      for (const [method, path] of TARGETS) {
        expect(refusal(await request(rt.url, method, path))).toEqual(refused(bare, 'Authorization header missing'));
        // `Bearer` with nothing after it is no credential either.
        const empty = await call(rt.url, method, path, { authorization: 'Bearer ', ...(method === 'POST' ? { body: ping } : {}) });
        expect(empty.headers.get('www-authenticate'), path).toBe(bare);
      }
    });

    it('says invalid_token for a malformed token', async () => {
      const token = 'not-a-jwt-but-a-secret-looking-string';
      const detail = 'Invalid token: not a signed JWT (expected three base64url segments)';
      for (const [method, path] of TARGETS) expect(refusal(await request(rt.url, method, path, token))).toEqual(refused(invalid(detail), detail));
    });

    it('says invalid_token for an expired JWT', async () => {
      const token = await sign(rsa, { claims: { scopes: ['agent_os:admin'] }, expiresIn: -3600 });
      for (const [method, path] of TARGETS) {
        expect(refusal(await request(rt.url, method, path, token))).toEqual(refused(invalid('Token has expired'), 'Token has expired'));
      }
    });

    it('says invalid_token for a revoked service-account token', async () => {
      const token = await revokedToken(rt.url, await sign(rsa, { claims: { scopes: ['agent_os:admin'] } }), 'revoked-in-jwt-mode');
      const detail = 'Invalid or expired service account token';
      for (const [method, path] of TARGETS) expect(refusal(await request(rt.url, method, path, token))).toEqual(refused(invalid(detail), detail));
    });

    it('keeps the challenge off 403s', async () => {
      const res = await call(rt.url, 'GET', '/config', { token: await sign(rsa, { claims: { scopes: [] } }) });
      expect(res.status).toBe(403);
      expect(res.headers.get('www-authenticate')).toBeNull();
    });
  });

  describe.skipIf(!kind.available)(`401 challenges with the security key on ${kind.kind}`, () => {
    let rt: StartedRuntime;
    beforeAll(async () => {
      rt = await startRuntime(kind, { name: NAME, agents, mcp_server: true, env: { OS_SECURITY_KEY: KEY } });
    });
    afterAll(async () => {
      await rt?.stop();
    });

    it('sends a bare challenge without a credential and invalid_token for a wrong key or a revoked token', async () => {
      const revoked = await revokedToken(rt.url, KEY, 'revoked-in-key-mode');
      for (const [method, path] of TARGETS) {
        expect(refusal(await request(rt.url, method, path))).toEqual(refused(bare, 'Authorization header required'));
        const wrong = `${KEY}-wrong`;
        expect(refusal(await request(rt.url, method, path, wrong))).toEqual(refused(invalid('Invalid authentication token'), 'Invalid authentication token'));
        const detail = 'Invalid or expired service account token';
        expect(refusal(await request(rt.url, method, path, revoked))).toEqual(refused(invalid(detail), detail));
      }
    });
  });

  describe.skipIf(!kind.available)(`401 challenges on an open runtime on ${kind.kind}`, () => {
    it('challenges the one route that needs an identity (minting a service account)', async () => {
      const rt = await startRuntime(kind, { agents });
      try {
        const detail = 'Authentication is required to mint a service account.';
        const anonymous = await call(rt.url, 'POST', '/service-accounts', { body: { name: 'x' } });
        expect(refusal(anonymous)).toEqual(refused('Bearer realm="Runtime"', detail));
        // An open runtime treats a token it does not know as no identity, but the client did send one.
        const stale = await call(rt.url, 'POST', '/service-accounts', { token: 'svc_pat_stale', body: { name: 'x' } });
        expect(refusal(stale)).toEqual(refused(`Bearer realm="Runtime", error="invalid_token", error_description="${detail}"`, detail));
      } finally {
        await rt.stop();
      }
    });
  });

  describe.skipIf(!kind.available)(`401 challenges on OAuth-protected MCP on ${kind.kind}`, () => {
    let rt: StartedRuntime;
    let metadata: string;
    beforeAll(async () => {
      rt = await startRuntime(kind, {
        name: NAME,
        agents,
        mcp_server: { oauth: { authorization_servers: ['https://login.example.com'] } },
        authorization_config: { verification_keys: [rsa.publicPem] },
      });
      metadata = `resource_metadata="${rt.url}/.well-known/oauth-protected-resource/mcp"`;
    });
    afterAll(async () => {
      await rt?.stop();
    });

    it('points a client without a token at the metadata, without claiming its token is invalid', async () => {
      expect(refusal(await request(rt.url, 'POST', '/mcp'))).toEqual({
        status: 401,
        challenge: `${bare}, ${metadata}`,
        body: { error_description: 'Authorization header missing' },
      });
    });

    it('says invalid_token, with the metadata, for a malformed or expired token', async () => {
      const expired = await sign(rsa, { expiresIn: -3600 });
      for (const [token, detail] of [
        ['bad', 'Invalid token: not a signed JWT (expected three base64url segments)'],
        [expired, 'Token has expired'],
      ] as const) {
        expect(refusal(await request(rt.url, 'POST', '/mcp', token))).toEqual({
          status: 401,
          challenge: `${invalid(detail)}, ${metadata}`,
          body: { error: 'invalid_token', error_description: detail },
        });
      }
    });

    it('keeps REST challenges free of the MCP metadata', async () => {
      expect(refusal(await request(rt.url, 'GET', '/config'))).toEqual(refused(bare, 'Authorization header missing'));
    });
  });

  describe.skipIf(!kind.available)(`too many failures on ${kind.kind}`, () => {
    it('answers 429 with Retry-After, not a challenge', async () => {
      const limit = { failed_auth_limit: { max_failures: 2, window_seconds: 60 } };
      const rt = await startRuntime(kind, { agents, env: { OS_SECURITY_KEY: KEY }, authorization_config: limit });
      try {
        expect((await request(rt.url, 'GET', '/config', 'wrong-key')).status).toBe(401);
        expect((await request(rt.url, 'GET', '/config', 'wrong-key')).status).toBe(401);
        const limited = await request(rt.url, 'GET', '/config', 'wrong-key');
        expect(limited.status).toBe(429);
        expect(limited.headers.get('retry-after')).toMatch(/^\d+$/);
        expect(limited.headers.get('www-authenticate')).toBeNull();
      } finally {
        await rt.stop();
      }
    });
  });
}
