import { describe, expect, it } from 'vitest';
import { defaultScopeMap, ScopeMap } from './scope-map.js';

describe('ScopeMap', () => {
  it('finds the scopes of concrete paths and templates', () => {
    expect(defaultScopeMap.required('GET', '/config')).toEqual(['config:read']);
    expect(defaultScopeMap.required('post', '/agents/a1/runs')).toEqual(['agents:run']);
    expect(defaultScopeMap.required('POST', '/agents/{agent_id}/runs/{run_id}/cancel')).toEqual(['agents:run']);
    expect(defaultScopeMap.required('GET', '/agents/a1/runs/r1')).toEqual(['agents:read']);
    expect(defaultScopeMap.required('GET', '/sessions/s1/runs/r1')).toEqual(['sessions:read']);
    expect(defaultScopeMap.required('DELETE', '/service-accounts/x')).toEqual(['service_accounts:delete']);
    expect(defaultScopeMap.required('POST', '/mcp')).toEqual([]);
    expect(defaultScopeMap.required('GET', '/mcp')).toEqual([]);
  });
  it('maps the schedules routes and a run\'s webhook deliveries', () => {
    expect(defaultScopeMap.required('POST', '/schedules')).toEqual(['schedules:write']);
    expect(defaultScopeMap.required('GET', '/schedules')).toEqual(['schedules:read']);
    expect(defaultScopeMap.required('GET', '/schedules/s1')).toEqual(['schedules:read']);
    expect(defaultScopeMap.required('PATCH', '/schedules/s1')).toEqual(['schedules:write']);
    expect(defaultScopeMap.required('POST', '/schedules/s1/trigger')).toEqual(['schedules:write']);
    expect(defaultScopeMap.required('POST', '/schedules/s1/disable')).toEqual(['schedules:write']);
    expect(defaultScopeMap.required('GET', '/schedules/s1/runs')).toEqual(['schedules:read']);
    expect(defaultScopeMap.required('DELETE', '/schedules/s1')).toEqual(['schedules:delete']);
    expect(defaultScopeMap.required('GET', '/teams/t1/runs/r1/webhooks')).toEqual(['teams:read']);
  });
  it('reports unmapped routes as undefined', () => {
    expect(defaultScopeMap.required('GET', '/nowhere')).toBeUndefined();
    expect(defaultScopeMap.required('PUT', '/agents/a1')).toBeUndefined();
  });
  it('prefers an exact key over an earlier pattern, and patterns in order', () => {
    const map = new ScopeMap([
      ['GET /a/*', ['a:read']],
      ['GET /a/special', ['a:write']],
    ]);
    expect(map.required('GET', '/a/special')).toEqual(['a:write']);
    expect(map.required('GET', '/a/b/c')).toEqual(['a:read']);
  });
  it('does not treat regex characters in paths as patterns', () => {
    const map = new ScopeMap([['GET /a.b', ['x:read']]]);
    expect(map.required('GET', '/aXb')).toBeUndefined();
  });
});
