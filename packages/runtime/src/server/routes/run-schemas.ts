/**
 * Request and response schemas shared by the agent, team and workflow run routes.
 */
import { z } from '@hono/zod-openapi';

const booleanish = z
  .union([z.boolean(), z.enum(['true', 'false', 'True', 'False', '1', '0', 'yes', 'no'])])
  .transform((v) => (typeof v === 'boolean' ? v : ['true', 'True', '1', 'yes'].includes(v)));

export const RunRequestSchema = z
  .object({
    message: z.string().trim().min(1, 'message must not be empty').max(200_000).openapi({ example: 'What is the weather in Paris?' }),
    stream: booleanish.optional().openapi({ type: 'boolean', description: 'Server-sent events (default true) or one JSON answer' }),
    session_id: z.string().trim().min(1).max(128).optional().openapi({ description: 'Continue this session; a new one is created when absent' }),
    user_id: z.string().trim().min(1).max(256).optional(),
    // Webhooks (issue 22, point 5): kept on lines of their own.
    webhook: z.string().trim().min(1).max(2048).optional().openapi({
      description:
        'Posts the ended run (COMPLETED, ERROR or CANCELLED) to this URL, signed: `X-Svc-Signature: t=<unix>,v1=<hex HMAC-SHA256 of "<t>.<body>" under WEBHOOK_SECRET>`. ' +
        'Retried with backoff on a non-2xx answer; attempts are listed at .../runs/{run_id}/webhooks. 422 when WEBHOOK_SECRET is unset, 400 for a URL the SSRF guard refuses.',
    }),
    // Durable runs (docs/ARCHITECTURE.md, "Durable runs"):
    background: booleanish.optional().openapi({
      type: 'boolean',
      description: 'Answer 202 with the run at once; it executes on any runtime sharing the database and outlives this request. Read it with the run and events routes',
    }),
    on_disconnect: z.enum(['cancel', 'continue']).optional().openapi({
      description: 'What a client going away does to the run: cancel it (the default for a plain request) or let it finish (the default for a background run)',
    }),
    multitask_strategy: z.enum(['reject', 'enqueue', 'interrupt']).optional().openapi({
      description:
        'When the session has a run in progress: reject (409, the default), enqueue (run after it, in order, on any runtime), or interrupt (cancel it, then run)',
    }),
  })
  .openapi('RunRequest');

export type RunRequest = z.infer<typeof RunRequestSchema>;


const DecisionSchema = z.object({
  tool_call_id: z.string().min(1),
  confirmed: booleanish.openapi({ type: 'boolean', description: 'true runs the call; false declines it (the model is told)' }),
});

/** Forms carry `tools` as a JSON string; JSON bodies may send the array itself. */
const DecisionsSchema = z.preprocess((value, ctx) => {
  if (typeof value !== 'string') return value;
  try {
    return JSON.parse(value) as unknown;
  } catch {
    ctx.addIssue({ code: 'custom', message: 'Invalid JSON in tools field' });
    return z.NEVER;
  }
}, z.array(DecisionSchema));

export const ContinueRequestSchema = z
  .object({
    tools: DecisionsSchema.openapi({
      description: 'A decision for every tool call the run waits on: `[{"tool_call_id": "...", "confirmed": true}]` (a JSON string in forms)',
    }),
    stream: booleanish.optional().openapi({ type: 'boolean', description: 'Server-sent events (default true) or one JSON answer' }),
    session_id: z.string().trim().min(1).max(128).optional().openapi({ description: 'When given, the run must belong to this session' }),
    user_id: z.string().trim().min(1).max(256).optional(),
  })
  .openapi('ContinueRequest');

export type ContinueRequest = z.infer<typeof ContinueRequestSchema>;

const ToolExecutionSchema = z.object({
  tool_call_id: z.string(),
  tool_name: z.string(),
  tool_args: z.string(),
  result: z.string().nullable(),
  error: z.string().nullable(),
  by: z.string().optional(),
  requires_confirmation: z.boolean().optional(),
  confirmed: z.boolean().nullable().optional(),
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
