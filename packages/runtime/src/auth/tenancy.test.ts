import { describe, expect, it } from 'vitest';
import { readSettings } from '../settings/runtime.js';
import { ANONYMOUS, SECURITY_KEY_PRINCIPAL, type Principal } from './principal.js';
import { isTenantAdmin, tenantOfClaims, tenantScope } from './tenancy.js';
import { scopedUserId } from './user-scope.js';

const ON = { claim: 'org_id', adminScope: 'agent_os:admin', tenantAdminScope: 'tenant:admin' };
const OFF = { ...ON, claim: undefined };
const jwt = (scopes: string[], tenantId?: string): Principal => ({ kind: 'jwt', userId: 'alice', scopes, enforceScopes: true, ...(tenantId ? { tenantId } : {}) });
const sa = (scopes: string[], tenantId?: string): Principal => ({ kind: 'service_account', userId: 'sa:bot', scopes, enforceScopes: true, ...(tenantId ? { tenantId } : {}) });

describe('tenantOfClaims', () => {
  it('reads the configured claim; nothing when tenancy is off', () => {
    expect(tenantOfClaims({ org_id: 'acme' }, [], ON)).toBe('acme');
    expect(tenantOfClaims({ org_id: 42 }, [], ON)).toBe('42');
    expect(tenantOfClaims({ org_id: 'acme' }, [], OFF)).toBeUndefined();
  });

  it('fails closed: a token without a usable claim is refused, naming it, unless it holds the admin scope', () => {
    for (const claims of [{}, { org_id: '' }, { org_id: ['acme'] }, { org_id: 'x'.repeat(201) }, { org_id: 1.5 }]) {
      expect(() => tenantOfClaims(claims, ['sessions:read'], ON)).toThrow(expect.objectContaining({ code: 'FORBIDDEN', message: expect.stringMatching(/`org_id` claim/) }));
    }
    expect(tenantOfClaims({}, ['agent_os:admin'], ON)).toBeUndefined();
  });
});

describe('tenantScope', () => {
  it('holds every caller but a global admin to its tenant', () => {
    expect(tenantScope(jwt([], 'acme'), ON)).toBe('acme');
    expect(tenantScope(jwt(['tenant:admin'], 'acme'), ON)).toBe('acme');
    expect(tenantScope(jwt(['agent_os:admin'], 'acme'), ON)).toBeUndefined();
    expect(tenantScope(jwt(['agent_os:admin']), ON)).toBeUndefined();
    expect(tenantScope(SECURITY_KEY_PRINCIPAL, ON)).toBeUndefined();
    expect(tenantScope(ANONYMOUS, ON)).toBeUndefined();
    expect(tenantScope(jwt([], 'acme'), OFF)).toBeUndefined();
  });

  it("holds a service account to its minter's tenant even with the admin scope; one without a tenant is refused unless global", () => {
    expect(tenantScope(sa(['agent_os:admin'], 'acme'), ON)).toBe('acme');
    expect(tenantScope(sa(['agent_os:admin']), ON)).toBeUndefined();
    expect(() => tenantScope(sa(['sessions:read']), ON)).toThrow(expect.objectContaining({ code: 'FORBIDDEN' }));
    expect(() => tenantScope(jwt(['sessions:read']), ON)).toThrow(expect.objectContaining({ code: 'FORBIDDEN' }));
  });

  it('a tenant admin administers its tenant: not confined to a user, only with tenancy on and a tenant', () => {
    expect(isTenantAdmin(jwt(['tenant:admin'], 'acme'), ON)).toBe(true);
    expect(isTenantAdmin(jwt(['tenant:admin']), ON)).toBe(false);
    expect(isTenantAdmin(jwt(['tenant:admin'], 'acme'), OFF)).toBe(false);
    const options = { isolation: true, adminScope: ON.adminScope, tenantAdminScope: ON.tenantAdminScope };
    expect(scopedUserId(jwt(['tenant:admin'], 'acme'), options)).toBeUndefined();
    expect(scopedUserId(jwt(['tenant:admin']), options)).toBe('alice');
  });
});

describe('auth settings', () => {
  it('isolates users by default; only an explicit off opts out, a misspelt one leaves it on', () => {
    expect(readSettings({}).auth.userIsolation).toBe(true);
    for (const off of ['0', 'false', 'No', 'OFF']) expect(readSettings({ USER_ISOLATION: off }).auth.userIsolation).toBe(false);
    for (const on of ['1', 'true', 'disabled', '']) expect(readSettings({ USER_ISOLATION: on }).auth.userIsolation).toBe(true);
  });

  it('reads the tenant claim and the tenant admin scope', () => {
    expect(readSettings({}).auth).toMatchObject({ tenantClaim: undefined, tenantAdminScope: undefined });
    expect(readSettings({ TENANT_CLAIM: ' org_id ', TENANT_ADMIN_SCOPE: 'org:admin' }).auth).toMatchObject({ tenantClaim: 'org_id', tenantAdminScope: 'org:admin' });
  });
});
