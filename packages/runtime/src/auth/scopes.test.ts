import { describe, expect, it } from 'vitest';
import { accessibleIds, canGrant, hasScopes, isKnownScope, isPrivilegedScope, parseScope, resourceContext } from './scopes.js';

const check = (held: string[], required: string[], path = '/x') => hasScopes({ held, required, context: resourceContext(path) });

describe('scope grammar', () => {
  it('parses admin, global, per-resource and unknown scopes', () => {
    expect(parseScope('agent_os:admin').kind).toBe('admin');
    expect(parseScope('agents:read')).toMatchObject({ kind: 'global', resource: 'agents', action: 'read' });
    expect(parseScope('agents:a1:run')).toMatchObject({ kind: 'resource', id: 'a1', action: 'run' });
    expect(parseScope('system:read')).toMatchObject({ kind: 'global', resource: 'config' });
    for (const bad of ['agents', 'a:b:c:d', '', 'agents:', '*:read', 'agents:*', 'agents:a b:run']) expect(parseScope(bad).kind, bad).toBe('unknown');
  });
  it('treats a custom admin scope as the only admin scope', () => {
    expect(parseScope('agent_os:admin', 'root').kind).toBe('global');
    expect(parseScope('root', 'root').kind).toBe('admin');
  });
  it('knows the vocabulary', () => {
    expect(isKnownScope('agents:*:run')).toBe(true);
    expect(isKnownScope('sessions:read')).toBe(true);
    expect(isKnownScope('agents:fly')).toBe(false);
    expect(isKnownScope('weather:read')).toBe(false);
    expect(isKnownScope('sessions:s1:read')).toBe(false);
  });
  it('marks write, delete, admin and service_accounts scopes privileged', () => {
    for (const s of ['agents:write', 'sessions:delete', 'agent_os:admin', 'service_accounts:read', 'agents:a1:write']) expect(isPrivilegedScope(s), s).toBe(true);
    for (const s of ['agents:run', 'config:read', 'agents:*:run']) expect(isPrivilegedScope(s), s).toBe(false);
    expect(isPrivilegedScope('agent_os:admin', 'root')).toBe(true);
  });
});

describe('matching', () => {
  it('narrows global requirements to the addressed resource', () => {
    expect(check(['agents:a1:run'], ['agents:run'], '/agents/a1/runs')).toBe(true);
    expect(check(['agents:a2:run'], ['agents:run'], '/agents/a1/runs')).toBe(false);
    expect(check(['agents:run'], ['agents:run'], '/agents/a1/runs')).toBe(true);
    expect(check(['agents:*:run'], ['agents:run'], '/agents/a1/runs')).toBe(true);
    expect(check(['agents:*:run'], ['agents:run'], '/agents')).toBe(true);
    expect(check(['agents:a1:run'], ['agents:read'], '/agents/a1')).toBe(false);
    expect(check(['teams:a1:run'], ['agents:run'], '/agents/a1/runs')).toBe(false);
  });
  it('decodes the id from the path', () => {
    expect(check(['agents:a b:run'.replace(' ', '_')], ['agents:run'], '/agents/a%5Fb/runs')).toBe(true);
  });
  it('lets admin pass everything and empty requirements pass anyone', () => {
    expect(check(['agent_os:admin'], ['sessions:delete'])).toBe(true);
    expect(check([], [])).toBe(true);
    expect(check(['sessions:*:read'], ['sessions:read'], '/sessions')).toBe(true);
    expect(check(['sessions:read'], ['sessions:read', 'sessions:write'])).toBe(false);
  });
  it('lists the ids a caller may see', () => {
    expect(accessibleIds(['agents:a1:read', 'agents:a2:read', 'agents:a3:run'], 'agents', 'read')).toEqual(new Set(['a1', 'a2']));
    expect(accessibleIds(['agents:*:read'], 'agents', 'read')).toBe('*');
    expect(accessibleIds(['agent_os:admin'], 'agents', 'read')).toBe('*');
    expect(accessibleIds(['agents:a1:run'], 'agents', 'read')).toEqual(new Set());
  });
  it('grants only what the granter holds', () => {
    expect(canGrant(['agents:run'], 'agents:a1:run')).toBe(true);
    expect(canGrant(['agents:run'], 'agents:*:run')).toBe(true);
    expect(canGrant(['agents:a1:run'], 'agents:*:run')).toBe(false);
    expect(canGrant(['agents:a1:run'], 'agents:run')).toBe(false);
    expect(canGrant(['agents:run'], 'agent_os:admin')).toBe(false);
    expect(canGrant(['agent_os:admin'], 'service_accounts:write')).toBe(true);
  });
});
