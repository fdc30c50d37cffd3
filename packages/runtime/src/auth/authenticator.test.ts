import { describe, expect, it } from 'vitest';
import { Authenticator } from './authenticator.js';
import { FailureLimiter } from './failure-limiter.js';
import type { Principal } from './principal.js';

const auth = new Authenticator({ mode: 'jwt', rbac: true, adminScope: 'agent_os:admin', limiter: new FailureLimiter({ maxFailures: 10, windowMs: 60_000 }) });
const token = (scopes: string[]): Principal => ({ kind: 'service_account', userId: 'sa:bot', scopes, enforceScopes: true, serviceAccount: 'bot' });

describe('Authenticator.authorize', () => {
  it('answers a cached principal the same on every call, per route and per requirement', () => {
    const bot = token(['agents:alpha:run', 'agents:beta:read']);
    for (let i = 0; i < 3; i++) {
      expect(auth.authorize(bot, 'POST', '/agents/alpha/runs', ['agents:run'])).toBe('*');
      expect(() => auth.authorize(bot, 'POST', '/agents/beta/runs', ['agents:run'])).toThrow(/Insufficient permissions/);
      // The same method and path with another requirement (as MCP's tool gate asks) is decided on its own.
      expect(() => auth.authorize(bot, 'POST', '/agents/alpha/runs', ['agents:delete'])).toThrow(/Insufficient permissions/);
      expect([...(auth.authorize(bot, 'GET', '/agents', ['agents:read'], true) as Set<string>)]).toEqual(['beta']);
    }
  });

  it('decides afresh for a principal with other scopes, and past the memo bound', () => {
    const before = token(['config:read']);
    expect(auth.authorize(before, 'GET', '/config', ['config:read'])).toBe('*');
    // A scope change yields a new principal object: the old grant does not carry over.
    expect(() => auth.authorize(token([]), 'GET', '/config', ['config:read'])).toThrow(/config:read/);
    const walker = token(['agents:read']);
    for (let i = 0; i < 200; i++) expect(auth.authorize(walker, 'GET', `/agents/a${i}`, ['agents:read'])).toBe('*');
    expect(() => auth.authorize(walker, 'DELETE', '/agents/a1', ['agents:delete'])).toThrow(/agents:a1:delete|agents:delete/);
  });
});
