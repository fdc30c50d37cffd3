/**
 * @module run/stored-caller
 * Who a queued or background run acts for, kept with the job that will start it, so the runtime
 * that claims the job (this one or another) hands the run's tool sources the same caller a run
 * started by the request would have had (an MCP server's `headers(ctx)`). Only what `RunCaller`
 * holds is kept: kind, user, scopes, service account, a JWT's verified claims; never the
 * credential (token, key) that proved them.
 */
import type { RunCaller } from '../components/caller.js';

/** The caller as a job's payload keeps it (JSON). */
export function storeCaller(caller: RunCaller): Record<string, unknown> {
  return {
    kind: caller.kind,
    user_id: caller.userId ?? null,
    scopes: [...caller.scopes],
    ...(caller.serviceAccount !== undefined ? { service_account: caller.serviceAccount } : {}),
    ...(caller.claims !== undefined ? { claims: { ...caller.claims } } : {}),
  };
}

/** The caller a job's payload kept; undefined for a run queued without one (or by an older runtime). */
export function storedCaller(value: unknown): RunCaller | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const stored = value as Record<string, unknown>;
  if (typeof stored.kind !== 'string') return undefined;
  const claims = typeof stored.claims === 'object' && stored.claims !== null && !Array.isArray(stored.claims) ? (stored.claims as Record<string, unknown>) : undefined;
  return {
    kind: stored.kind,
    userId: typeof stored.user_id === 'string' ? stored.user_id : undefined,
    scopes: Array.isArray(stored.scopes) ? stored.scopes.filter((s): s is string => typeof s === 'string') : [],
    ...(typeof stored.service_account === 'string' ? { serviceAccount: stored.service_account } : {}),
    ...(claims ? { claims } : {}),
  };
}
