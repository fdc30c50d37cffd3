/**
 * @module mcp/mcp-tools
 * The built-in MCP tools (the memory tools are in memory-tools.ts, get_run in get-run-tool.ts): configuration, running agents, teams and workflows (with
 * progress notifications), cancelling and continuing runs, and reading sessions.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult, ServerNotification } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { HostedComponent } from '../components/component.js';
import { RuntimeError } from '../errors.js';
import type { Runnable } from '../run/execution.js';
import type { StartedRun, StartRunInput } from '../run/runner.js';
import type { McpHost } from './host.js';
import { toRunResponse } from '../run/run-response.js';
import type { SessionType } from '../sessions/types.js';
import { assertRunVisible, confinement, type McpCaller } from './tool-gate.js';
import { inScope } from '../auth/data-scope.js';
import { requestDigest, type InFlightCalls } from './in-flight.js';
import { cancelResult, CANCEL_OUTPUT, RUN_OUTPUT, runResult } from './run-result.js';

/** What the tools of one MCP request know about it. */
export interface ToolContext {
  caller: McpCaller;
  /** The client connection (identity and MCP session), see connectionKey. */
  connection: string;
  inFlight: InFlightCalls;
  /** Aborts when the client hangs up the HTTP request carrying the call. */
  httpSignal: AbortSignal;
}

type Extra = {
  signal: AbortSignal;
  requestId: string | number;
  _meta?: { progressToken?: string | number } | undefined;
  sendNotification: (notification: ServerNotification) => Promise<void>;
};

const DECISIONS = z.array(z.object({ tool_call_id: z.string().min(1), confirmed: z.boolean() }));

export const PLURAL: Record<SessionType, 'agents' | 'teams' | 'workflows'> = { agent: 'agents', team: 'teams', workflow: 'workflows' };
const LABEL: Record<SessionType, string> = { agent: 'Agent', team: 'Team', workflow: 'Workflow' };

function json(value: unknown): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(value) }], structuredContent: value as Record<string, unknown> };
}

function failure(message: string): CallToolResult {
  return { content: [{ type: 'text', text: message }], isError: true };
}

/** Runs a tool body; refusals and typed errors become tool errors the client can show. */
export async function guarded(body: () => Promise<CallToolResult>): Promise<CallToolResult> {
  try {
    return await body();
  } catch (error) {
    if (RuntimeError.isInstance(error) && error.status < 500) return failure(error.message);
    return failure('The tool failed because of an internal error');
  }
}

export function deny(caller: McpCaller, method: string, path: string): void {
  const reason = caller.gate(method, path);
  if (reason) throw new RuntimeError('FORBIDDEN', reason);
}

function summary(c: HostedComponent) {
  return { id: c.id, name: c.name ?? c.id, description: c.description ?? null };
}

/** The one component a run-targeting tool names: exactly one of agent_id, team_id or workflow_id. */
function pick(args: Record<string, string | undefined>): { type: SessionType; id: string } {
  const given = (['agent', 'team', 'workflow'] as const).filter((t) => args[`${t}_id`]);
  if (given.length !== 1) throw new RuntimeError('BAD_REQUEST', 'Provide exactly one of agent_id, team_id, or workflow_id');
  return { type: given[0]!, id: args[`${given[0]!}_id`]! };
}

const ComponentSummary = z.object({ id: z.string(), name: z.string(), description: z.string().nullable() });

export function registerTools(server: McpServer, ctx: McpHost, tools: ToolContext): void {
  const { caller } = tools;
  const readable = (kind: 'agents' | 'teams' | 'workflows', list: readonly HostedComponent[]) =>
    list.filter((c) => caller.canRead?.(kind, c.id) ?? true).map(summary);

  server.registerTool(
    'get_agentos_config',
    {
      description: 'Describe this runtime: its id, databases, and the agents, teams and workflows you can run.',
      outputSchema: {
        os_id: z.string(),
        name: z.string(),
        description: z.string().nullable(),
        databases: z.array(z.string()),
        agents: z.array(ComponentSummary),
        teams: z.array(ComponentSummary),
        workflows: z.array(ComponentSummary),
      },
      annotations: { readOnlyHint: true, idempotentHint: true },
    },
    () =>
      guarded(async () => {
        deny(caller, 'GET', '/config');
        return json({
          os_id: ctx.id,
          name: ctx.name,
          description: ctx.description ?? null,
          databases: [ctx.db.id],
          agents: readable('agents', ctx.agents),
          teams: readable('teams', ctx.teams),
          workflows: readable('workflows', ctx.workflows),
        });
      }),
  );

  for (const type of ['agent', 'team', 'workflow'] as const) {
    const idKey = `${type}_id` as const;
    server.registerTool(
      `run_${type}`,
      {
        description:
          `Run ${type === 'agent' ? 'an' : 'a'} ${type} with a message and return its answer (content). Pass session_id to continue a conversation. ` +
          'With background true it answers at once with the run_id (status PENDING) and the run goes on without this call; read it with get_run.',
        outputSchema: RUN_OUTPUT,
        inputSchema: {
          [idKey]: z.string().min(1).describe(`Id of the ${type} (see get_agentos_config)`),
          message: z.string().min(1).describe('The message or task'),
          user_id: z.string().optional(),
          session_id: z.string().optional().describe('Continue this session; a new one is created when omitted'),
          background: z.boolean().optional().describe('Return at once with the run_id; the run continues on the server (read it with get_run)'),
        },
        annotations: { readOnlyHint: false, openWorldHint: true },
      },
      (args: Record<string, string | boolean | undefined>, extra: Extra) =>
        guarded(async () => {
          const id = args[idKey] as string;
          deny(caller, 'POST', `/${PLURAL[type]}/${encodeURIComponent(id)}/runs`);
          const component = ctx[PLURAL[type]].find((c) => c.id === id);
          if (!component) throw new RuntimeError('NOT_FOUND', `${LABEL[type]} ${id} not found`);
          if (typeof (component as Runnable).execute !== 'function') throw new RuntimeError('BAD_REQUEST', `${LABEL[type]} ${id} cannot be run`);
          if (args.background === true) return startInBackground(ctx, component as Runnable, args as Record<string, string | undefined>, tools);
          return runWithProgress(ctx, component as Runnable, args as Record<string, string | undefined>, tools, extra);
        }),
    );
  }

  const target = {
    run_id: z.string().min(1),
    session_id: z.string().optional(),
    agent_id: z.string().optional(),
    team_id: z.string().optional(),
    workflow_id: z.string().optional(),
  };
  const findRun = async (type: SessionType, id: string, runId: string, sessionId: string | undefined) => {
    const run = await ctx.sessions.getRun(runId);
    if (!run || run.session_type !== type || run.component_id !== id || (sessionId && run.session_id !== sessionId)) {
      throw new RuntimeError('NOT_FOUND', `Run ${runId} not found`);
    }
    return run;
  };

  server.registerTool(
    'cancel_run',
    {
      description: 'Stop a run that is still in progress (or paused). A run that has already finished is left as it is.',
      inputSchema: target,
      outputSchema: CANCEL_OUTPUT,
      annotations: { destructiveHint: true, idempotentHint: true },
    },
    (args: Record<string, string | undefined>) =>
      guarded(async () => {
        const { type, id } = pick(args);
        deny(caller, 'POST', `/${PLURAL[type]}/${encodeURIComponent(id)}/runs/${encodeURIComponent(args.run_id!)}/cancel`);
        const run = await findRun(type, id, args.run_id!, args.session_id);
        assertRunVisible(run, caller);
        return cancelResult(run.run_id, await ctx.runner.cancel(run.run_id, 'cancelled through cancel_run'));
      }),
  );

  server.registerTool(
    'continue_run',
    {
      description: 'Continue a paused run: give a decision (confirmed true or false) for each tool call it waits on.',
      inputSchema: {
        ...target,
        requirements: z
          .array(
            z.object({
              tool_call_id: z.string().min(1).describe('The id of a waiting call, from the run’s requirements'),
              confirmed: z.boolean().describe('true runs the call; false declines it'),
            }),
          )
          .optional()
          .describe('A decision for each tool call the run waits on'),
        user_id: z.string().optional(),
      },
      outputSchema: RUN_OUTPUT,
      annotations: { readOnlyHint: false, destructiveHint: false },
    },
    (args: Record<string, unknown>, extra: Extra) =>
      guarded(async () => {
        const { type, id } = pick(args as Record<string, string | undefined>);
        const runId = args.run_id as string;
        deny(caller, 'POST', `/${PLURAL[type]}/${encodeURIComponent(id)}/runs/${encodeURIComponent(runId)}/continue`);
        const run = await findRun(type, id, runId, args.session_id as string | undefined);
        assertRunVisible(run, caller);
        const component = ctx[PLURAL[type]].find((c) => c.id === id) as Runnable | undefined;
        if (!component || typeof component.execute !== 'function') throw new RuntimeError('NOT_FOUND', `Run ${runId} not found`);
        const decisions = DECISIONS.safeParse(args.requirements ?? []);
        if (!decisions.success) {
          throw new RuntimeError('BAD_REQUEST', 'requirements must be a list of {"tool_call_id": string, "confirmed": boolean}');
        }
        const continued = await ctx.runner.continue({
          component,
          runId,
          sessionId: run.session_id,
          userId: caller.userId ?? (args.user_id as string | undefined),
          tenantId: caller.tenant?.(),
          unconfined: caller.admin === true,
          principal: caller.principal,
          decisions: decisions.data,
          mcpRequest: requestDigest(tools.connection, extra.requestId),
        });
        return followRun(component, continued, tools, extra);
      }),
  );

  server.registerTool(
    'get_sessions',
    {
      description: 'List sessions (conversations), newest first.',
      outputSchema: {
        data: z.array(z.looseObject({ session_id: z.string(), session_type: z.string(), user_id: z.string().nullable() })),
        meta: z.object({ page: z.number(), limit: z.number(), total_count: z.number(), total_pages: z.number() }),
      },
      inputSchema: {
        session_type: z.enum(['agent', 'team', 'workflow']).default('agent'),
        component_id: z.string().optional(),
        user_id: z.string().optional(),
        session_name: z.string().optional(),
        limit: z.number().int().min(1).max(100).default(20),
        page: z.number().int().min(1).default(1),
        sort_by: z.enum(['created_at', 'updated_at', 'session_name']).default('created_at'),
        sort_order: z.enum(['asc', 'desc']).default('desc'),
      },
      annotations: { readOnlyHint: true },
    },
    (args: {
      session_type: SessionType;
      component_id?: string | undefined;
      user_id?: string | undefined;
      session_name?: string | undefined;
      limit: number;
      page: number;
      sort_by: 'created_at' | 'updated_at' | 'session_name';
      sort_order: 'asc' | 'desc';
    }) =>
      guarded(async () => {
        deny(caller, 'GET', '/sessions');
        const scope = confinement(caller);
        const page = await ctx.sessions.listSessions({
          ...args,
          type: args.session_type,
          // A caller with an identity sees only its own sessions here (admins: anyone's), and only its tenant's.
          owner: scope.user,
          tenant_id: scope.tenant,
        });
        return json({
          data: page.data,
          meta: { page: args.page, limit: args.limit, total_count: page.total, total_pages: Math.ceil(page.total / args.limit) },
        });
      }),
  );

  server.registerTool(
    'get_session_runs',
    {
      description: 'The runs of a session, oldest first; or one run in full with run_id.',
      outputSchema: { runs: z.array(z.looseObject({ run_id: z.string(), status: z.string(), content: z.string().nullable().optional() })) },
      inputSchema: { session_id: z.string().min(1), run_id: z.string().optional() },
      annotations: { readOnlyHint: true },
    },
    (args: { session_id: string; run_id?: string | undefined }) =>
      guarded(async () => {
        deny(caller, 'GET', `/sessions/${encodeURIComponent(args.session_id)}/runs`);
        const session = await ctx.sessions.getSession(args.session_id);
        if (!session || !inScope(confinement(caller), session)) {
          throw new RuntimeError('NOT_FOUND', `Session ${args.session_id} not found`);
        }
        const runs = await ctx.sessions.listRuns({ session_id: args.session_id });
        if (args.run_id) {
          const run = runs.find((r) => r.run_id === args.run_id);
          if (!run) throw new RuntimeError('NOT_FOUND', `Run ${args.run_id} not found in session ${args.session_id}`);
          return json({ runs: [toRunResponse(run, { messages: true })] });
        }
        return json({ runs: runs.map((r) => toRunResponse(r)) });
      }),
  );
}

async function runWithProgress(
  ctx: McpHost,
  component: Runnable,
  args: Record<string, string | undefined>,
  tools: ToolContext,
  extra: Extra,
): Promise<CallToolResult> {
  const run = await ctx.runner.start({ ...startInput(component, args, tools), mcpRequest: requestDigest(tools.connection, extra.requestId) });
  return followRun(component, run, tools, extra);
}

/** What a run tool's call asks to start, as its caller may ask it. */
function startInput(component: Runnable, args: Record<string, string | undefined>, tools: ToolContext): StartRunInput {
  return {
    component,
    message: args.message!,
    sessionId: args.session_id,
    // An authenticated caller cannot act as someone else.
    userId: tools.caller.userId ?? args.user_id,
    tenantId: tools.caller.tenant?.(),
    unconfined: tools.caller.admin === true,
    principal: tools.caller.principal,
  };
}

/** Records a background run and answers its id at once (runResult of a PENDING run). */
async function startInBackground(ctx: McpHost, component: Runnable, args: Record<string, string | undefined>, tools: ToolContext): Promise<CallToolResult> {
  const submitted = await ctx.durable.submit({ ...startInput(component, args, tools), background: true });
  return runResult(submitted.kind === 'queued' ? submitted.record : await submitted.run.done);
}

/**
 * Relays a run's progress as MCP progress notifications and answers with its outcome. The run
 * is cancelled when the client cancels the request (notifications/cancelled, through the
 * in-flight registry) or hangs up the HTTP request waiting for it.
 */
async function followRun(component: Runnable, run: StartedRun, tools: ToolContext, extra: Extra): Promise<CallToolResult> {
  const unregister = tools.inFlight.add(requestDigest(tools.connection, extra.requestId), tools.connection, (reason) => run.cancel(reason));
  const onAbort = () => run.cancel('MCP request cancelled');
  const onHangUp = () => run.cancel('the MCP client disconnected');
  extra.signal.addEventListener('abort', onAbort, { once: true });
  tools.httpSignal.addEventListener('abort', onHangUp, { once: true });
  if (tools.httpSignal.aborted) onHangUp();
  const token = extra._meta?.progressToken;
  let progress = 0;
  const notify = (message: string) => {
    if (token === undefined) return;
    progress += 1;
    void extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress, message } }).catch(() => {});
  };
  try {
    for await (const event of run.events) {
      const name = event.event.replace(/^Team/, '');
      const called = event.tool as { tool_name?: string; confirmed?: boolean } | undefined;
      const tool = called?.tool_name;
      // A call the user declined did not run: nothing started or completed.
      if (called?.confirmed === false) continue;
      if (name === 'RunStarted') notify(`${component.name ?? component.id} started`);
      else if (name === 'RunContinued') notify(`${component.name ?? component.id} continued`);
      else if (name === 'WorkflowStarted') notify('Workflow started');
      else if (name === 'ToolCallStarted') notify(`Tool call started: ${tool}`);
      else if (name === 'ToolCallCompleted') notify(`Tool call completed: ${tool}`);
      else if (name === 'StepStarted') notify(`Step started: ${String(event.step_name)}`);
    }
  } finally {
    unregister();
    extra.signal.removeEventListener('abort', onAbort);
    tools.httpSignal.removeEventListener('abort', onHangUp);
  }
  return runResult(await run.done);
}
