/**
 * @module budgets/types
 * What a budget is: a limit on one metric (runs, input+output tokens, or USD cost) over one
 * calendar window (UTC hour, day or month) for one scope: a principal (a JWT subject or
 * `sa:<name>`), a tenant, or an agent (a hosted component's id). A budget without a subject
 * applies to each principal (tenant, agent) on its own; with one, to that one only.
 */
import { z } from 'zod';

export const BUDGET_SCOPES = ['principal', 'tenant', 'agent'] as const;
export const BUDGET_METRICS = ['runs', 'tokens', 'cost'] as const;
export const BUDGET_WINDOWS = ['hour', 'day', 'month'] as const;

export type BudgetScope = (typeof BUDGET_SCOPES)[number];
export type BudgetMetric = (typeof BUDGET_METRICS)[number];
export type BudgetWindow = (typeof BUDGET_WINDOWS)[number];

/** Ids of budgets, in code and through the API: a slug, so they sit in paths unescaped. */
export const BUDGET_ID = /^[a-z0-9][a-z0-9_-]{0,62}$/;

/** A budget as code (runtime option `budgets`) and the API's create body write it. */
export const budgetDefinitionSchema = z
  .object({
    id: z.string().regex(BUDGET_ID, "id must be a lowercase slug: a letter or digit, then letters, digits, '_' or '-' (max 63)").optional(),
    scope: z.enum(BUDGET_SCOPES),
    /** The one principal, tenant or agent it limits; absent or null: each of them. */
    subject: z.string().min(1).max(200).nullable().optional(),
    metric: z.enum(BUDGET_METRICS),
    window: z.enum(BUDGET_WINDOWS),
    /** Runs, tokens (whole numbers) or USD; 0 refuses every run. */
    limit: z.number().finite().min(0).max(1e15),
  })
  .strict()
  .superRefine((b, ctx) => {
    if (b.metric !== 'cost' && !Number.isInteger(b.limit)) ctx.addIssue({ code: 'custom', path: ['limit'], message: `a ${b.metric} limit is a whole number` });
  });

export type BudgetDefinition = z.input<typeof budgetDefinitionSchema>;

export interface Budget {
  id: string;
  scope: BudgetScope;
  subject: string | null;
  metric: BudgetMetric;
  window: BudgetWindow;
  limit: number;
  /** Written in the runtime's options (read-only through the API) or created through it. */
  source: 'code' | 'api';
  created_at: number | null;
  updated_at: number | null;
}

/** Who a run counts against: its principal, its tenant and its agent (component id). */
export interface BudgetSubject {
  principal: string | undefined;
  tenant: string | undefined;
  agent: string | undefined;
}

/** One counter: a scope's subject in one window's bucket. */
export interface CounterKey {
  scope: BudgetScope;
  subject: string;
  window: BudgetWindow;
  /** The window's start, ms since the epoch (UTC). */
  bucketMs: number;
}

/** What a counter holds. */
export interface Consumption {
  runs: number;
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
}

export const NO_CONSUMPTION: Consumption = { runs: 0, inputTokens: 0, outputTokens: 0, costUsd: 0 };

/** The figure of `metric` in a counter. */
export function usedOf(metric: BudgetMetric, c: Consumption): number {
  if (metric === 'runs') return c.runs;
  if (metric === 'tokens') return c.inputTokens + c.outputTokens;
  return c.costUsd;
}

/** The subject value a budget of `scope` counts for this run; undefined: the scope does not apply. */
export function subjectValue(scope: BudgetScope, subject: BudgetSubject): string | undefined {
  return scope === 'principal' ? subject.principal : scope === 'tenant' ? subject.tenant : subject.agent;
}

/** Whether `budget` limits runs of `subject`. */
export function applies(budget: Budget, subject: BudgetSubject): boolean {
  const value = subjectValue(budget.scope, subject);
  return value !== undefined && (budget.subject === null || budget.subject === value);
}
