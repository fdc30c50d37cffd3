/**
 * @module mcp/tool-gate
 * Each MCP tool is allowed exactly when its REST twin would be: the gate is asked about the
 * equivalent method and path, so one scope map governs both interfaces.
 */
import { inScope, type DataScope } from '../auth/data-scope.js';
import { RuntimeError } from '../errors.js';
import type { RunCaller } from '../components/caller.js';

/** Returns undefined when allowed, else the reason (e.g. "Insufficient permissions. ..."). */
export type ToolGate = (method: string, path: string) => string | undefined;

/** The caller as the MCP tools see it. */
export interface McpCaller {
  /** The authenticated user (JWT `sub`, `sa:<name>` for tokens); forced onto runs when set. */
  userId: string | undefined;
  /** An admin: its runs' data reads are not confined to its user (auth/user-scope.ts). */
  admin?: boolean;
  /** The authenticated principal, handed to the runs it starts (their tool sources' `headers(ctx)`). */
  principal?: RunCaller;
  gate: ToolGate;
  /** Narrows listings (config) to what the caller may read; undefined means everything. */
  canRead?: (kind: 'agents' | 'teams' | 'workflows', id: string) => boolean;
  /** The user whose memories the caller may reach (undefined: everyone's); throws for a token naming no user. */
  memoryOwner?: () => string | undefined;
  /**
   * What the caller's reads are confined to (auth/data-scope.ts): its user under user isolation
   * (a service account always), its tenant under tenancy; undefined: nothing (admins, open runtimes).
   */
  scope?: () => DataScope;
  /** The caller's tenant under tenancy; undefined: every tenant (global admins, tenancy off). */
  tenant?: () => string | undefined;
}

export const OPEN_CALLER: McpCaller = { userId: undefined, gate: () => undefined };

/**
 * What the session and run tools show `caller`: its tenant under tenancy, and its own user
 * unless it is an admin. Stricter than REST's user isolation on purpose, as these tools always
 * were: a caller with a user sees only its own sessions, isolation or not.
 */
export function confinement(caller: McpCaller): DataScope {
  const scope = caller.scope?.() ?? {};
  if (caller.admin === true) return scope;
  const user = scope.user ?? caller.userId;
  return user !== undefined ? { ...scope, user } : scope;
}

/** Refuses a run outside `caller`'s confinement: another tenant's is missing, another user's forbidden. */
export function assertRunVisible(run: { run_id: string; user_id: string | null; tenant_id?: string | null | undefined }, caller: McpCaller): void {
  const scope = confinement(caller);
  if (scope.tenant !== undefined && !inScope({ tenant: scope.tenant }, run)) throw new RuntimeError('NOT_FOUND', `Run ${run.run_id} not found`);
  if (scope.user !== undefined && run.user_id && run.user_id !== scope.user) throw new RuntimeError('FORBIDDEN', 'This run belongs to another user');
}
