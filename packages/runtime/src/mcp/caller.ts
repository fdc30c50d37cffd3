/**
 * @module mcp/caller
 * The MCP tools' view of the authenticated principal: each tool asks the same scope map and
 * the same check as its REST twin, and an authenticated identity is forced onto runs.
 */
import type { Authenticator } from '../auth/authenticator.js';
import type { Principal } from '../auth/principal.js';
import { defaultScopeMap, type ScopeMap } from '../auth/scope-map.js';
import { OPEN_CALLER, type McpCaller } from './tool-gate.js';

export interface CallerOptions {
  /** Enforce scopes even for a JWT on a runtime without RBAC (OAuth-protected MCP). */
  alwaysEnforce?: boolean;
  scopeMap?: ScopeMap;
}

export function callerFor(auth: Authenticator, principal: Principal | undefined, options: CallerOptions = {}): McpCaller {
  if (!principal) return OPEN_CALLER;
  const enforce = principal.enforceScopes || (options.alwaysEnforce === true && principal.kind === 'jwt');
  const admin = auth.isAdmin(principal);
  const memoryOwner = () => auth.memoryOwner(principal);
  const scope = () => auth.dataScope(principal);
  const tenant = () => auth.tenantOf(principal);
  if (!enforce) return { userId: principal.userId, admin, principal, gate: () => undefined, memoryOwner, scope, tenant };
  const effective: Principal = { ...principal, enforceScopes: true };
  const map = options.scopeMap ?? defaultScopeMap;
  return {
    userId: principal.userId,
    admin,
    principal,
    gate: (method, path) => {
      const required = map.required(method, path);
      // Fail closed: a tool whose twin is unmapped is a bug, not a free pass.
      if (required === undefined) return 'Insufficient permissions';
      return auth.check(effective, method, path, required);
    },
    memoryOwner,
    scope,
    tenant,
    canRead: (kind, id) => auth.check(effective, 'GET', `/${kind}/${encodeURIComponent(id)}`, [`${kind}:read`]) === undefined,
  };
}
