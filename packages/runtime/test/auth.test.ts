/**
 * Authorization end to end: the three modes, JWT verification with real RSA/EC keys (code
 * options and a JWKS file combined), scopes with per-resource narrowing and listing filters,
 * hostile input, and the failed-attempt limiter. Every route is checked against the scope map.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultScopeMap } from '../src/auth/scope-map.js';
import { OpenAIChatModel } from '../src/providers/openai/chat.js';
import { Runtime } from '../src/runtime.js';
import { silentLogger } from '../src/util/logger.js';
import { testComponents } from './support/components.js';
import { testDatabaseKinds } from './support/databases.js';
import { startFakeLlm, type FakeLlm } from './support/fake-llm.js';
import { call } from './support/http.js';
import { sign, signHs256, signingKey, unsignedToken, writeJwks, type SigningKey } from './support/jwt.js';
import { startRuntime, type StartedRuntime } from './support/runtime.js';

// `/ui` is the control panel's static files: they hold no data, and every API call they make is authorized.
const PUBLIC_PATHS = ['/', '/health', '/info', '/docs', '/redoc', '/openapi.json', '/docs/oauth2-redirect', '/ui', '/ui/*'];
const AUDIENCE = 'runtime-under-test';

let rsa: SigningKey;
let jwksA: SigningKey;
let jwksB: SigningKey;
let ec: SigningKey;
let fake: FakeLlm;
let model: OpenAIChatModel;

beforeAll(async () => {
  [rsa, jwksA, jwksB, ec] = await Promise.all([
    signingKey('RS256', 'static'),
    signingKey('RS256', 'jwks-a'),
    signingKey('RS256', 'jwks-b'),
    signingKey('ES256', 'ec'),
  ]);
  fake = await startFakeLlm();
  model = new OpenAIChatModel({ model: 'fake-model', baseURL: `${fake.url}/v1`, maxRetries: 0 });
});
afterAll(async () => {
  await fake?.close();
});

function tok(scopes: string[] | string, extra: { sub?: string; expiresIn?: number } = {}): Promise<string> {
  return sign(rsa, { claims: { scopes, aud: AUDIENCE, sub: extra.sub ?? 'alice' }, expiresIn: extra.expiresIn });
}

function components() {
  const c = testComponents(model);
  return { agents: c.agents, teams: c.teams, workflows: c.workflows };
}

/** The same signature over a payload granting more: what a forger would try. */
async function tampered(token: string): Promise<string> {
  const [header, payload, signature] = token.split('.');
  const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString('utf8')) as Record<string, unknown>;
  claims.scopes = ['agent_os:admin'];
  return `${header}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.${signature}`;
}

describe('configuration', () => {
  it('refuses authorization without a key source, naming the settings', () => {
    expect(() => new Runtime({ authorization: true, env: {} }, { logger: silentLogger })).toThrow(/JWT_VERIFICATION_KEY.*JWT_JWKS_FILE/);
  });
  it('refuses a key that cannot verify the configured algorithm', () => {
    expect(() => new Runtime({ authorization: true, authorization_config: { verification_keys: [rsa.publicPem], algorithm: 'HS256' }, env: {} }, { logger: silentLogger })).toThrow(
      /needs a shared secret/,
    );
  });

  it('decides every route: public, or mapped to exactly the scopes it declares', () => {
    const runtime = new Runtime(
      {
        ...components(),
        env: { JWT_VERIFICATION_KEY: 'x'.repeat(32) },
        authorization_config: { algorithm: 'HS256' },
        mcp_server: { oauth: { authorization_servers: ['https://login.example.com'] } },
      },
      { logger: silentLogger },
    );
    const unmapped: string[] = [];
    for (const route of runtime.routes) {
      const key = `${route.method} ${route.path}`;
      if (route.access.kind === 'public') {
        const allowed = PUBLIC_PATHS.includes(route.path) || /^\/(docs|redoc)\//.test(route.path) || route.path.startsWith('/.well-known/');
        if (!allowed) unmapped.push(`${key} is public but not on the public list`);
        continue;
      }
      if (route.access.kind !== 'scoped') {
        unmapped.push(`${key} has access ${route.access.kind}`);
        continue;
      }
      const mapped = defaultScopeMap.required(route.method, route.path);
      if (mapped === undefined) unmapped.push(`${key} is not in the scope map`);
      else if (JSON.stringify(mapped) !== JSON.stringify(route.access.scopes)) unmapped.push(`${key} declares ${route.access.scopes} but the map says ${mapped}`);
    }
    expect(unmapped).toEqual([]);
    expect(runtime.routes.length).toBeGreaterThan(30);
    void runtime.close();
  });
});

for (const kind of testDatabaseKinds) {
  describe.skipIf(!kind.available)(`JWT mode on ${kind.kind}`, () => {
    let rt: StartedRuntime;

    beforeAll(async () => {
      rt = await startRuntime(kind, {
        ...components(),
        authorization: true,
        authorization_config: { verification_keys: [rsa.publicPem], audience: AUDIENCE },
        env: { JWT_JWKS_FILE: writeJwks([jwksA, jwksB]) },
      });
    });
    afterAll(async () => {
      await rt?.stop();
    });

    it('reports jwt in /info and keeps public routes open', async () => {
      expect((await call(rt.url, 'GET', '/info')).body.auth_mode).toBe('jwt');
      for (const path of PUBLIC_PATHS) expect((await call(rt.url, 'GET', path)).status, path).toBe(200);
    });

    it('answers 401 "Authorization header missing" without credentials', async () => {
      for (const [method, path] of [['GET', '/config'], ['GET', '/agents'], ['GET', '/sessions'], ['POST', '/agents/writer/runs'], ['GET', '/service-accounts']]) {
        const res = await call(rt.url, method!, path!);
        expect(res.status, path).toBe(401);
        expect(res.body).toEqual({ detail: 'Authorization header missing', error_code: 'UNAUTHENTICATED' });
      }
    });

    it('accepts tokens from the code keys and from every key of the JWKS file', async () => {
      for (const key of [rsa, jwksA, jwksB]) {
        const token = await sign(key, { claims: { scopes: ['config:read'], aud: AUDIENCE } });
        expect((await call(rt.url, 'GET', '/config', { token })).status, key.kid).toBe(200);
      }
    });

    it('answers 403 naming the missing scope', async () => {
      const res = await call(rt.url, 'GET', '/config', { token: await tok(['agents:read']) });
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ detail: 'Insufficient permissions. Required scope(s): config:read', error_code: 'FORBIDDEN' });
      expect((await call(rt.url, 'DELETE', '/sessions/s1', { token: await tok(['sessions:read']) })).status).toBe(403);
    });

    it('filters listings by per-resource read scopes', async () => {
      const one = await tok(['agents:weather:read']);
      expect((await call(rt.url, 'GET', '/agents', { token: one })).body.map((a: any) => a.id)).toEqual(['weather']);
      expect((await call(rt.url, 'GET', '/agents/weather', { token: one })).status).toBe(200);
      const other = await call(rt.url, 'GET', '/agents/writer', { token: one });
      expect(other.status).toBe(403);
      expect(other.body.detail).toBe('Insufficient permissions. Required scope(s): agents:writer:read');
      expect((await call(rt.url, 'GET', '/agents', { token: await tok(['agents:*:read']) })).body).toHaveLength(2);
      expect((await call(rt.url, 'GET', '/agents', { token: await tok(['agents:read']) })).body).toHaveLength(2);
      // Run scopes do not let a caller list.
      expect((await call(rt.url, 'GET', '/agents', { token: await tok(['agents:weather:run']) })).status).toBe(403);
      expect((await call(rt.url, 'GET', '/teams', { token: one })).status).toBe(403);
    });

    it('narrows run scopes to one agent and runs as the token subject', async () => {
      const token = await tok(['agents:writer:run', 'agents:writer:read'], { sub: 'bob' });
      const run = await call(rt.url, 'POST', '/agents/writer/runs', { token, body: { message: 'hi', stream: false, user_id: 'mallory' } });
      expect(run.status).toBe(200);
      expect(run.body).toMatchObject({ status: 'COMPLETED', user_id: 'bob' });
      expect((await call(rt.url, 'POST', '/agents/weather/runs', { token, body: { message: 'hi', stream: false } })).status).toBe(403);
      expect((await call(rt.url, 'GET', `/agents/writer/runs/${run.body.run_id}`, { token })).status).toBe(200);
      const wildcard = await tok(['agents:*:run']);
      expect((await call(rt.url, 'POST', '/agents/weather/runs/r/cancel', { token: wildcard })).status).toBe(404);
      expect((await call(rt.url, 'POST', '/teams/router/runs/r/cancel', { token: wildcard })).status).toBe(403);
    });

    it('lets the admin scope through everything', async () => {
      const admin = await tok(['agent_os:admin']);
      for (const [method, path] of [['GET', '/config'], ['GET', '/sessions'], ['GET', '/workflows'], ['GET', '/service-accounts']]) {
        expect((await call(rt.url, method!, path!, { token: admin })).status, path).toBe(200);
      }
    });

    it('checks authentication before validating the request', async () => {
      expect((await call(rt.url, 'POST', '/service-accounts', { body: { name: 'NOT A SLUG' } })).status).toBe(401);
    });

    it('answers every kind of bad credential with 401, never 500', async () => {
      const cases: Record<string, string> = {
        'empty bearer': 'Bearer ',
        'only spaces': 'Bearer    ',
        'basic auth': 'Basic YWxpY2U6c2VjcmV0',
        garbage: 'Bearer !!!not-a-token!!!',
        'three dots': 'Bearer a.b.c',
        'bad base64': 'Bearer eyJhbGciOiJSUzI1NiJ9.@@@.xxx',
        'alg none': `Bearer ${unsignedToken({ sub: 'x', scopes: ['agent_os:admin'], aud: AUDIENCE })}`,
        'HS256 signed with the public key': `Bearer ${await signHs256(rsa.publicPem, { claims: { scopes: ['agent_os:admin'], aud: AUDIENCE } })}`,
        'wrong algorithm (ES256)': `Bearer ${await sign(ec, { claims: { aud: AUDIENCE } })}`,
        expired: `Bearer ${await tok(['config:read'], { expiresIn: -120 })}`,
        'not yet valid': `Bearer ${await sign(rsa, { claims: { aud: AUDIENCE, scopes: ['config:read'] }, notBefore: 600 })}`,
        'wrong audience': `Bearer ${await sign(rsa, { claims: { aud: 'someone-else', scopes: ['config:read'] } })}`,
        'no audience': `Bearer ${await sign(rsa, { claims: { scopes: ['config:read'] } })}`,
        'reserved subject': `Bearer ${await tok(['config:read'], { sub: 'sa:ci' })}`,
        oversized: `Bearer ${'a'.repeat(14_000)}.${'b'.repeat(10)}.c`,
        'unknown kid': `Bearer ${await sign(jwksA, { claims: { aud: AUDIENCE }, kid: 'nope' })}`,
        'tampered payload': `Bearer ${await tampered(await tok(['config:read']))}`,
        'unknown service-account token': 'Bearer svc_pat_0000000000000000000000000000000000000000000',
      };
      const details: Record<string, string> = {};
      for (const [label, authorization] of Object.entries(cases)) {
        const res = await call(rt.url, 'GET', '/config', { authorization });
        expect(res.status, label).toBe(401);
        expect(res.body.error_code, label).toBe('UNAUTHENTICATED');
        details[label] = res.body.detail;
      }
      expect(details['empty bearer']).toBe('Authorization header missing');
      expect(details.expired).toBe('Token has expired');
      expect(details['wrong audience']).toBe('Invalid token audience - token not valid for this runtime');
      expect(details['reserved subject']).toBe('Invalid token subject');
      expect(details['unknown service-account token']).toBe('Invalid or expired service account token');
      expect(details['alg none']).toMatch(/^Invalid token: /);
      expect(details['tampered payload']).toMatch(/^Invalid token: /);
    });
  });

  describe.skipIf(!kind.available)(`security-key mode on ${kind.kind}`, () => {
    let rt: StartedRuntime;
    const KEY = 'the-security-key-0123456789';
    beforeAll(async () => {
      rt = await startRuntime(kind, { ...components(), env: { OS_SECURITY_KEY: KEY } });
    });
    afterAll(async () => {
      await rt?.stop();
    });

    it('grants everything to the key and refuses anything else', async () => {
      expect((await call(rt.url, 'GET', '/info')).body.auth_mode).toBe('security_key');
      const missing = await call(rt.url, 'GET', '/config');
      expect(missing.status).toBe(401);
      expect(missing.body).toEqual({ detail: 'Authorization header required', error_code: 'UNAUTHENTICATED' });
      const wrong = await call(rt.url, 'GET', '/config', { token: `${KEY}x` });
      expect(wrong.body).toEqual({ detail: 'Invalid authentication token', error_code: 'UNAUTHENTICATED' });
      expect((await call(rt.url, 'GET', '/config', { token: await sign(rsa) })).status).toBe(401);
      for (const [method, path] of [['GET', '/config'], ['GET', '/agents'], ['GET', '/sessions'], ['GET', '/service-accounts']]) {
        expect((await call(rt.url, method!, path!, { token: KEY })).status, path).toBe(200);
      }
      // A bare key without the Bearer scheme is accepted too.
      expect((await call(rt.url, 'GET', '/config', { authorization: KEY })).status).toBe(200);
      expect((await call(rt.url, 'DELETE', '/sessions/none', { token: KEY })).status).toBe(404);
    });
  });

  describe.skipIf(!kind.available)(`open mode and the failure limiter on ${kind.kind}`, () => {
    it('leaves an unconfigured runtime open', async () => {
      const rt = await startRuntime(kind, components());
      try {
        expect((await call(rt.url, 'GET', '/info')).body.auth_mode).toBe('none');
        expect((await call(rt.url, 'GET', '/config')).status).toBe(200);
        expect((await call(rt.url, 'GET', '/config', { token: 'anything' })).status).toBe(200);
      } finally {
        await rt.stop();
      }
    });

    it('answers 429 with Retry-After after repeated failures, but still lets valid credentials in', async () => {
      const rt = await startRuntime(kind, {
        authorization: true,
        authorization_config: { verification_keys: [rsa.publicPem], failed_auth_limit: { max_failures: 3, window_seconds: 60 } },
      });
      try {
        for (let i = 0; i < 3; i++) expect((await call(rt.url, 'GET', '/config', { token: 'bad' })).status).toBe(401);
        const limited = await call(rt.url, 'GET', '/config', { token: 'bad' });
        expect(limited.status).toBe(429);
        expect(limited.body).toEqual({ detail: 'Too many failed authentication attempts', error_code: 'RATE_LIMITED' });
        expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
        expect((await call(rt.url, 'GET', '/config', { token: await sign(rsa, { claims: { scopes: ['config:read'] } }) })).status).toBe(200);
        // A request with no credential at all is not a guess.
        expect((await call(rt.url, 'GET', '/config')).status).toBe(401);
      } finally {
        await rt.stop();
      }
    });
  });
}
