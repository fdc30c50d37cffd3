/**
 * `/sessions`: find, read, rename and delete the conversations of agents, teams and workflows.
 */
import { z } from '@hono/zod-openapi';
import { RuntimeError } from '../../errors.js';
import type { RunRecord, SessionRecord } from '../../sessions/types.js';
import type { Context } from 'hono';
import type { AppEnv, ServerContext } from '../context.js';
import { apiRoute, scoped, type RouteDefinition } from '../route.js';
import { standardErrors } from '../standard-errors.js';
import { RunSchema } from './run-schemas.js';
import { toRunResponse } from '../../run/run-response.js';
import { inScope, type DataScope } from '../../auth/data-scope.js';

const SessionTypeSchema = z.enum(['agent', 'team', 'workflow']);

const SessionSchema = z
  .object({
    session_id: z.string(),
    session_type: SessionTypeSchema,
    session_name: z.string().nullable(),
    agent_id: z.string().optional(),
    team_id: z.string().optional(),
    workflow_id: z.string().optional(),
    user_id: z.string().nullable(),
    session_state: z.record(z.string(), z.unknown()).nullable(),
    metadata: z.record(z.string(), z.unknown()).nullable(),
    created_at: z.number().int(),
    updated_at: z.number().int(),
  })
  .openapi('Session');

const SessionDetailSchema = SessionSchema.extend({
  runs_count: z.number().int(),
  chat_history: z.array(z.object({ role: z.enum(['user', 'assistant']), content: z.string(), run_id: z.string() })),
}).openapi('SessionDetail');

const PageMetaSchema = z.object({ page: z.number().int(), limit: z.number().int(), total_pages: z.number().int(), total_count: z.number().int() });

const sessionIdParam = z.object({ session_id: z.string().min(1).openapi({ param: { name: 'session_id', in: 'path' } }) });

function toSession(s: SessionRecord): z.infer<typeof SessionSchema> {
  const key = `${s.session_type}_id` as 'agent_id' | 'team_id' | 'workflow_id';
  return {
    session_id: s.session_id,
    session_type: s.session_type,
    session_name: s.session_name,
    [key]: s.component_id,
    user_id: s.user_id,
    session_state: s.session_state,
    metadata: s.metadata,
    created_at: s.created_at,
    updated_at: s.updated_at,
  };
}

function chatHistory(runs: RunRecord[]) {
  return runs.flatMap((r) => [
    { role: 'user' as const, content: r.input.message, run_id: r.run_id },
    ...(r.content !== null ? [{ role: 'assistant' as const, content: r.content, run_id: r.run_id }] : []),
  ]);
}

export function sessionRoutes(ctx: ServerContext): RouteDefinition[] {
  /**
   * What a caller is confined to (auth/data-scope.ts): under user isolation (the default) a user
   * sees and changes only its own sessions, a service-account token only those it started, and
   * under tenancy only its tenant's; admins and the security key see all.
   */
  const scopeOf = (c: Context<AppEnv>): DataScope => ctx.auth.dataScope(c.get('principal'));
  /** Another user's session is reported as missing to a confined caller: its id tells nothing. */
  const mustGet = async (c: Context<AppEnv>, id: string): Promise<SessionRecord> => {
    const session = await ctx.sessions.getSession(id);
    if (!session || !inScope(scopeOf(c), session)) throw new RuntimeError('NOT_FOUND', `Session with id '${id}' not found`);
    return session;
  };

  return [
    apiRoute(
      scoped('sessions:read'),
      {
        method: 'get',
        path: '/sessions',
        operationId: 'listSessions',
        tags: ['Sessions'],
        summary: 'List sessions',
        request: {
          query: z.object({
            type: SessionTypeSchema.optional(),
            component_id: z.string().optional(),
            user_id: z.string().optional(),
            session_name: z.string().max(200).optional().openapi({ description: 'Case-insensitive part of the name' }),
            limit: z.coerce.number().int().min(1).max(100).default(20),
            page: z.coerce.number().int().min(1).max(1_000_000).default(1),
            sort_by: z.enum(['created_at', 'updated_at', 'session_name']).default('created_at'),
            sort_order: z.enum(['asc', 'desc']).default('desc'),
          }),
        },
        responses: {
          200: {
            description: 'A page of sessions',
            content: { 'application/json': { schema: z.object({ data: z.array(SessionSchema), meta: PageMetaSchema }) } },
          },
          ...standardErrors,
        },
      },
      async (c) => {
        const q = c.req.valid('query');
        const scope = scopeOf(c);
        // The caller's own user and tenant join the query's filters in one WHERE (`limit` stays exact).
        const page = await ctx.sessions.listSessions({ ...q, owner: scope.user, tenant_id: scope.tenant });
        return c.json(
          {
            data: page.data.map(toSession),
            meta: { page: q.page, limit: q.limit, total_count: page.total, total_pages: Math.ceil(page.total / q.limit) },
          },
          200,
        );
      },
    ),
    apiRoute(
      scoped('sessions:read'),
      {
        method: 'get',
        path: '/sessions/{session_id}',
        operationId: 'getSession',
        tags: ['Sessions'],
        summary: 'Get a session with its chat history',
        request: { params: sessionIdParam },
        responses: { 200: { description: 'The session', content: { 'application/json': { schema: SessionDetailSchema } } }, ...standardErrors },
      },
      async (c) => {
        const session = await mustGet(c, c.req.valid('param').session_id);
        const runs = await ctx.sessions.listRuns({ session_id: session.session_id });
        return c.json({ ...toSession(session), runs_count: runs.length, chat_history: chatHistory(runs) }, 200);
      },
    ),
    apiRoute(
      scoped('sessions:read'),
      {
        method: 'get',
        path: '/sessions/{session_id}/runs',
        operationId: 'listSessionRuns',
        tags: ['Sessions'],
        summary: 'List the runs of a session, oldest first',
        request: { params: sessionIdParam },
        responses: { 200: { description: 'Runs', content: { 'application/json': { schema: z.array(RunSchema) } } }, ...standardErrors },
      },
      async (c) => {
        const session = await mustGet(c, c.req.valid('param').session_id);
        const runs = await ctx.sessions.listRuns({ session_id: session.session_id });
        return c.json(runs.map((r) => toRunResponse(r)), 200);
      },
    ),
    apiRoute(
      scoped('sessions:read'),
      {
        method: 'get',
        path: '/sessions/{session_id}/runs/{run_id}',
        operationId: 'getSessionRun',
        tags: ['Sessions'],
        summary: 'Get one run of a session',
        request: { params: sessionIdParam.extend({ run_id: z.string().min(1).openapi({ param: { name: 'run_id', in: 'path' } }) }) },
        responses: { 200: { description: 'The run with its messages', content: { 'application/json': { schema: RunSchema } } }, ...standardErrors },
      },
      async (c) => {
        const { session_id, run_id } = c.req.valid('param');
        await mustGet(c, session_id);
        const run = await ctx.sessions.getRun(run_id);
        if (!run || run.session_id !== session_id) throw new RuntimeError('NOT_FOUND', `Run with ID ${run_id} not found in session ${session_id}`);
        return c.json(toRunResponse(run, { messages: true }), 200);
      },
    ),
    apiRoute(
      scoped('sessions:write'),
      {
        method: 'post',
        path: '/sessions/{session_id}/rename',
        operationId: 'renameSession',
        tags: ['Sessions'],
        summary: 'Rename a session',
        request: {
          params: sessionIdParam,
          body: { required: true, content: { 'application/json': { schema: z.object({ session_name: z.string().trim().min(1).max(200) }) } } },
        },
        responses: { 200: { description: 'The renamed session', content: { 'application/json': { schema: SessionSchema } } }, ...standardErrors },
      },
      async (c) => {
        const { session_id } = c.req.valid('param');
        await mustGet(c, session_id);
        const renamed = await ctx.sessions.renameSession(session_id, c.req.valid('json').session_name);
        if (!renamed) throw new RuntimeError('NOT_FOUND', `Session with id '${session_id}' not found`);
        return c.json(toSession(renamed), 200);
      },
    ),
    apiRoute(
      scoped('sessions:delete'),
      {
        method: 'delete',
        path: '/sessions/{session_id}',
        operationId: 'deleteSession',
        tags: ['Sessions'],
        summary: 'Delete a session and its runs',
        request: { params: sessionIdParam },
        responses: { 204: { description: 'Deleted' }, ...standardErrors },
      },
      async (c) => {
        const { session_id } = c.req.valid('param');
        await mustGet(c, session_id);
        if ((await ctx.sessions.deleteSessions([session_id])) === 0) {
          throw new RuntimeError('NOT_FOUND', `Session with id '${session_id}' not found`);
        }
        return c.body(null, 204);
      },
    ),
    apiRoute(
      scoped('sessions:delete'),
      {
        method: 'delete',
        path: '/sessions',
        operationId: 'deleteSessions',
        tags: ['Sessions'],
        summary: 'Delete several sessions and their runs',
        request: {
          body: { required: true, content: { 'application/json': { schema: z.object({ session_ids: z.array(z.string().min(1)).min(1).max(1000) }) } } },
        },
        responses: { 204: { description: 'Deleted (unknown ids are ignored)' }, ...standardErrors },
      },
      async (c) => {
        const ids = c.req.valid('json').session_ids;
        const scope = scopeOf(c);
        // A confined caller deletes only its own sessions; others' ids are ignored like unknown ones.
        let own = ids;
        if (scope.user !== undefined || scope.tenant !== undefined) {
          const sessions = await Promise.all(ids.map((id) => ctx.sessions.getSession(id)));
          own = sessions.filter((x) => x !== undefined && inScope(scope, x)).map((x) => x!.session_id);
        }
        await ctx.sessions.deleteSessions(own);
        return c.body(null, 204);
      },
    ),
  ];
}
