/**
 * @module budgets/exceeded
 * The refusal a budget gives: a RuntimeError with the stable code BUDGET_EXCEEDED (HTTP 429),
 * `Retry-After` in seconds until the budget's window ends, and the budget with its figures in
 * the body. Before a run it answers the request; inside one it ends the run ERROR with this
 * message and error type.
 */
import { RuntimeError } from '../errors.js';
import type { Budget, BudgetSubject } from './types.js';
import { subjectValue } from './types.js';
import { secondsUntilReset } from './windows.js';

export interface ExceededBudget {
  id: string;
  scope: Budget['scope'];
  /** The principal, tenant or agent whose consumption hit the limit. */
  subject: string;
  metric: Budget['metric'];
  window: Budget['window'];
  limit: number;
  used: number;
}

function figure(metric: Budget['metric'], n: number): string {
  return metric === 'cost' ? `${Number(n.toFixed(6))} USD` : `${n} ${metric}`;
}

export function budgetExceeded(budget: Budget, subject: BudgetSubject, used: number, nowMs: number, during: 'run' | 'call'): RuntimeError {
  const who = subjectValue(budget.scope, subject) ?? '';
  const retryAfter = secondsUntilReset(budget.window, nowMs);
  const what = during === 'run' ? 'no new run may start' : 'the run stopped before its next model call';
  const detail =
    `Budget "${budget.id}" exceeded: ${budget.scope} ${who} has used ${figure(budget.metric, used)} of ${figure(budget.metric, budget.limit)} ` +
    `this ${budget.window}; ${what} (the window resets in ${retryAfter} s)`;
  const exceeded: ExceededBudget = { id: budget.id, scope: budget.scope, subject: who, metric: budget.metric, window: budget.window, limit: budget.limit, used };
  return new RuntimeError('BUDGET_EXCEEDED', detail, { headers: { 'retry-after': String(retryAfter) }, fields: { budget: exceeded, retry_after: retryAfter } });
}
