/**
 * `/schedules`: create, list, read, edit, enable or disable, delete and trigger schedules, and
 * read what each occurrence did. A schedule runs its target as the user of the credential that
 * created it; creating or retargeting one needs the right to run that target too (a caller that
 * may not run an agent may not schedule it). Under user isolation a user sees only their own.
 */
import { z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { inScope } from '../../auth/data-scope.js';
import { RuntimeError } from '../../errors.js';
import type { StoredSchedule } from '../../schedules/schedule-store.js';
import { toSchedule } from '../../schedules/schedule-store.js';
import type { TargetKind } from '../../schedules/types.js';
import type { AppEnv, ServerContext } from '../context.js';
import { apiRoute, scoped, type RouteDefinition } from '../route.js';
import { standardErrors } from '../standard-errors.js';
import { OccurrenceSchema, ScheduleCreateSchema, SchedulePatchSchema, ScheduleSchema, TriggeredSchema } from './schedule-schemas.js';

const TAG = 'Schedules';
const idParam = z.object({ schedule_id: z.string().min(1).openapi({ param: { name: 'schedule_id', in: 'path' } }) });
const limitQuery = (max: number, fallback: number) => z.object({ limit: z.coerce.number().int().min(1).max(max).default(fallback).openapi({ description: `At most this many (1 to ${max}, default ${fallback})` }) });
const json = <T extends z.ZodType>(schema: T) => ({ content: { 'application/json': { schema } }, required: true });

const one = (description: string) => ({ 200: { description, content: { 'application/json': { schema: ScheduleSchema } } }, ...standardErrors });

export function scheduleRoutes(ctx: ServerContext): RouteDefinition[] {
  /** The caller's schedule, or 404 (also for another user's, under user isolation). */
  const load = async (c: Context<AppEnv>, id: string): Promise<StoredSchedule> => {
    const found = await ctx.schedules.store.get(id);
    const scope = ctx.auth.dataScope(c.get('principal'));
    if (!found || !inScope(scope, { user_id: found.userId, tenant_id: found.tenantId })) throw new RuntimeError('NOT_FOUND', 'Schedule not found');
    return found;
  };
  /** Scheduling a target is running it later: the caller must hold its run scope. */
  const mayRun = (c: Context<AppEnv>, target: { kind: TargetKind; id: string }): void => {
    const principal = c.get('principal');
    if (principal) ctx.auth.authorize(principal, 'POST', `/${target.kind}s/${target.id}/runs`, [`${target.kind}s:run`]);
  };
  const toggle = (enabled: boolean): RouteDefinition =>
    apiRoute(
      scoped('schedules:write'),
      {
        method: 'post',
        path: `/schedules/{schedule_id}/${enabled ? 'enable' : 'disable'}`,
        operationId: enabled ? 'enableSchedule' : 'disableSchedule',
        tags: [TAG],
        summary: enabled ? 'Enable a schedule (from its next occurrence after now)' : 'Disable a schedule',
        request: { params: idParam },
        responses: one('The schedule'),
      },
      async (c) => {
        const current = await load(c, c.req.valid('param').schedule_id);
        return c.json(await ctx.schedules.update(current, { enabled }), 200);
      },
    );

  return [
    apiRoute(
      scoped('schedules:write'),
      {
        method: 'post',
        path: '/schedules',
        operationId: 'createSchedule',
        tags: [TAG],
        summary: 'Create a schedule',
        description:
          'Runs `target` with `input` at each occurrence of `cron` in `timezone`, once across every runtime sharing the database. ' +
          'Occurrences missed while no runtime was up: the most recent one still runs if at most SCHEDULE_CATCHUP_SECONDS old, older ones are recorded as skipped. ' +
          'A bad expression, an unknown time zone or a target this runtime does not host is a 400 naming it.',
        request: { body: json(ScheduleCreateSchema) },
        responses: { 201: { description: 'The schedule', content: { 'application/json': { schema: ScheduleSchema } } }, ...standardErrors },
      },
      async (c) => {
        const body = c.req.valid('json');
        mayRun(c, body.target);
        const created = await ctx.schedules.create(body, c.get('principal')?.userId, undefined, ctx.auth.tenantOf(c.get('principal')));
        return c.json(created, 201);
      },
    ),
    apiRoute(
      scoped('schedules:read'),
      {
        method: 'get',
        path: '/schedules',
        operationId: 'listSchedules',
        tags: [TAG],
        summary: 'List schedules, oldest first',
        request: { query: limitQuery(1000, 100) },
        responses: { 200: { description: 'Schedules', content: { 'application/json': { schema: z.array(ScheduleSchema) } } }, ...standardErrors },
      },
      async (c) => {
        const scope = ctx.auth.dataScope(c.get('principal'));
        const rows = await ctx.schedules.store.list(scope.user, c.req.valid('query').limit, scope.tenant);
        return c.json(rows.map(toSchedule), 200);
      },
    ),
    apiRoute(
      scoped('schedules:read'),
      { method: 'get', path: '/schedules/{schedule_id}', operationId: 'getSchedule', tags: [TAG], summary: 'Get a schedule', request: { params: idParam }, responses: one('The schedule') },
      async (c) => c.json(toSchedule(await load(c, c.req.valid('param').schedule_id)), 200),
    ),
    apiRoute(
      scoped('schedules:write'),
      {
        method: 'patch',
        path: '/schedules/{schedule_id}',
        operationId: 'updateSchedule',
        tags: [TAG],
        summary: 'Change a schedule',
        description: 'Only the fields given change. A new expression or time zone counts from now: occurrences are not caught up.',
        request: { params: idParam, body: json(SchedulePatchSchema) },
        responses: one('The schedule'),
      },
      async (c) => {
        const current = await load(c, c.req.valid('param').schedule_id);
        const patch = c.req.valid('json');
        if (patch.target) mayRun(c, patch.target);
        return c.json(await ctx.schedules.update(current, patch), 200);
      },
    ),
    toggle(true),
    toggle(false),
    apiRoute(
      scoped('schedules:delete'),
      {
        method: 'delete',
        path: '/schedules/{schedule_id}',
        operationId: 'deleteSchedule',
        tags: [TAG],
        summary: 'Delete a schedule and its history (its runs stay)',
        request: { params: idParam },
        responses: { 204: { description: 'Deleted' }, ...standardErrors },
      },
      async (c) => {
        const current = await load(c, c.req.valid('param').schedule_id);
        await ctx.schedules.store.delete(current.id);
        return c.body(null, 204);
      },
    ),
    apiRoute(
      scoped('schedules:write'),
      {
        method: 'post',
        path: '/schedules/{schedule_id}/trigger',
        operationId: 'triggerSchedule',
        tags: [TAG],
        summary: 'Run a schedule now',
        description: "Starts the target's run at once (also when the schedule is disabled) and answers without waiting for it; read it with the run routes.",
        request: { params: idParam },
        responses: { 202: { description: 'The run started (or why it could not)', content: { 'application/json': { schema: TriggeredSchema } } }, 409: standardErrors[400], ...standardErrors },
      },
      async (c) => {
        const current = await load(c, c.req.valid('param').schedule_id);
        mayRun(c, { kind: current.targetKind, id: current.targetId });
        const fired = await ctx.schedules.fire(current, 'manual', Date.now());
        if (!fired) throw new RuntimeError('CONFLICT', 'This schedule was triggered at the same instant by another request');
        return c.json({ schedule_id: current.id, state: fired.state, run_id: fired.runId ?? null, error: fired.error ?? null }, 202);
      },
    ),
    apiRoute(
      scoped('schedules:read'),
      {
        method: 'get',
        path: '/schedules/{schedule_id}/runs',
        operationId: 'listScheduleRuns',
        tags: [TAG],
        summary: "A schedule's occurrences and their runs, most recent first",
        request: { params: idParam, query: limitQuery(1000, 100) },
        responses: { 200: { description: 'Occurrences', content: { 'application/json': { schema: z.array(OccurrenceSchema) } } }, ...standardErrors },
      },
      async (c) => {
        const current = await load(c, c.req.valid('param').schedule_id);
        return c.json(await ctx.schedules.occurrences(current.id, c.req.valid('query').limit), 200);
      },
    ),
  ];
}
