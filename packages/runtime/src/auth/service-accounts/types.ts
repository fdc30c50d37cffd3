/**
 * @module auth/service-accounts/types
 */

export interface ServiceAccount {
  id: string;
  name: string;
  /** The owner: the minter's user id; null for a workspace-level account (minted with the key). */
  user_id: string | null;
  token_hash: string;
  token_prefix: string;
  scopes: string[];
  created_at: number;
  expires_at: number | null;
  last_used_at: number | null;
  revoked_at: number | null;
  created_by: string | null;
  /** The tenant that minted it (auth/tenancy.ts): its tokens are that tenant's. Null without tenancy. */
  tenant_id: string | null;
}

/** Lowercase slug, at most 63 characters; `$` without the multiline flag rejects a trailing newline. */
export const SERVICE_ACCOUNT_NAME = /^[a-z0-9][a-z0-9_-]{0,62}$/;

export const DEFAULT_SERVICE_ACCOUNT_SCOPES = ['agents:run', 'teams:run', 'workflows:run', 'sessions:read', 'config:read'] as const;

export function principalOf(name: string): string {
  return `sa:${name}`;
}

export function isActive(account: ServiceAccount, nowSeconds: number): boolean {
  return account.revoked_at === null && (account.expires_at === null || account.expires_at > nowSeconds);
}
