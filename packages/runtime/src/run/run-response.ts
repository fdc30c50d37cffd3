/**
 * @module run/run-response
 * A run as clients see it (REST and MCP alike): the stored record under the wire's field names,
 * with the component's id under agent_id, team_id or workflow_id.
 */
import type { RunMetrics, RunRecord, RunStatus, SessionType, ToolExecution } from '../sessions/types.js';

export interface RunResponse {
  run_id: string;
  session_id: string;
  agent_id?: string;
  team_id?: string;
  workflow_id?: string;
  user_id: string | null;
  status: RunStatus;
  input: { message: string };
  content: string | null;
  content_type: 'str';
  error: string | null;
  tools: ToolExecution[];
  metrics: RunMetrics;
  messages?: Record<string, unknown>[];
  created_at: number;
  updated_at: number;
}

const ID_FIELD: Record<SessionType, 'agent_id' | 'team_id' | 'workflow_id'> = {
  agent: 'agent_id',
  team: 'team_id',
  workflow: 'workflow_id',
};

export function toRunResponse(run: RunRecord, options: { messages?: boolean } = {}): RunResponse {
  return {
    run_id: run.run_id,
    session_id: run.session_id,
    [ID_FIELD[run.session_type]]: run.component_id,
    user_id: run.user_id,
    status: run.status,
    input: run.input,
    content: run.content,
    content_type: 'str',
    error: run.error,
    tools: run.tools,
    metrics: run.metrics,
    ...(options.messages ? { messages: run.messages as unknown as Record<string, unknown>[] } : {}),
    created_at: run.created_at,
    updated_at: run.updated_at,
  };
}
