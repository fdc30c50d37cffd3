/**
 * `/agents`, `/teams` and `/workflows`: list, describe, run (streaming or not), cancel, and
 * read runs. The three kinds share one shape, so one factory declares all three.
 */
import { z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { streamSSE } from 'hono/streaming';
import type { HostedComponent } from '../../components/component.js';
import { RuntimeError } from '../../errors.js';
import { isRunnable } from '../../run/execution.js';
import type { RunRecord, SessionType } from '../../sessions/types.js';
import type { AppEnv, ServerContext } from '../context.js';
import { validationError, toFieldErrors } from '../errors.js';
import { apiRoute, listing, scoped, type RouteDefinition } from '../route.js';
import { standardErrors } from '../standard-errors.js';
import { ContinueRequestSchema, RunRequestSchema, RunSchema } from './run-schemas.js';
import { BUDGET_EXCEEDED_RESPONSE } from './budget-schemas.js';
import { IdempotencyHeaders } from '../idempotency.js';
import { toRunResponse } from '../../run/run-response.js';
import { followRun } from './follow-run.js';
import { answerRun, submitRun } from './submit-run.js';
import { parseEventId } from '../../run/run-events.js';
import { inScope } from '../../auth/data-scope.js';

interface Kind {
  type: SessionType;
  plural: 'agents' | 'teams' | 'workflows';
  param: 'agent_id' | 'team_id' | 'workflow_id';
  label: string;
  /** The type with its indefinite article: "an agent", "a team". */
  aType: string;
  tag: string;
}

const KINDS: Kind[] = [
  { type: 'agent', plural: 'agents', param: 'agent_id', label: 'Agent', aType: 'an agent', tag: 'Agents' },
  { type: 'team', plural: 'teams', param: 'team_id', label: 'Team', aType: 'a team', tag: 'Teams' },
  { type: 'workflow', plural: 'workflows', param: 'workflow_id', label: 'Workflow', aType: 'a workflow', tag: 'Workflows' },
];

const ComponentSchema = z
  .object({ id: z.string(), name: z.string(), description: z.string().nullable() })
  .catchall(z.unknown())
  .openapi('Component');

const JSON_AND_FORMS = ['application/json', 'multipart/form-data', 'application/x-www-form-urlencoded'] as const;

function summary(component: HostedComponent): z.infer<typeof ComponentSchema> {
  const details = (component as { details?: () => Record<string, unknown> }).details?.() ?? component.describe?.() ?? {};
  return { ...details, id: component.id, name: component.name ?? component.id, description: component.description ?? null };
}

/** Reads a request body from JSON or a form, already validated by the route's schema. */
function readBody<T>(c: Context<AppEnv>, schema: z.ZodType<T>): T {
  const type = (c.req.header('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  if (type === 'application/json') return c.req.valid('json' as never) as T;
  if (type === 'multipart/form-data' || type === 'application/x-www-form-urlencoded') return c.req.valid('form' as never) as T;
  // No body at all: report the missing fields like any other validation failure.
  const parsed = schema.safeParse({});
  if (!parsed.success) throw validationError(toFieldErrors('body', parsed.error));
  return parsed.data;
}

/** A run belongs to the user who started it: another identified user may not act on it. */
function assertRunOwner(run: RunRecord, userId: string | undefined): void {
  if (userId && run.user_id && run.user_id !== userId) throw new RuntimeError('FORBIDDEN', 'This run belongs to another user');
}

export function componentRoutes(ctx: ServerContext): RouteDefinition[] {
  return KINDS.flatMap((kind) => routesFor(ctx, kind));
}

function routesFor(ctx: ServerContext, kind: Kind): RouteDefinition[] {
  const all = (): readonly HostedComponent[] => ctx[kind.plural];
  /**
   * The run of this component, or 404: also when it is another user's (under user isolation)
   * or another tenant's (auth/data-scope.ts), so its id tells the caller nothing.
   */
  const visibleRun = async (c: Context<AppEnv>, component: HostedComponent, runId: string, scope = ctx.auth.dataScope(c.get('principal'))): Promise<RunRecord> => {
    const run = await ctx.sessions.getRun(runId);
    if (!run || run.session_type !== kind.type || run.component_id !== component.id || !inScope(scope, run)) {
      throw new RuntimeError('NOT_FOUND', 'Run not found');
    }
    return run;
  };
  const find = (id: string): HostedComponent => {
    const found = all().find((c) => c.id === id);
    if (!found) throw new RuntimeError('NOT_FOUND', `${kind.label} not found`);
    return found;
  };
  const idParam = z.object({ [kind.param]: z.string().min(1).openapi({ param: { name: kind.param, in: 'path' } }) });
  const runParams = idParam.extend({ run_id: z.string().min(1).openapi({ param: { name: 'run_id', in: 'path' } }) });
  const base = `/${kind.plural}`;
  const item = `${base}/{${kind.param}}`;


  return [
    apiRoute(
      listing(`${kind.plural}:read`),
      {
        method: 'get',
        path: base,
        operationId: `list${kind.tag}`,
        tags: [kind.tag],
        summary: `List ${kind.plural}`,
        responses: { 200: { description: `The ${kind.plural} this runtime hosts`, content: { 'application/json': { schema: z.array(ComponentSchema) } } }, ...standardErrors },
      },
      (c) => {
        // A caller holding only per-resource read scopes (agents:a1:read) sees just those.
        const visible = c.get('visible') ?? '*';
        return c.json(all().filter((one) => visible === '*' || visible.has(one.id)).map(summary), 200);
      },
    ),
    apiRoute(
      scoped(`${kind.plural}:read`),
      {
        method: 'get',
        path: item,
        operationId: `get${kind.label}`,
        tags: [kind.tag],
        summary: `Describe one ${kind.type}`,
        request: { params: idParam },
        responses: { 200: { description: kind.label, content: { 'application/json': { schema: ComponentSchema } } }, ...standardErrors },
      },
      (c) => c.json(summary(find(c.req.param(kind.param)!)), 200),
    ),
    apiRoute(
      scoped(`${kind.plural}:run`),
      {
        method: 'post',
        path: `${item}/runs`,
        operationId: `run${kind.label}`,
        tags: [kind.tag],
        summary: `Run ${kind.aType}`,
        description:
          'With `stream` true (the default) the answer is a stream of server-sent events, `event: <Name>` then a JSON `data:` line ' +
          '(RunStarted, RunContent, ToolCallStarted, ToolCallProgress (an MCP tool reporting progress), ToolCallCompleted, RunCompleted, RunError, RunCancelled; Team* variants for teams; ' +
          'WorkflowStarted, StepStarted, StepCompleted, WorkflowCompleted, WorkflowError for workflows). Failures during a run arrive as ' +
          'an error event; the HTTP status stays 200. With `stream` false the finished run is returned. Each event has an `id`: after a ' +
          'lost connection, the run\'s events route with `Last-Event-ID` sends what was missed, from any runtime. Closing the connection ' +
          'cancels the run unless `on_disconnect` is `continue`. With `background` true the answer is 202 with the run (PENDING) at once. ' +
          'A message for a session with a run in progress follows `multitask_strategy`. An `Idempotency-Key` header makes a repeat within ' +
          '24 hours answer the same run (header `Idempotent-Replayed: true`); the same key with another body is 409 IDEMPOTENCY_KEY_REUSED.',
        request: {
          params: idParam,
          headers: IdempotencyHeaders,
          // Not `required`: the validator then checks only the content type that was sent.
          body: { required: false, content: Object.fromEntries(JSON_AND_FORMS.map((t) => [t, { schema: RunRequestSchema }])) },
        },
        responses: {
          200: {
            description: 'The run (stream=false) or its events (stream=true)',
            content: { 'application/json': { schema: RunSchema }, 'text/event-stream': { schema: z.string() } },
          },
          202: { description: 'A background run, recorded and queued (status PENDING)', content: { 'application/json': { schema: RunSchema } } },
          409: standardErrors[400],
          415: standardErrors[400],
          429: BUDGET_EXCEEDED_RESPONSE,
          ...standardErrors,
        },
      },
      async (c) => {
        const component = find(c.req.param(kind.param)!);
        const body = readBody(c, RunRequestSchema);
        if (!isRunnable(component)) {
          throw new RuntimeError('BAD_REQUEST', `${kind.label} '${component.id}' cannot be run: it is not a runnable ${kind.type}`);
        }
        return submitRun(c, ctx, component, body);
      },
    ),
    apiRoute(
      scoped(`${kind.plural}:run`),
      {
        method: 'post',
        path: `${item}/runs/{run_id}/continue`,
        operationId: `continue${kind.label}Run`,
        tags: [kind.tag],
        summary: `Continue a paused ${kind.type} run`,
        description:
          'A run pauses (status PAUSED, event RunPaused) when the model calls a tool declared with `requiresConfirmation`. Send a ' +
          'decision for each waiting call: confirmed calls run, declined ones are reported to the model as declined, and the run ' +
          'goes on under the same run id. Events start with RunContinued. 409 when the run is not paused.',
        request: {
          params: runParams,
          body: { required: false, content: Object.fromEntries(JSON_AND_FORMS.map((t) => [t, { schema: ContinueRequestSchema }])) },
        },
        responses: {
          200: {
            description: 'The run (stream=false) or its events (stream=true)',
            content: { 'application/json': { schema: RunSchema }, 'text/event-stream': { schema: z.string() } },
          },
          409: standardErrors[400],
          429: BUDGET_EXCEEDED_RESPONSE,
          ...standardErrors,
        },
      },
      async (c) => {
        const component = find(c.req.param(kind.param)!);
        const body = readBody(c, ContinueRequestSchema);
        if (!isRunnable(component)) throw new RuntimeError('NOT_FOUND', 'Run not found');
        const run = await ctx.runner.continue({
          component,
          runId: c.req.param('run_id')!,
          sessionId: body.session_id,
          userId: c.get('principal')?.userId ?? body.user_id,
          tenantId: ctx.auth.tenantOf(c.get('principal')),
          unconfined: ctx.auth.isAdmin(c.get('principal')),
          principal: c.get('principal'),
          decisions: body.tools,
        });
        return answerRun(c, run, body.stream !== false, 'cancel');
      },
    ),
    apiRoute(
      scoped(`${kind.plural}:run`),
      {
        method: 'post',
        path: `${item}/runs/{run_id}/cancel`,
        operationId: `cancel${kind.label}Run`,
        tags: [kind.tag],
        summary: `Cancel ${kind.aType} run`,
        request: { params: runParams },
        responses: {
          200: {
            description:
              'Whether this request stopped the run, and its status. A run that had already ended is left as it was ' +
              '(`already_finished` true). A run executing in another runtime on the same database is asked to stop there.',
            content: {
              'application/json': {
                schema: z.object({ run_id: z.string(), cancelled: z.boolean(), status: z.string(), already_finished: z.boolean() }),
              },
            },
          },
          ...standardErrors,
        },
      },
      async (c) => {
        const component = find(c.req.param(kind.param)!);
        const runId = c.req.param('run_id')!;
        // Another tenant's run is missing; another user's is refused (403), as it always was.
        const tenant = ctx.auth.tenantOf(c.get('principal'));
        const run = await visibleRun(c, component, runId, tenant !== undefined ? { tenant } : {});
        if (!ctx.auth.isAdmin(c.get('principal'))) assertRunOwner(run, c.get('principal')?.userId);
        const outcome = await ctx.runner.cancel(runId);
        return c.json({ run_id: runId, cancelled: outcome.cancelled, status: outcome.status, already_finished: outcome.alreadyFinished }, 200);
      },
    ),
    apiRoute(
      scoped(`${kind.plural}:read`),
      {
        method: 'get',
        path: `${item}/runs`,
        operationId: `list${kind.label}Runs`,
        tags: [kind.tag],
        summary: `List the runs of ${kind.aType}`,
        request: {
          params: idParam,
          query: z.object({
            session_id: z.string().optional(),
            status: z.enum(['PENDING', 'RUNNING', 'COMPLETED', 'PAUSED', 'CANCELLED', 'ERROR']).optional(),
          }),
        },
        responses: { 200: { description: 'Runs, oldest first', content: { 'application/json': { schema: z.array(RunSchema) } } }, ...standardErrors },
      },
      async (c) => {
        const component = find(c.req.param(kind.param)!);
        const query = c.req.valid('query');
        const scope = ctx.auth.dataScope(c.get('principal'));
        const runs = await ctx.sessions.listRuns({
          session_type: kind.type,
          component_id: component.id,
          user_id: scope.user,
          tenant_id: scope.tenant,
          ...(query.session_id ? { session_id: query.session_id } : {}),
          ...(query.status ? { status: query.status } : {}),
        });
        return c.json(runs.map((r) => toRunResponse(r)), 200);
      },
    ),
    apiRoute(
      scoped(`${kind.plural}:read`),
      {
        method: 'get',
        path: `${item}/runs/{run_id}/events`,
        operationId: `follow${kind.label}RunEvents`,
        tags: [kind.tag],
        summary: `Follow the events of ${kind.type === 'agent' ? 'an' : 'a'} ${kind.type} run`,
        description:
          'Server-sent events of the run as it streamed them, from any runtime sharing the database: the stored events first, ' +
          'then new ones as they are stored (within about a quarter second), ending when the run completes, fails, is cancelled ' +
          'or pauses. Each event has an `id`; reconnect with `Last-Event-ID` (or `?after=`) to resume, on any runtime: every event is ' +
          'sent once, none missed. A text delta\'s id may be `<index>:<characters>` (the rest of that event follows). Text deltas may arrive merged. ' +
          'Unlike the run request, closing this stream does not cancel the run.',
        request: {
          params: runParams,
          query: z.object({
            after: z
              .string()
              .regex(/^\d{1,15}(:\d{1,15})?$/, 'an event id: a number, or <number>:<characters> for a text event')
              .optional()
              .openapi({ description: 'Send only events after this id (as `Last-Event-ID`, which wins when both are sent)' }),
          }),
        },
        responses: {
          200: { description: 'The events', content: { 'text/event-stream': { schema: z.string() } } },
          ...standardErrors,
        },
      },
      async (c) => {
        const component = find(c.req.param(kind.param)!);
        const runId = c.req.param('run_id')!;
        await visibleRun(c, component, runId);
        const after = parseEventId(c.req.header('last-event-id')) ?? parseEventId(c.req.valid('query').after) ?? { seq: 0 };
        return streamSSE(c, (sse) => followRun(sse, { runId, after, events: ctx.runner.events, sessions: ctx.sessions, bus: ctx.db.notifications() }));
      },
    ),
    apiRoute(
      scoped(`${kind.plural}:read`),
      {
        method: 'get',
        path: `${item}/runs/{run_id}`,
        operationId: `get${kind.label}Run`,
        tags: [kind.tag],
        summary: `Get one run of ${kind.aType}`,
        request: { params: runParams },
        responses: { 200: { description: 'The run, with its messages', content: { 'application/json': { schema: RunSchema } } }, ...standardErrors },
      },
      async (c) => {
        const component = find(c.req.param(kind.param)!);
        const run = await visibleRun(c, component, c.req.param('run_id')!);
        return c.json(toRunResponse(run, { messages: true }), 200);
      },
    ),
  ];
}
