/**
 * `svc whoami` against a REAL runtime on SQLite with tenancy (`tenant_claim: org_id`) and RS256
 * JWTs: the built CLI prints who the runtime takes the credential to be, the tenant it is held to
 * and whether it administers it, as text and as one JSON document (GET /auth/whoami's answer); a
 * global admin has no tenant; a rejected credential is exit 1; a bad command line exit 2.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sign, signingKey, type SigningKey } from '../../runtime/test/support/jwt.js';
import { ensureBuilt, jsonOf, runCli, sandbox, type Sandbox } from './support/cli.js';
import { api, startSqliteRuntime, type TestRuntime } from './support/runtime.js';

type Json = Record<string, any>;

describe('svc whoami', () => {
  let rt: TestRuntime;
  let box: Sandbox;
  let key: SigningKey;
  const run = (token: string, args: string[] = []) => runCli(['whoami', ...args, '--url', rt.url], { ...box, env: { SVC_ADMIN_TOKEN: token } });

  beforeAll(async () => {
    await ensureBuilt();
    key = await signingKey('RS256', 'cli-whoami');
    rt = await startSqliteRuntime({ authorization: true, authorization_config: { verification_keys: [key.publicPem], tenant_claim: 'org_id' } });
    box = sandbox();
  });
  afterAll(async () => {
    await rt?.stop();
    box?.cleanup();
  });

  it('prints the user, the tenant and the scopes, and the same as JSON', async () => {
    const token = await sign(key, { claims: { sub: 'alice', org_id: 'acme', scopes: ['agents:read'] } });
    const text = await run(token);
    expect(text.stderr).toBe('');
    expect(text.code).toBe(0);
    expect(text.stdout.trimEnd().split('\n')).toEqual(['Caller:  user alice', 'Tenant:  acme', 'Scopes:  agents:read']);
    const json = await run(token, ['--json']);
    expect(json.code).toBe(0);
    const doc = jsonOf(json) as Json;
    expect(doc).toEqual((await api(rt.url, 'GET', '/auth/whoami', { token })).body);
    expect(doc).toMatchObject({ user_id: 'alice', tenant: 'acme', tenant_admin: false });
  });

  it("says when the caller administers its tenant, and that a global admin has none", async () => {
    const admin = await run(await sign(key, { claims: { sub: 'ops', org_id: 'globex', scopes: ['tenant:admin'] } }));
    expect(admin.code).toBe(0);
    expect(admin.stdout).toContain('Tenant:  globex (tenant admin)');
    const root = await run(await sign(key, { claims: { sub: 'root', scopes: ['agent_os:admin'] } }));
    expect(root.code).toBe(0);
    expect(root.stdout).toContain('Tenant:  none (every tenant, or tenancy off)');
  });

  it('a rejected credential exits 1; a bad command line exits 2 before any request', async () => {
    const rejected = await run('not-a-token');
    expect(rejected.code).toBe(1);
    expect(rejected.stderr).toMatch(/rejected the credential/);
    const bad = await runCli(['whoami', '--no-such-flag'], { ...box, env: {} });
    expect(bad.code).toBe(2);
  });
});
