/**
 * `/budgets` (admin only: create, list, read, replace, delete the limits on runs, tokens and
 * cost; a tenant admin its own tenant's, budget-access.ts) and `GET /usage` (a caller's own
 * consumption against the budgets that apply to it; admins may name any principal, tenant or
 * agent, a tenant admin its tenant and its members). The checks themselves live in budgets/ and
 * run in the runner, so every way a run starts is limited alike.
 */
import { z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { budgetDefinitionSchema, usedOf, type Budget } from '../../budgets/types.js';
import { bucketEnd } from '../../budgets/windows.js';
import { RuntimeError } from '../../errors.js';
import { budgetManager, mustManage, mustOwn, usageSubjectFor, visibleToManager } from './budget-access.js';
import type { AppEnv, ServerContext } from '../context.js';
import { toFieldErrors, validationError } from '../errors.js';
import { apiRoute, scoped, type RouteDefinition } from '../route.js';
import { standardErrors } from '../standard-errors.js';
import { BudgetCreateSchema, BudgetListSchema, BudgetSchema, BudgetUpdateSchema, UsageQuerySchema, UsageSchema } from './budget-schemas.js';

const TAG = 'Budgets';
const idParam = z.object({ budget_id: z.string().min(1).max(100).openapi({ param: { name: 'budget_id', in: 'path' } }) });
const json = <T extends z.ZodType>(schema: T) => ({ content: { 'application/json': { schema } }, required: true });
const one = (description: string) => ({ 200: { description, content: { 'application/json': { schema: BudgetSchema } } }, 409: standardErrors[400], ...standardErrors });
const ADMIN_ONLY = "Needs the admin scope (or the security key); under tenancy a tenant admin manages its own tenant's budgets only (scope `tenant`, its tenant as the subject).";

/** A budget's fields checked by the one rule code and the API share (a whole number of runs or tokens). */
function checked<T>(body: T): T {
  const parsed = budgetDefinitionSchema.safeParse(body);
  if (!parsed.success) throw validationError(toFieldErrors('body', parsed.error));
  return body;
}

export function budgetRoutes(ctx: ServerContext): RouteDefinition[] {
  const manager = (c: Context<AppEnv>) => budgetManager(ctx, c.get('principal'));
  /** The budget, when this caller may see it (another tenant's reads as not found). */
  const seen = async (c: Context<AppEnv>, id: string): Promise<Budget> => {
    const m = manager(c);
    mustManage(ctx, m);
    const budget = await ctx.budgets.get(id);
    if (!visibleToManager(m, budget)) throw new RuntimeError('NOT_FOUND', `Budget '${id}' not found`);
    return budget;
  };
  return [
    apiRoute(
      scoped(),
      { method: 'get', path: '/budgets', operationId: 'listBudgets', tags: [TAG], summary: 'List the budgets (code and API)', description: ADMIN_ONLY,
        responses: { 200: { description: 'Every budget, those in code first', content: { 'application/json': { schema: BudgetListSchema } } }, ...standardErrors } },
      async (c) => {
        const m = manager(c);
        mustManage(ctx, m);
        return c.json({ data: (await ctx.budgets.list()).filter((b) => visibleToManager(m, b)) }, 200);
      },
    ),
    apiRoute(
      scoped(),
      {
        method: 'post',
        path: '/budgets',
        operationId: 'createBudget',
        tags: [TAG],
        summary: 'Create a budget',
        description: `${ADMIN_ONLY} It applies from the next run start or model call, on every runtime sharing the database. 409: the id is taken.`,
        request: { body: json(BudgetCreateSchema) },
        responses: { 201: { description: 'The budget', content: { 'application/json': { schema: BudgetSchema } } }, 409: standardErrors[400], ...standardErrors },
      },
      async (c) => {
        const body = c.req.valid('json');
        mustOwn(ctx, manager(c), body);
        return c.json(await ctx.budgets.create(checked(body)), 201);
      },
    ),
    apiRoute(
      scoped(),
      { method: 'get', path: '/budgets/{budget_id}', operationId: 'getBudget', tags: [TAG], summary: 'Read a budget', description: ADMIN_ONLY, request: { params: idParam }, responses: one('The budget') },
      async (c) => {
        return c.json(await seen(c, c.req.valid('param').budget_id), 200);
      },
    ),
    apiRoute(
      scoped(),
      {
        method: 'put',
        path: '/budgets/{budget_id}',
        operationId: 'updateBudget',
        tags: [TAG],
        summary: 'Replace a budget',
        description: `${ADMIN_ONLY} What it has counted so far stays counted. 409: the budget is set in code.`,
        request: { params: idParam, body: json(BudgetUpdateSchema) },
        responses: one('The budget'),
      },
      async (c) => {
        const id = c.req.valid('param').budget_id;
        const body = c.req.valid('json');
        mustOwn(ctx, manager(c), await seen(c, id));
        mustOwn(ctx, manager(c), body);
        return c.json(await ctx.budgets.update(id, checked(body)), 200);
      },
    ),
    apiRoute(
      scoped(),
      {
        method: 'delete',
        path: '/budgets/{budget_id}',
        operationId: 'deleteBudget',
        tags: [TAG],
        summary: 'Delete a budget',
        description: `${ADMIN_ONLY} 409: the budget is set in code.`,
        request: { params: idParam },
        responses: { 204: { description: 'Deleted' }, 409: standardErrors[400], ...standardErrors },
      },
      async (c) => {
        const id = c.req.valid('param').budget_id;
        mustOwn(ctx, manager(c), await seen(c, id));
        await ctx.budgets.remove(id);
        return c.body(null, 204);
      },
    ),
    apiRoute(
      scoped(),
      {
        method: 'get',
        path: '/usage',
        operationId: 'getUsage',
        tags: [TAG],
        summary: "The caller's consumption against the budgets that apply to it",
        description:
          'Each budget that applies to the caller (its principal and tenant), with what is used of it in the current window. ' +
          'Admins may name a `principal`, `tenant` and/or `agent` to see anyone\'s; a tenant admin its own tenant and its members (a principal with a session in it); anyone else naming another is refused (403).',
        request: { query: UsageQuerySchema },
        responses: { 200: { description: 'The usage', content: { 'application/json': { schema: UsageSchema } } }, ...standardErrors },
      },
      async (c) => {
        const subject = await usageSubjectFor(ctx, c.get('principal'), c.req.valid('query'));
        const lines = await ctx.budgets.report(subject, await ctx.budgets.list());
        return c.json(
          {
            principal: subject.principal ?? null,
            tenant: subject.tenant ?? null,
            agent: subject.agent ?? null,
            budgets: lines.map(({ budget, key, consumption }) => {
              const used = usedOf(budget.metric, consumption);
              return {
                budget: budget satisfies Budget,
                subject: key.subject,
                used,
                remaining: Math.max(0, budget.limit - used),
                window_start: Math.floor(key.bucketMs / 1000),
                resets_at: Math.floor(bucketEnd(budget.window, key.bucketMs) / 1000),
                runs: consumption.runs,
                input_tokens: consumption.inputTokens,
                output_tokens: consumption.outputTokens,
                cost_usd: consumption.costUsd,
              };
            }),
          },
          200,
        );
      },
    ),
  ];
}
