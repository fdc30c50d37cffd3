/**
 * @module auth/authenticator
 * The auth decisions, free of any HTTP framework: who is calling (authenticate) and whether
 * they may call a route (authorize). The server wraps these in per-route middleware; the MCP
 * tools reuse `check` for their REST twins.
 */
import { RuntimeError } from '../errors.js';
import type { AuthMode } from './auth-mode.js';
import { bearerFrom, MAX_TOKEN_LENGTH, secretsEqual } from './credentials.js';
import type { FailureLimiter } from './failure-limiter.js';
import type { SharedFailureCounter } from './shared-failures.js';
import type { JwtVerifier } from './jwt-verifier.js';
import { ANONYMOUS, isReservedSubject, SECURITY_KEY_PRINCIPAL, scopesFromClaims, type Principal } from './principal.js';
import { accessibleIds, contextualize, hasScopes, parseScope, resourceContext } from './scopes.js';
import type { ServiceAccountVerifier } from './service-accounts/service-account-verifier.js';
import { isServiceAccountToken } from './service-accounts/token.js';
import { isRuntimeWide, tenantCannot } from './runtime-wide.js';
import { DEFAULT_TENANT_ADMIN_SCOPE, isTenantAdmin, tenantOfClaims, tenantScope, type TenancyOptions } from './tenancy.js';
import { personalDataOwner, scopedUserId, unconfinedAdmin } from './user-scope.js';
import type { DataScope } from './data-scope.js';

export interface AuthenticatorOptions {
  mode: AuthMode;
  /** Whether JWT scopes are checked (`authorization` / `AUTHORIZATION_ENABLED`). */
  rbac: boolean;
  adminScope: string;
  /** User isolation (on unless false): callers with a user reach only that user's data and shared data (see user-scope.ts). */
  userIsolation?: boolean | undefined;
  /** Tenancy: the JWT claim naming the tenant (auth/tenancy.ts); undefined: off. */
  tenantClaim?: string | undefined;
  /** The scope that administers its own tenant; defaults to `tenant:admin`. */
  tenantAdminScope?: string | undefined;
  jwt?: JwtVerifier | undefined;
  securityKey?: string | undefined;
  serviceAccounts?: ServiceAccountVerifier | undefined;
  limiter: FailureLimiter;
  /** Counts failures across every runtime on the database, after the local limiter. */
  sharedFailures?: SharedFailureCounter | undefined;
}

/** What a listing route may show: everything, or only these ids. */
export type Visible = '*' | ReadonlySet<string>;

export function insufficient(required: readonly string[]): RuntimeError {
  return new RuntimeError(
    'FORBIDDEN',
    required.length ? `Insufficient permissions. Required scope(s): ${required.join(', ')}` : 'Insufficient permissions',
  );
}

const MAX_DECISIONS_PER_PRINCIPAL = 64;

export class Authenticator {
  readonly mode: AuthMode;
  readonly rbac: boolean;
  readonly adminScope: string;
  readonly userIsolation: boolean;
  readonly tenancy: TenancyOptions;
  readonly serviceAccounts: ServiceAccountVerifier | undefined;
  /**
   * Granted decisions per service-account principal object. A cached token yields the same
   * principal object on every request, so its repeated calls skip parsing and matching scopes;
   * a principal whose scopes change is a new object, and one no longer referenced takes its
   * decisions with it. Refusals are not kept (they throw, and are rare).
   */
  private readonly granted = new WeakMap<Principal, Map<string, Visible>>();

  constructor(private readonly options: AuthenticatorOptions) {
    this.mode = options.mode;
    this.rbac = options.rbac;
    this.adminScope = options.adminScope;
    this.userIsolation = options.userIsolation !== false;
    this.tenancy = { claim: options.tenantClaim, adminScope: options.adminScope, tenantAdminScope: options.tenantAdminScope ?? DEFAULT_TENANT_ADMIN_SCOPE };
    this.serviceAccounts = options.serviceAccounts;
  }

  /**
   * The caller behind an `Authorization` header. Throws 401 for missing or bad credentials (429
   * once `client` has failed too often, 503 when the token store is down). On an open runtime
   * a request without a usable credential is anonymous, never refused.
   */
  async authenticate(header: string | undefined, client: string | (() => string)): Promise<Principal> {
    const { mode } = this;
    const token = bearerFrom(header);
    if (token === undefined) {
      if (mode === 'none') return ANONYMOUS;
      throw new RuntimeError('UNAUTHENTICATED', mode === 'jwt' ? 'Authorization header missing' : 'Authorization header required');
    }
    if (token.length > MAX_TOKEN_LENGTH) {
      if (mode === 'none') return ANONYMOUS;
      return this.fail(client, 'Invalid token: it is too large');
    }

    // Tokens are recognised by prefix before anything else: a JWT or key never starts with it.
    if (isServiceAccountToken(token)) {
      const verifier = this.options.serviceAccounts;
      if (!verifier) {
        if (mode === 'none') return ANONYMOUS;
        throw new RuntimeError('UNAUTHENTICATED', 'Service accounts are not enabled on this runtime');
      }
      const principal = await verifier.verify(token);
      if (principal) return principal;
      // An open runtime tolerates a stale token: the request is simply anonymous.
      if (mode === 'none') return ANONYMOUS;
      return this.fail(client, 'Invalid or expired service account token');
    }

    if (mode === 'security_key') {
      if (secretsEqual(token, this.options.securityKey ?? '')) return SECURITY_KEY_PRINCIPAL;
      return this.fail(client, 'Invalid authentication token');
    }
    if (mode === 'jwt' && this.options.jwt) {
      let claims;
      try {
        claims = await this.options.jwt.verify(token);
      } catch (error) {
        return this.fail(client, RuntimeError.isInstance(error) ? error.message : 'Invalid token');
      }
      const sub = typeof claims.sub === 'string' ? claims.sub : undefined;
      if (sub !== undefined && isReservedSubject(sub)) return this.fail(client, 'Invalid token subject');
      // A valid token without its tenant is refused (403), not counted as a failed attempt.
      return this.jwtPrincipal(sub, claims);
    }
    return ANONYMOUS;
  }

  /**
   * The principal when it is known without waiting: no credential on an open runtime, the
   * security key, a token verified before and still cached. Undefined means "ask
   * `authenticate`", which also counts failures; this never refuses anything itself. It lets
   * routes answer synchronously, which Node serves markedly faster than a promise.
   */
  authenticateCached(header: string | undefined): Principal | undefined {
    const { mode } = this;
    const token = bearerFrom(header);
    if (token === undefined) return mode === 'none' ? ANONYMOUS : undefined;
    if (token.length > MAX_TOKEN_LENGTH) return undefined;
    if (isServiceAccountToken(token)) return this.options.serviceAccounts?.cached(token);
    if (mode === 'security_key') return secretsEqual(token, this.options.securityKey ?? '') ? SECURITY_KEY_PRINCIPAL : undefined;
    if (mode === 'jwt' && this.options.jwt) {
      const claims = this.options.jwt.cached(token);
      if (!claims) return undefined;
      const sub = typeof claims.sub === 'string' ? claims.sub : undefined;
      if (sub !== undefined && isReservedSubject(sub)) return undefined;
      try {
        return this.jwtPrincipal(sub, claims);
      } catch {
        return undefined; // authenticate gives the refusal
      }
    }
    return mode === 'none' ? ANONYMOUS : undefined;
  }

  /** A verified JWT's principal, with its tenant under tenancy (throws 403 when it names none). */
  private jwtPrincipal(sub: string | undefined, claims: Record<string, unknown>): Principal {
    const scopes = scopesFromClaims(claims);
    const tenantId = tenantOfClaims(claims, scopes, this.tenancy);
    return { kind: 'jwt', userId: sub, scopes, enforceScopes: this.rbac, claims, ...(tenantId !== undefined ? { tenantId } : {}) };
  }

  /**
   * Whether `principal` may call `method path` requiring `required`. A listing route lets a
   * caller without the global scope through when per-resource scopes grant some ids; the
   * result then names them, and the route shows only those.
   */
  authorize(principal: Principal, method: string, path: string, required: readonly string[], listing = false): Visible {
    // Under tenancy, what changes every tenant is for global admins only (runtime-wide.ts), with
    // or without role-based access.
    if (this.heldToTenant(principal) && isRuntimeWide(method, path)) throw tenantCannot(`${method.toUpperCase()} ${path}`, this.adminScope);
    if (!principal.enforceScopes || required.length === 0) return '*';
    // A tenant admin passes every other route; what it reaches stays its tenant's (dataScope).
    if (isTenantAdmin(principal, this.tenancy)) return '*';
    // Other principals are built per request: a memo would only cost them.
    if (principal.kind !== 'service_account') return this.decide(principal, path, method, required, listing);
    const key = `${listing ? 'L' : ''}${method} ${path} ${required.join(' ')}`;
    let decisions = this.granted.get(principal);
    const known = decisions?.get(key);
    if (known !== undefined) return known;
    const visible = this.decide(principal, path, method, required, listing);
    if (!decisions) this.granted.set(principal, (decisions = new Map()));
    // Bounded: a caller walking many ids starts over rather than growing without end.
    if (decisions.size >= MAX_DECISIONS_PER_PRINCIPAL) decisions.clear();
    decisions.set(key, visible);
    return visible;
  }

  private decide(principal: Principal, path: string, method: string, required: readonly string[], listing: boolean): Visible {
    const context = resourceContext(path);
    const held = principal.scopes;
    if (hasScopes({ held, required, context, adminScope: this.adminScope })) return '*';
    const first = parseScope(required[0]!, this.adminScope);
    if (listing && method === 'GET' && context && context.id === undefined && first.kind === 'global' && first.resource === context.resource) {
      const ids = accessibleIds(held, context.resource, first.action, this.adminScope);
      if (ids === '*' || ids.size > 0) return ids;
    }
    throw insufficient(required.map((r) => contextualize(r, context, this.adminScope).raw));
  }

  /**
   * Whether `principal` holds the admin scope (or, with tenancy, administers its tenant): no user
   * isolation confines it. A tenant admin is still held to its tenant (tenantOf).
   */
  isAdmin(principal: Principal | undefined): boolean {
    return principal !== undefined && unconfinedAdmin(principal, this.userScopeAdmins());
  }

  /** The user `principal` is confined to under user isolation; undefined when unconfined. */
  scopedUserId(principal: Principal | undefined): string | undefined {
    return scopedUserId(principal, { isolation: this.userIsolation, ...this.userScopeAdmins() });
  }

  /** The user whose memories `principal` may reach (user-scope.ts); undefined: everyone's. */
  memoryOwner(principal: Principal | undefined): string | undefined {
    return personalDataOwner(principal, this.userScopeAdmins());
  }

  /** The tenant whose rows `principal` may reach (auth/tenancy.ts); undefined: every tenant's. */
  tenantOf(principal: Principal | undefined): string | undefined {
    return tenantScope(principal, this.tenancy);
  }

  /**
   * Whether tenancy holds `principal` to one tenant (or to none it could reach): everyone but a
   * global admin, the security key and an open runtime. Such a caller manages its tenant only.
   */
  heldToTenant(principal: Principal | undefined): boolean {
    if (this.tenancy.claim === undefined) return false;
    try {
      return this.tenantOf(principal) !== undefined;
    } catch {
      return true;
    }
  }

  /** Both confinements at once: what a store puts in its WHERE for this caller. */
  dataScope(principal: Principal | undefined): DataScope {
    const tenant = this.tenantOf(principal);
    const user = this.scopedUserId(principal);
    return { ...(user !== undefined ? { user } : {}), ...(tenant !== undefined ? { tenant } : {}) };
  }

  private userScopeAdmins(): { adminScope: string; tenantAdminScope: string | undefined } {
    return { adminScope: this.adminScope, tenantAdminScope: this.tenancy.claim !== undefined ? this.tenancy.tenantAdminScope : undefined };
  }

  /** `authorize` as a yes/no with the refusal text, for MCP tools. */
  check(principal: Principal, method: string, path: string, required: readonly string[]): string | undefined {
    try {
      this.authorize(principal, method, path, required);
      return undefined;
    } catch (error) {
      return RuntimeError.isInstance(error) ? error.message : 'Insufficient permissions';
    }
  }

  private async fail(clientOrLookup: string | (() => string), detail: string): Promise<never> {
    // Only a failure needs the client's address; a valid credential never pays for the lookup.
    const client = typeof clientOrLookup === 'function' ? clientOrLookup() : clientOrLookup;
    let retryAfter = this.options.limiter.fail(client);
    // The database is asked only when this process alone has not seen enough; if it cannot
    // answer, the local limit still holds.
    if (retryAfter === undefined && this.options.sharedFailures) retryAfter = await this.options.sharedFailures.fail(client).catch(() => undefined);
    if (retryAfter !== undefined) {
      throw new RuntimeError('RATE_LIMITED', 'Too many failed authentication attempts', { headers: { 'retry-after': String(retryAfter) } });
    }
    throw new RuntimeError('UNAUTHENTICATED', detail);
  }
}
