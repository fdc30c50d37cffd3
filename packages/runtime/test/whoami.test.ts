/**
 * `GET /auth/whoami`: a client learns who it is and which scopes it is granted, by the rule the
 * routes apply, so the control panel can hide what a token may not do.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sqliteTestDatabase } from './support/databases.js';
import { call } from './support/http.js';
import { startRuntime, type StartedRuntime } from './support/runtime.js';

const KEY = 'whoami-test-security-key-0123456789';

describe('GET /auth/whoami', () => {
  let open: StartedRuntime;
  let secured: StartedRuntime;
  beforeAll(async () => {
    [open, secured] = await Promise.all([startRuntime(sqliteTestDatabase), startRuntime(sqliteTestDatabase, { env: { OS_SECURITY_KEY: KEY } })]);
  });
  afterAll(async () => {
    await open?.stop();
    await secured?.stop();
  });

  it('answers an anonymous caller of an open runtime with every grant, scopes not enforced', async () => {
    const r = await call(open.url, 'GET', '/auth/whoami');
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ auth_mode: 'none', kind: 'anonymous', user_id: null, scopes: [], scopes_enforced: false });
    expect(r.body.granted).toContain('service_accounts:write');
  });

  it('needs a credential on a secured runtime, and grants the key everything', async () => {
    expect((await call(secured.url, 'GET', '/auth/whoami')).status).toBe(401);
    const r = await call(secured.url, 'GET', '/auth/whoami', { token: KEY });
    expect(r.body).toMatchObject({ auth_mode: 'security_key', kind: 'security_key', scopes_enforced: false });
    expect(r.body.granted).toContain('knowledge:delete');
  });

  it("reports a token's own scopes and only the global grants they make", async () => {
    const minted = await call(
      secured.url,
      'POST',
      '/service-accounts',
      { token: KEY, body: { name: 'reader', scopes: [{ scope: 'knowledge:read', effect: 'allow' }, { scope: 'agents:helper:run', effect: 'allow' }] } },
    );
    expect(minted.status).toBe(201);
    const r = await call(secured.url, 'GET', '/auth/whoami', { token: minted.body.token });
    expect(r.body).toEqual({
      auth_mode: 'security_key',
      kind: 'service_account',
      user_id: 'sa:reader',
      service_account: 'reader',
      scopes: ['knowledge:read', 'agents:helper:run'],
      scopes_enforced: true,
      // Tenancy is off: no tenant to name.
      tenant: null,
      tenant_admin: false,
      granted: ['knowledge:read'],
    });
  });
});
