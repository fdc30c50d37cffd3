/**
 * @module mcp/tool-gate
 * Each MCP tool is allowed exactly when its REST twin would be: the gate is asked about the
 * equivalent method and path, so one scope map governs both interfaces.
 */
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
}

export const OPEN_CALLER: McpCaller = { userId: undefined, gate: () => undefined };
