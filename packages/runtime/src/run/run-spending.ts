/**
 * @module run/run-spending
 * A run's side of its budgets (budgets/): who it counts against, the check before each model
 * call, and the usage each call adds, recorded in order and awaited before the next check (so
 * one run never overshoots by more than the call in flight) and before the run's end is saved
 * (so GET /usage is right once a run has ended).
 */
import type { Budgets } from '../budgets/budgets.js';
import type { BudgetSubject } from '../budgets/types.js';
import type { Usage } from '../model/model.js';
import type { Logger } from '../util/logger.js';

/**
 * The tenant a new run belongs to and counts against: the one its starter named (a schedule's, a
 * route's confined caller's), else its caller's.
 */
export function runTenant(input: { tenantId?: string | undefined; principal?: { tenantId?: string | undefined } | undefined }): string | undefined {
  return input.tenantId ?? input.principal?.tenantId;
}

/** A run counts against its user (the principal), its tenant and its component. */
export function budgetSubject(componentId: string, userId: string | null | undefined, tenantId: string | undefined): BudgetSubject {
  return { principal: userId ?? undefined, tenant: tenantId, agent: componentId };
}

export class RunSpending {
  private pending: Promise<void> = Promise.resolve();

  constructor(
    private readonly budgets: Budgets | undefined,
    readonly subject: BudgetSubject,
    private readonly log: Logger,
  ) {}

  /** Counts one model call's usage (in the background, in call order). */
  add(usage: Usage, model: string | undefined): void {
    const budgets = this.budgets;
    if (!budgets) return;
    this.pending = this.pending
      .then(() => budgets.record(this.subject, usage, model ?? ''))
      .catch((e: unknown) => this.log.warn(`could not count a model call against the budgets of ${this.subject.agent}: ${e instanceof Error ? e.message : String(e)}`));
  }

  /** Resolves when the run may call its model again; rejects with BUDGET_EXCEEDED otherwise. */
  async beforeModelCall(): Promise<void> {
    if (!this.budgets) return;
    await this.pending;
    await this.budgets.beforeModelCall(this.subject);
  }

  /** Resolves once every call's usage is counted. */
  settled(): Promise<void> {
    return this.pending;
  }
}
