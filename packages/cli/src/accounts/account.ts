/**
 * The service-account object as the CLI emits it: the server's fields minus the internal ones
 * (user_id, created_by), scopes flattened to their raw strings. The plaintext token is never
 * part of it; `tokens create` appends it once.
 */
import { CliError } from '../errors.js';
import { isObject, type JsonValue } from '../util/json.js';

export interface Account {
  id: string;
  name: string;
  principal: string;
  token_prefix: string;
  scopes: string[];
  created_at: number | null;
  expires_at: number | null;
  last_used_at: number | null;
  revoked_at: number | null;
}

function epoch(value: unknown): number | null {
  if (typeof value === 'number' && Number.isFinite(value)) return Math.trunc(value);
  // Tolerate ISO strings from other servers: output is always epoch seconds.
  if (typeof value === 'string' && value !== '') {
    const ms = Date.parse(value);
    if (!Number.isNaN(ms)) return Math.trunc(ms / 1000);
  }
  return null;
}

function scopeText(scope: unknown): string | undefined {
  if (typeof scope === 'string') return scope;
  if (isObject(scope) && typeof scope.raw === 'string') return scope.raw;
  if (isObject(scope) && typeof scope.scope === 'string') return scope.scope;
  return undefined;
}

export function parseAccount(value: unknown): Account {
  if (!isObject(value) || typeof value.id !== 'string' || typeof value.name !== 'string') {
    throw new CliError('BAD_RESPONSE', "The runtime returned a malformed service account (missing 'id' or 'name').", {
      hint: 'Check that the URL points at a runtime and that the CLI and runtime versions match.',
    });
  }
  return {
    id: value.id,
    name: value.name,
    principal: typeof value.principal === 'string' ? value.principal : `sa:${value.name}`,
    token_prefix: typeof value.token_prefix === 'string' ? value.token_prefix : '',
    scopes: Array.isArray(value.scopes) ? value.scopes.map(scopeText).filter((s): s is string => s !== undefined) : [],
    created_at: epoch(value.created_at),
    expires_at: epoch(value.expires_at),
    last_used_at: epoch(value.last_used_at),
    revoked_at: epoch(value.revoked_at),
  };
}

export function accountJson(a: Account): { [key: string]: JsonValue } {
  return {
    id: a.id,
    name: a.name,
    principal: a.principal,
    token_prefix: a.token_prefix,
    scopes: a.scopes,
    created_at: a.created_at,
    expires_at: a.expires_at,
    last_used_at: a.last_used_at,
    revoked_at: a.revoked_at,
  };
}

/** `2026-01-02 03:04 UTC`, or `-` for none. */
export function formatEpoch(seconds: number | null): string {
  if (seconds === null) return '-';
  return `${new Date(seconds * 1000).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}
