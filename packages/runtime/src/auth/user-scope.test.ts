import { describe, expect, it } from 'vitest';
import { ANONYMOUS, SECURITY_KEY_PRINCIPAL, type Principal } from './principal.js';
import { runScope, scopedUserId } from './user-scope.js';

const ADMIN = 'agent_os:admin';
const jwt = (userId: string | undefined, scopes: string[] = ['knowledge:read']): Principal => ({ kind: 'jwt', userId, scopes, enforceScopes: true });
const sa = (scopes: string[] = ['knowledge:read']): Principal => ({ kind: 'service_account', userId: 'sa:ci', scopes, enforceScopes: true, serviceAccount: 'ci' });

describe('scopedUserId', () => {
  const on = { isolation: true, adminScope: ADMIN };
  const off = { isolation: false, adminScope: ADMIN };

  it('confines a JWT user only under isolation', () => {
    expect(scopedUserId(jwt('alice'), on)).toBe('alice');
    expect(scopedUserId(jwt('alice'), off)).toBeUndefined();
  });

  it('never confines admins, the security key or anonymous callers', () => {
    for (const options of [on, off]) {
      expect(scopedUserId(jwt('root', [ADMIN]), options)).toBeUndefined();
      expect(scopedUserId(sa([ADMIN]), options)).toBeUndefined();
      expect(scopedUserId(SECURITY_KEY_PRINCIPAL, options)).toBeUndefined();
      expect(scopedUserId(ANONYMOUS, options)).toBeUndefined();
      expect(scopedUserId(undefined, options)).toBeUndefined();
    }
  });

  it('a custom admin scope replaces the default one', () => {
    expect(scopedUserId(jwt('root', ['ops:all']), { isolation: true, adminScope: 'ops:all' })).toBeUndefined();
    expect(scopedUserId(jwt('root', [ADMIN]), { isolation: true, adminScope: 'ops:all' })).toBe('root');
  });

  it('always confines a service account to itself', () => {
    expect(scopedUserId(sa(), on)).toBe('sa:ci');
    expect(scopedUserId(sa(), off)).toBe('sa:ci');
  });

  it('refuses a JWT without a user under isolation', () => {
    expect(() => scopedUserId(jwt(undefined), on)).toThrow(expect.objectContaining({ code: 'FORBIDDEN' }));
    expect(() => scopedUserId(jwt(''), on)).toThrow(expect.objectContaining({ code: 'FORBIDDEN' }));
    expect(scopedUserId(jwt(undefined), off)).toBeUndefined();
  });
});

describe('runScope', () => {
  it('confines a run to its user under isolation, and a service account’s run always', () => {
    expect(runScope('alice', true)).toBe('alice');
    expect(runScope('alice', false)).toBeUndefined();
    expect(runScope('sa:ci', false)).toBe('sa:ci');
    expect(runScope(undefined, true)).toBeUndefined();
    expect(runScope('', true)).toBeUndefined();
  });
});
