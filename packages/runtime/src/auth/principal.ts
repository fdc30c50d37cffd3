/**
 * @module auth/principal
 * Who is calling, as every later check sees it.
 */

export type PrincipalKind = 'jwt' | 'service_account' | 'security_key' | 'anonymous';

export interface Principal {
  kind: PrincipalKind;
  /** JWT `sub`, or `sa:<name>` for a service-account token; undefined for the key and anonymous callers. */
  userId: string | undefined;
  scopes: readonly string[];
  /**
   * Whether route scopes apply. False for the security key (a root credential), for anonymous
   * callers of an open runtime, and for JWTs when `authorization` (RBAC) is off. Always true for
   * service-account tokens: their scopes are the whole point of them.
   */
  enforceScopes: boolean;
  /** The service account's name, for tokens. */
  serviceAccount?: string;
  /**
   * The tenant the caller belongs to (`authorization_config.tenant_claim` of a JWT, or the tenant
   * that minted a service account); undefined when tenancy is off or for global callers.
   */
  tenantId?: string;
  /** A JWT's verified claims, for tools that pass the caller on (an MCP server's `headers(ctx)`). */
  claims?: Readonly<Record<string, unknown>>;
}

export const ANONYMOUS: Principal = { kind: 'anonymous', userId: undefined, scopes: [], enforceScopes: false };
export const SECURITY_KEY_PRINCIPAL: Principal = { kind: 'security_key', userId: undefined, scopes: [], enforceScopes: false };

/** Subjects a JWT may not claim: they name service accounts and internal identities. */
export function isReservedSubject(sub: string): boolean {
  return sub.startsWith('sa:') || sub.startsWith('__oauth__:') || sub === '__scheduler__';
}

/**
 * The scopes of a JWT: the `scopes` claim (a list, or one string taken whole), else the OAuth
 * `scope` claim split on spaces (what standard authorization servers issue).
 */
export function scopesFromClaims(claims: Record<string, unknown>): string[] {
  const scopes = claims.scopes;
  if (Array.isArray(scopes)) return scopes.filter((s): s is string => typeof s === 'string');
  if (typeof scopes === 'string') return [scopes];
  if (typeof claims.scope === 'string') return claims.scope.split(' ').filter((s) => s !== '');
  return [];
}
