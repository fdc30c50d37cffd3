/**
 * @module auth/data-scope
 * What a caller's reads and writes are confined to, as the stores take it: a user (user
 * isolation, auth/user-scope.ts) and a tenant (auth/tenancy.ts). Stores put both in the same
 * WHERE as every other filter, so a page's `limit` stays exact and another's row is simply not
 * found. An absent field confines nothing.
 */
export interface DataScope {
  /** Only this user's rows (and, where a store has them, shared rows without a user). */
  readonly user?: string;
  /** Only this tenant's rows: never another tenant's, nor those written without a tenant. */
  readonly tenant?: string;
}

/** The scope of a global admin, the security key or an open runtime. */
export const UNCONFINED: DataScope = {};

/** Whether a row with this owner and tenant is inside `scope`. */
export function inScope(scope: DataScope, row: { user_id: string | null; tenant_id?: string | null | undefined }): boolean {
  if (scope.user !== undefined && row.user_id !== scope.user) return false;
  if (scope.tenant !== undefined && (row.tenant_id ?? null) !== scope.tenant) return false;
  return true;
}
