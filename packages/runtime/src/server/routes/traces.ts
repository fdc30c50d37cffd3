/**
 * `/traces` and `/metrics`: what every run did (a filtered page of runs, one run's span tree)
 * and usage over a window. A caller with a user (not an admin) sees only its own runs.
 */
import { z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { badRequest } from '../../errors.js';
import type { TraceFilter } from '../../traces/trace-store.js';
import type { AppEnv, ServerContext } from '../context.js';
import { apiRoute, scoped, type RouteDefinition } from '../route.js';
import { standardErrors } from '../standard-errors.js';

// RUNNING: a run in progress, or one whose runtime died and has not been swept yet.
const RUN_STATUSES = ['RUNNING', 'COMPLETED', 'ERROR', 'CANCELLED', 'PAUSED'] as const;
const DAY_MS = 86_400_000;

const TraceSchema = z
  .object({
    run_id: z.string(),
    session_id: z.string(),
    component_type: z.enum(['agent', 'team', 'workflow']),
    component_id: z.string(),
    user_id: z.string().nullable(),
    status: z.string(),
    error: z.string().nullable(),
    start_ms: z.number().int(),
    end_ms: z.number().int(),
    duration_ms: z.number().int(),
    input_tokens: z.number().int(),
    output_tokens: z.number().int(),
  })
  .openapi('Trace');

type SpanJson = {
  span_id: string;
  parent_id: string | null;
  kind: string;
  name: string;
  start_ms: number;
  end_ms: number;
  status: string;
  input_tokens: number | null;
  output_tokens: number | null;
  attributes: Record<string, unknown>;
  children: SpanJson[];
};

const SpanSchema: z.ZodType<SpanJson> = z
  .object({
    span_id: z.string(),
    parent_id: z.string().nullable(),
    kind: z.string().openapi({ description: 'run, model, tool, knowledge, member or step' }),
    name: z.string(),
    start_ms: z.number().int(),
    end_ms: z.number().int(),
    status: z.string().openapi({ description: 'ok, error or cancelled' }),
    input_tokens: z.number().int().nullable(),
    output_tokens: z.number().int().nullable(),
    attributes: z.record(z.string(), z.unknown()),
    children: z.array(z.lazy(() => SpanSchema)),
  })
  .openapi('Span');

const UsageFields = {
  date: z.string(),
  runs: z.number().int(),
  errors: z.number().int(),
  input_tokens: z.number().int(),
  output_tokens: z.number().int(),
  p50_latency_ms: z.number(),
  p95_latency_ms: z.number(),
  cost: z.number().nullable().openapi({ description: 'USD, from the MODEL_PRICES_JSON price table; null without one, or when a model call in the group has no price' }),
};

const MetricsSchema = z
  .object({
    from_ms: z.number().int(),
    to_ms: z.number().int(),
    days: z.array(z.object(UsageFields)),
    components: z.array(z.object({ ...UsageFields, component_type: z.string(), component_id: z.string() })),
    models: z.array(z.object({ ...UsageFields, provider: z.string(), model: z.string() }).openapi({ description: '`runs` counts model calls' })),
  })
  .openapi('Metrics');

const epochMs = z.coerce.number().int().min(0).max(8_640_000_000_000_000);

// The tenant stays inside: a caller only ever sees its own tenant's runs.
const toJson = <T extends { trace_id: string; tenant_id?: string | null }>({ trace_id, tenant_id: _tenant, ...rest }: T) => ({ run_id: trace_id, ...rest });

/** Which component the query names: at most one of agent_id, team_id, workflow_id. */
function componentFilter(q: { agent_id?: string | undefined; team_id?: string | undefined; workflow_id?: string | undefined }): TraceFilter {
  const named = (['agent', 'team', 'workflow'] as const).filter((k) => q[`${k}_id`] !== undefined);
  if (named.length > 1) throw badRequest('Name at most one of agent_id, team_id, workflow_id');
  const type = named[0];
  return type ? { componentType: type, componentId: q[`${type}_id`] } : {};
}

export function traceRoutes(ctx: ServerContext): RouteDefinition[] {
  /** The user whose runs the caller may see: its own (admins and callers without a user see all). */
  // Under tenancy every caller but a global admin is also held to its tenant (tenantOf).
  const viewer = (c: Context<AppEnv>): string | undefined => {
    const principal = c.get('principal');
    if (ctx.auth.isAdmin(principal)) return undefined;
    // Under isolation a token naming no user is refused here rather than shown every run.
    return principal?.userId || ctx.auth.scopedUserId(principal);
  };

  return [
    apiRoute(
      scoped('traces:read'),
      {
        method: 'get',
        path: '/traces',
        operationId: 'listTraces',
        tags: ['Traces'],
        summary: 'List runs with their timing, status and tokens, newest first',
        request: {
          query: z.object({
            agent_id: z.string().min(1).optional(),
            team_id: z.string().min(1).optional(),
            workflow_id: z.string().min(1).optional(),
            session_id: z.string().min(1).optional(),
            user_id: z.string().min(1).optional(),
            status: z.enum(RUN_STATUSES).optional(),
            from: epochMs.optional().openapi({ description: 'Runs started at or after this time (epoch ms)' }),
            to: epochMs.optional().openapi({ description: 'Runs started before this time (epoch ms)' }),
            min_duration_ms: epochMs.optional(),
            limit: z.coerce.number().int().min(1).max(100).default(20),
            cursor: z.string().max(512).optional().openapi({ description: 'The `next_cursor` of the previous page' }),
          }),
        },
        responses: {
          200: {
            description: 'A page of runs',
            content: { 'application/json': { schema: z.object({ data: z.array(TraceSchema), meta: z.object({ limit: z.number().int(), next_cursor: z.string().nullable() }) }) } },
          },
          ...standardErrors,
        },
      },
      async (c) => {
        const q = c.req.valid('query');
        const filter: TraceFilter = {
          ...componentFilter(q),
          sessionId: q.session_id,
          userId: q.user_id,
          status: q.status,
          fromMs: q.from,
          toMs: q.to,
          minDurationMs: q.min_duration_ms,
        };
        const page = await ctx.traces.list(filter, q.limit, q.cursor, viewer(c), ctx.auth.tenantOf(c.get('principal')));
        return c.json({ data: page.data.map(toJson), meta: { limit: q.limit, next_cursor: page.next_cursor } }, 200);
      },
    ),
    apiRoute(
      scoped('traces:read'),
      {
        method: 'get',
        path: '/traces/{run_id}',
        operationId: 'getTrace',
        tags: ['Traces'],
        summary: "Get a run's span tree: model calls, tool calls, knowledge searches, members and steps",
        request: { params: z.object({ run_id: z.string().min(1).openapi({ param: { name: 'run_id', in: 'path' } }) }) },
        responses: {
          200: { description: 'The run and its spans', content: { 'application/json': { schema: TraceSchema.extend({ spans: z.array(SpanSchema) }).openapi('TraceTree') } } },
          ...standardErrors,
        },
      },
      async (c) => {
        const { trace, spans } = await ctx.traces.tree(c.req.valid('param').run_id, viewer(c), ctx.auth.tenantOf(c.get('principal')));
        return c.json({ ...toJson(trace), spans }, 200);
      },
    ),
    apiRoute(
      scoped('metrics:read'),
      {
        method: 'get',
        path: '/metrics',
        operationId: 'getMetrics',
        tags: ['Traces'],
        summary: 'Usage per day, per component and per model: runs, errors, tokens, p50/p95 latency',
        request: {
          query: z.object({
            from: epochMs.optional().openapi({ description: 'Start of the window (epoch ms); default 7 days before `to`' }),
            to: epochMs.optional().openapi({ description: 'End of the window (epoch ms, exclusive); default now' }),
          }),
        },
        responses: { 200: { description: 'Usage in the window (UTC days)', content: { 'application/json': { schema: MetricsSchema } } }, ...standardErrors },
      },
      async (c) => {
        const q = c.req.valid('query');
        const to = q.to ?? Date.now();
        return c.json(await ctx.traces.metrics(q.from ?? to - 7 * DAY_MS, to, viewer(c), ctx.auth.tenantOf(c.get('principal'))), 200);
      },
    ),
  ];
}
