/**
 * @module sessions/types
 * Sessions and runs as stored and as returned by the API. A session is a conversation with one
 * agent, team or workflow; each run is one message in and one answer out.
 */
import type { ChatMessage } from '../model/model.js';

export type SessionType = 'agent' | 'team' | 'workflow';
export const SESSION_TYPES: readonly SessionType[] = ['agent', 'team', 'workflow'];

export type RunStatus = 'PENDING' | 'RUNNING' | 'COMPLETED' | 'PAUSED' | 'CANCELLED' | 'ERROR';

export interface SessionRecord {
  session_id: string;
  session_type: SessionType;
  component_id: string;
  user_id: string | null;
  /** The tenant it belongs to (auth/tenancy.ts); null without tenancy or for older rows. */
  tenant_id?: string | null;
  session_name: string | null;
  session_state: Record<string, unknown> | null;
  metadata: Record<string, unknown> | null;
  /** Unix epoch seconds */
  created_at: number;
  updated_at: number;
}

/** One tool call made during a run, with its outcome. */
export interface ToolExecution {
  tool_call_id: string;
  tool_name: string;
  tool_args: string;
  result: string | null;
  error: string | null;
  /** The member or step that made the call, for teams and workflows. */
  by?: string;
  /** Set on calls of tools that need a person's approval: null while the run waits. */
  requires_confirmation?: boolean;
  confirmed?: boolean | null;
}

export interface RunMetrics {
  input_tokens: number;
  output_tokens: number;
  total_tokens: number;
  /** Wall time of the run in seconds. */
  duration: number;
}

export interface RunRecord {
  run_id: string;
  session_id: string;
  session_type: SessionType;
  component_id: string;
  user_id: string | null;
  /** Its session's tenant, written with the run; null without tenancy. */
  tenant_id?: string | null;
  status: RunStatus;
  input: { message: string };
  content: string | null;
  /** The conversation of this run (user message, assistant and tool turns), for history. */
  messages: ChatMessage[];
  tools: ToolExecution[];
  metrics: RunMetrics;
  error: string | null;
  /** Milliseconds since the epoch; orders runs that start in the same second. */
  started_ms: number;
  created_at: number;
  updated_at: number;
}

export function emptyMetrics(): RunMetrics {
  return { input_tokens: 0, output_tokens: 0, total_tokens: 0, duration: 0 };
}

export function epochSeconds(ms = Date.now()): number {
  return Math.floor(ms / 1000);
}

/** A call of a tool that needs confirmation, on which nobody has decided yet. */
export function isWaitingForDecision(t: ToolExecution): boolean {
  return t.requires_confirmation === true && (t.confirmed === null || t.confirmed === undefined);
}
