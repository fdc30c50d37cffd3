/**
 * Whose is a service account? The runtime only shows a token's first characters (its display
 * prefix), and the full token lives in some client config. An account whose token sits in one
 * of this user's client configs is this user's, and so is one this machine minted for them
 * (accounts/record.ts: the local record, which outlives a removed entry); any other account may
 * be in use by another user or machine, and is never revoked by connect or disconnect without
 * --force.
 */
import type { ClientAdapter, ClientEnv, ClientId } from '../clients/registry.js';
import type { Account } from './account.js';

export interface HeldToken {
  client: ClientId;
  /** The entry's name in that client's config. */
  name: string;
  url: string;
  token: string;
  location: string;
  /** In a scope connect never rewrites (another project's local scope). */
  untouched?: true;
}

/** Every token in this user's client configs, in every scope of every client. */
export function heldTokens(clients: readonly ClientAdapter[], e: ClientEnv): HeldToken[] {
  const held: HeldToken[] = [];
  for (const client of clients) {
    let entries;
    try {
      entries = client.allEntries(e);
    } catch {
      continue;
    }
    for (const entry of entries) {
      if (entry.token === undefined) continue;
      held.push({ client: client.id, name: entry.name, url: entry.url, token: entry.token, location: entry.location, ...(entry.untouched ? { untouched: true as const } : {}) });
    }
  }
  return held;
}

/** Why an account that is neither held nor recorded as minted here is not simply revoked. */
export const FOREIGN = 'its token is in none of your client configs and it was not minted from here, so another user or machine may be using it';

/** Said before such an account is revoked anyway (--force). */
export function foreignWarning(name: string): string {
  return `Service account '${name}' holds a token that is in none of your client configs and was not minted from here: revoking it disconnects whoever uses it (another user or machine).`;
}

/** Shorter prefixes could match by chance; the runtime shows 16 characters (8 of them random). */
const MIN_PREFIX = 12;

/** The held tokens that belong to `account` (none when its prefix is too short to tell). */
export function holdersOf(account: Account, held: readonly HeldToken[]): HeldToken[] {
  if (account.token_prefix.length < MIN_PREFIX) return [];
  return held.filter((h) => h.token.startsWith(account.token_prefix));
}

/** Where the held copies of a token are, for messages: `~/.cursor/mcp.json ('team')`. */
export function whereHeld(holders: readonly HeldToken[], shorten: (path: string) => string): string {
  return [...new Set(holders.map((h) => `${shorten(h.location)} ('${h.name}')`))].join(', ');
}
