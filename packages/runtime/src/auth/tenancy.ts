/**
 * @module auth/tenancy
 * Tenants above users (`authorization_config.tenant_claim`, `TENANT_CLAIM`): which tenant a
 * caller belongs to and which tenant's rows it may reach. The rules, kept apart from any route
 * and store so every read and write asks the same ones:
 * - a JWT's tenant is its `tenant_claim` claim; a JWT without it is refused (fail-closed) unless
 *   it holds the admin scope, which makes it a global admin;
 * - a service-account token carries the tenant that minted it (the row's tenant_id);
 * - global admins (the admin scope, the security key) reach every tenant, rows without a tenant
 *   included; every other caller reaches its own tenant's rows only (never those without one);
 * - the tenant admin scope (`tenant:admin` unless configured) administers its tenant: it passes
 *   the route scopes and is not confined to a user, but stays confined to its tenant.
 */
import { RuntimeError } from '../errors.js';
import type { Principal } from './principal.js';

export const DEFAULT_TENANT_ADMIN_SCOPE = 'tenant:admin';

export interface TenancyOptions {
  /** The JWT claim naming the tenant; undefined: tenancy is off. */
  claim: string | undefined;
  adminScope: string;
  tenantAdminScope: string;
}

const MAX_TENANT_LENGTH = 200;

/**
 * The tenant named by a JWT's claims, or undefined when tenancy is off or a global admin's
 * token names none. Throws FORBIDDEN for any other token without a usable claim: letting it
 * through unconfined would show it every tenant's data.
 */
export function tenantOfClaims(claims: Readonly<Record<string, unknown>>, scopes: readonly string[], options: TenancyOptions): string | undefined {
  const { claim } = options;
  if (claim === undefined) return undefined;
  const value = claims[claim];
  if (typeof value === 'string' && value !== '' && value.length <= MAX_TENANT_LENGTH) return value;
  if (typeof value === 'number' && Number.isSafeInteger(value)) return String(value);
  if (value === undefined && scopes.includes(options.adminScope)) return undefined;
  throw new RuntimeError(
    'FORBIDDEN',
    `This runtime is multi-tenant and this token names no tenant: it needs a \`${claim}\` claim (a string of 1 to ${MAX_TENANT_LENGTH} characters)`,
  );
}

/**
 * The tenant whose rows `principal` may reach, or undefined for every tenant's (tenancy off, a
 * global admin, the security key, an open runtime). A service account is always held to the
 * tenant that minted it, even with the admin scope; one minted with no tenant is global only
 * if it holds the admin scope, and refused otherwise.
 */
export function tenantScope(principal: Principal | undefined, options: TenancyOptions): string | undefined {
  if (options.claim === undefined || !principal) return undefined;
  if (principal.kind === 'security_key' || principal.kind === 'anonymous') return undefined;
  if (principal.tenantId !== undefined && principal.kind === 'service_account') return principal.tenantId;
  if (principal.scopes.includes(options.adminScope)) return undefined;
  if (principal.tenantId !== undefined) return principal.tenantId;
  throw new RuntimeError('FORBIDDEN', 'This runtime is multi-tenant and this caller belongs to no tenant, so it can reach no tenant data');
}

/** Whether `principal` administers its own tenant (the tenant admin scope, with a tenant). */
export function isTenantAdmin(principal: Principal | undefined, options: TenancyOptions): boolean {
  return options.claim !== undefined && principal?.tenantId !== undefined && principal.scopes.includes(options.tenantAdminScope);
}
