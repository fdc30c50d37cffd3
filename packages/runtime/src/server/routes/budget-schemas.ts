/**
 * The wire shapes of `/budgets` and `/usage` (OpenAPI-documented); the checks of a budget's
 * fields are budgets/types.ts's, applied by the routes after these parse.
 */
import { z } from '@hono/zod-openapi';
import { BUDGET_METRICS, BUDGET_SCOPES, BUDGET_WINDOWS } from '../../budgets/types.js';

const limit = z.number().openapi({ description: 'Runs or tokens (whole numbers), or USD for `cost`; 0 refuses every run', example: 100000 });
const subject = z
  .string()
  .min(1)
  .max(200)
  .nullable()
  .optional()
  .openapi({ description: 'The one principal (JWT `sub` or `sa:<name>`), tenant or agent id it limits; null or absent: each of them on its own' });

export const BudgetSchema = z
  .object({
    id: z.string(),
    scope: z.enum(BUDGET_SCOPES),
    subject: z.string().nullable(),
    metric: z.enum(BUDGET_METRICS).openapi({ description: '`runs` started, `tokens` (input + output), or `cost` in USD from MODEL_PRICES_JSON' }),
    window: z.enum(BUDGET_WINDOWS).openapi({ description: 'A calendar window in UTC' }),
    limit: z.number(),
    source: z.enum(['code', 'api']).openapi({ description: '`code`: set in the runtime options, read-only here' }),
    created_at: z.number().int().nullable(),
    updated_at: z.number().int().nullable(),
  })
  .openapi('Budget');

export const BudgetCreateSchema = z
  .object({
    id: z.string().min(1).max(63).optional().openapi({ description: 'A lowercase slug; generated when absent' }),
    scope: z.enum(BUDGET_SCOPES),
    subject,
    metric: z.enum(BUDGET_METRICS),
    window: z.enum(BUDGET_WINDOWS),
    limit,
  })
  .strict()
  .openapi('BudgetCreate');

export const BudgetUpdateSchema = BudgetCreateSchema.omit({ id: true }).strict().openapi('BudgetUpdate');

export const BudgetListSchema = z.object({ data: z.array(BudgetSchema) }).openapi('BudgetList');

export const ExceededBudgetSchema = z
  .object({
    detail: z.string(),
    error_code: z.literal('BUDGET_EXCEEDED'),
    retry_after: z.number().int().openapi({ description: 'Seconds until the window frees up (also the Retry-After header)' }),
    budget: z.object({
      id: z.string(),
      scope: z.enum(BUDGET_SCOPES),
      subject: z.string(),
      metric: z.enum(BUDGET_METRICS),
      window: z.enum(BUDGET_WINDOWS),
      limit: z.number(),
      used: z.number(),
    }),
  })
  .openapi('BudgetExceeded');

/** The 429 of the routes that start or continue a run. */
export const BUDGET_EXCEEDED_RESPONSE = {
  description: 'A budget is used up (BUDGET_EXCEEDED): `Retry-After` says in how many seconds its window frees up; the body names the budget',
  headers: { 'Retry-After': { schema: { type: 'integer' as const }, description: 'Seconds until the window ends' } },
  content: { 'application/json': { schema: ExceededBudgetSchema } },
};

export const UsageQuerySchema = z.object({
  principal: z.string().min(1).max(200).optional().openapi({ description: 'Admins only: whose usage (default: the caller)' }),
  tenant: z.string().min(1).max(200).optional().openapi({ description: "Admins only: a tenant's usage (default: the caller's tenant)" }),
  agent: z.string().min(1).max(200).optional().openapi({ description: "Admins only: an agent's (component's) usage" }),
});

export const UsageSchema = z
  .object({
    principal: z.string().nullable(),
    tenant: z.string().nullable(),
    agent: z.string().nullable(),
    budgets: z.array(
      z.object({
        budget: BudgetSchema,
        subject: z.string().openapi({ description: 'The principal, tenant or agent this line counts' }),
        used: z.number(),
        remaining: z.number().openapi({ description: 'limit - used, never below 0' }),
        window_start: z.number().int().openapi({ description: 'Epoch seconds' }),
        resets_at: z.number().int().openapi({ description: 'Epoch seconds: when the window ends and the count starts again' }),
        runs: z.number().int(),
        input_tokens: z.number().int(),
        output_tokens: z.number().int(),
        cost_usd: z.number(),
      }),
    ),
  })
  .openapi('Usage');
