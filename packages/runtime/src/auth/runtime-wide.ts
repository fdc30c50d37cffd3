/**
 * @module auth/runtime-wide
 * Operations that change the whole runtime rather than one tenant's data: a caller held to a
 * tenant (a tenant admin included) may not perform them under tenancy, whatever scopes it holds.
 * Only a global admin (the admin scope, the security key) may. Routes that check their callers
 * themselves (`/budgets`) follow the same rule in their handlers.
 */
import { RuntimeError } from '../errors.js';
import { ScopeMap } from './scope-map.js';

const RUNTIME_WIDE = new ScopeMap(
  [
    // Rebuilds every tenant's vectors of a knowledge base.
    'POST /knowledge/reindex',
    // Recomputes the metrics of every tenant.
    'POST /metrics/refresh',
    // Configuration: databases, and the definitions of components every tenant runs.
    'POST /databases/*',
    'POST /components',
    'PATCH /components/*',
    'POST /components/*',
    'DELETE /components',
    'DELETE /components/*',
    ...(['agents', 'teams', 'workflows'] as const).flatMap((p) => [`POST /${p}`, `PATCH /${p}/{id}`, `DELETE /${p}/{id}`]),
  ].map((key) => [key, ['global']] as const),
);

/** Whether `method path` changes the whole runtime (see the list above). */
export function isRuntimeWide(method: string, path: string): boolean {
  return RUNTIME_WIDE.required(method, path) !== undefined;
}

/** The refusal of a runtime-wide operation to a caller held to a tenant. */
export function tenantCannot(what: string, adminScope: string): RuntimeError {
  return new RuntimeError(
    'FORBIDDEN',
    `${what} is a runtime-wide operation: a tenant's caller (a tenant admin included) manages its own tenant only, so it needs a global admin (the \`${adminScope}\` scope or the security key)`,
  );
}
