/**
 * Request and response schemas shared by the agent, team and workflow run routes.
 */
import { z } from '@hono/zod-openapi';
import type { RunRecord, SessionType } from '../../sessions/types.js';

const booleanish = z
  .union([z.boolean(), z.enum(['true', 'false', 'True', 'False', '1', '0', 'yes', 'no'])])
  .transform((v) => (typeof v === 'boolean' ? v : ['true', 'True', '1', 'yes'].includes(v)));

export const RunRequestSchema = z
  .object({
    message: z.string().trim().min(1, 'message must not be empty').max(200_000).openapi({ example: 'What is the weather in Paris?' }),
    stream: booleanish.optional().openapi({ type: 'boolean', description: 'Server-sent events (default true) or one JSON answer' }),
    session_id: z.string().trim().min(1).max(128).optional().openapi({ description: 'Continue this session; a new one is created when absent' }),
    user_id: z.string().trim().min(1).max(256).optional(),
  })
  .openapi('RunRequest');

export type RunRequest = z.infer<typeof RunRequestSchema>;

const ToolExecutionSchema = z.object({
  tool_call_id: z.string(),
  tool_name: z.string(),
  tool_args: z.string(),
  result: z.string().nullable(),
  error: z.string().nullable(),
  by: z.string().optional(),
});

export const RunSchema = z
  .object({
    run_id: z.string(),
    session_id: z.string(),
    agent_id: z.string().optional(),
    team_id: z.string().optional(),
    workflow_id: z.string().optional(),
    user_id: z.string().nullable(),
    status: z.enum(['PENDING', 'RUNNING', 'COMPLETED', 'PAUSED', 'CANCELLED', 'ERROR']),
    input: z.object({ message: z.string() }),
    content: z.string().nullable(),
    content_type: z.literal('str'),
    error: z.string().nullable(),
    tools: z.array(ToolExecutionSchema),
    metrics: z.object({ input_tokens: z.number(), output_tokens: z.number(), total_tokens: z.number(), duration: z.number() }),
    messages: z.array(z.record(z.string(), z.unknown())).optional(),
    created_at: z.number().int(),
    updated_at: z.number().int(),
  })
  .openapi('Run');

export type RunResponse = z.infer<typeof RunSchema>;

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
