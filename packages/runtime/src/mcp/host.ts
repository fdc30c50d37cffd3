/**
 * @module mcp/host
 * What the MCP tools need of the runtime that serves them: its identity, its components, and
 * its runner and sessions. The server passes itself; the tools know nothing else of it.
 */
import type { HostedComponent } from '../components/component.js';
import type { Runner } from '../run/runner.js';
import type { DurableRuns } from '../run/durable-runs.js';
import type { SessionStore } from '../sessions/session-store.js';

export interface McpHost {
  readonly id: string;
  readonly name: string;
  readonly description: string | undefined;
  readonly version: string;
  /** The runtime's database, by id (reported by get_config). */
  readonly db: { readonly id: string };
  readonly agents: readonly HostedComponent[];
  readonly teams: readonly HostedComponent[];
  readonly workflows: readonly HostedComponent[];
  readonly runner: Pick<Runner, 'start' | 'cancel' | 'continue' | 'cancelMcpRequest'>;
  /** Background runs (run tools with `background`). */
  readonly durable: Pick<DurableRuns, 'submit'>;
  readonly sessions: Pick<SessionStore, 'getRun' | 'getSession' | 'listRuns' | 'listSessions'>;
}
