/**
 * `/budgets` (admin only: create, list, read, replace, delete the limits on runs, tokens and
 * cost) and `GET /usage` (a caller's own consumption against the budgets that apply to it;
 * admins may name any principal, tenant or agent). The checks themselves live in budgets/ and
 * run in the runner, so every way a run starts is limited alike.
 */
import { z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { Principal } from '../../auth/principal.js';
import { budgetDefinitionSchema, usedOf, type Budget } from '../../budgets/types.js';
import { bucketEnd } from '../../budgets/windows.js';
import { RuntimeError } from '../../errors.js';
import type { AppEnv, ServerContext } from '../context.js';
import { toFieldErrors, validationError } from '../errors.js';
import { apiRoute, scoped, type RouteDefinition } from '../route.js';
import { standardErrors } from '../standard-errors.js';
import { BudgetCreateSchema, BudgetListSchema, BudgetSchema, BudgetUpdateSchema, UsageQuerySchema, UsageSchema } from './budget-schemas.js';

const TAG = 'Budgets';
const idParam = z.object({ budget_id: z.string().min(1).max(100).openapi({ param: { name: 'budget_id', in: 'path' } }) });
const json = <T extends z.ZodType>(schema: T) => ({ content: { 'application/json': { schema } }, required: true });
const one = (description: string) => ({ 200: { description, content: { 'application/json': { schema: BudgetSchema } } }, 409: standardErrors[400], ...standardErrors });
const ADMIN_ONLY = 'Needs the admin scope (or the security key).';

/** A budget's fields checked by the one rule code and the API share (a whole number of runs or tokens). */
function checked<T>(body: T): T {
  const parsed = budgetDefinitionSchema.safeParse(body);
  if (!parsed.success) throw validationError(toFieldErrors('body', parsed.error));
  return body;
}

export function budgetRoutes(ctx: ServerContext): RouteDefinition[] {
  const isAdmin = (p: Principal | undefined): boolean => p !== undefined && (!p.enforceScopes || ctx.auth.isAdmin(p));
  const admin = (c: Context<AppEnv>): void => {
    if (!isAdmin(c.get('principal'))) throw new RuntimeError('FORBIDDEN', `Managing budgets needs the admin scope (${ctx.auth.adminScope})`);
  };
  return [
    apiRoute(
      scoped(),
      { method: 'get', path: '/budgets', operationId: 'listBudgets', tags: [TAG], summary: 'List the budgets (code and API)', description: ADMIN_ONLY,
        responses: { 200: { description: 'Every budget, those in code first', content: { 'application/json': { schema: BudgetListSchema } } }, ...standardErrors } },
      async (c) => {
        admin(c);
        return c.json({ data: await ctx.budgets.list() }, 200);
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
        admin(c);
        return c.json(await ctx.budgets.create(checked(c.req.valid('json'))), 201);
      },
    ),
    apiRoute(
      scoped(),
      { method: 'get', path: '/budgets/{budget_id}', operationId: 'getBudget', tags: [TAG], summary: 'Read a budget', description: ADMIN_ONLY, request: { params: idParam }, responses: one('The budget') },
      async (c) => {
        admin(c);
        return c.json(await ctx.budgets.get(c.req.valid('param').budget_id), 200);
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
        admin(c);
        return c.json(await ctx.budgets.update(c.req.valid('param').budget_id, checked(c.req.valid('json'))), 200);
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
        admin(c);
        await ctx.budgets.remove(c.req.valid('param').budget_id);
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
          'Admins may name a `principal`, `tenant` and/or `agent` to see anyone\'s; anyone else naming another is refused (403).',
        request: { query: UsageQuerySchema },
        responses: { 200: { description: 'The usage', content: { 'application/json': { schema: UsageSchema } } }, ...standardErrors },
      },
      async (c) => {
        const principal = c.get('principal');
        const q = c.req.valid('query');
        const own = { principal: principal?.userId, tenant: principal?.tenantId };
        const named = q.principal !== undefined || q.tenant !== undefined || q.agent !== undefined;
        if (named && !isAdmin(principal) && (q.agent !== undefined || (q.principal ?? own.principal) !== own.principal || (q.tenant ?? own.tenant) !== own.tenant)) {
          throw new RuntimeError('FORBIDDEN', "Only admins may read another principal's, tenant's or agent's usage");
        }
        const subject = named ? { principal: q.principal, tenant: q.tenant, agent: q.agent } : { ...own, agent: undefined };
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
