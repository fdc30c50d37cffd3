/**
 * @module budgets/budgets
 * The budgets service: the budgets (code's and the API's), the run-start admission, the check
 * before every model call, and the usage each call adds. Runs are counted atomically at
 * admission (an UPSERT that refuses past the limit, all of a run's counters in one
 * transaction); tokens and cost are added after each model call and checked before the next,
 * so concurrent runs overshoot a token or cost budget by at most one model call each.
 */
import { randomUUID } from 'node:crypto';
import { RuntimeError } from '../errors.js';
import { costOf } from '../model/pricing.js';
import type { Usage } from '../model/model.js';
import type { ModelPrices } from '../settings/pricing.js';
import type { Db } from '../storage/db.js';
import type { Logger } from '../util/logger.js';
import { BudgetStore, type StoredFields } from './budget-store.js';
import { budgetExceeded } from './exceeded.js';
import { applies, subjectValue, usedOf, type Budget, type BudgetSubject, type Consumption, type CounterKey } from './types.js';
import { counterOrder, UsageStore } from './usage-store.js';
import { bucketStart } from './windows.js';

/** A counter and the budgets that read it. */
interface Counter {
  key: CounterKey;
  budgets: Budget[];
}

const epochSeconds = () => Math.floor(Date.now() / 1000);

function storedFields(d: Omit<StoredFields, 'subject'> & { subject?: string | null | undefined }): StoredFields {
  return { scope: d.scope, subject: d.subject ?? null, metric: d.metric, window: d.window, limit: d.limit };
}

const PRUNE_EVERY_MS = 3_600_000;
/** Buckets older than two months are no window's any more. */
const KEEP_MS = 62 * 86_400_000;

/** A run admitted: what to give back should it not start after all. */
export interface Admission {
  release(): Promise<void>;
}

export class Budgets {
  readonly store: BudgetStore;
  readonly usage: UsageStore;
  private prunedAt = 0;

  constructor(
    private readonly options: { db: Db; code: readonly Budget[]; prices: ModelPrices | undefined; log: Logger; now?: () => number },
  ) {
    this.store = new BudgetStore(options.db);
    this.usage = new UsageStore(options.db);
  }

  private now(): number {
    return this.options.now?.() ?? Date.now();
  }

  /** The budgets in code first, then the API's. */
  async list(): Promise<Budget[]> {
    return [...this.options.code, ...(await this.store.list())];
  }

  async get(id: string): Promise<Budget> {
    const found = this.options.code.find((b) => b.id === id) ?? (await this.store.get(id));
    if (!found) throw new RuntimeError('NOT_FOUND', `Budget not found: ${id}`);
    return found;
  }

  /** Stores a budget made through the API; 409 when its id is taken (in code or stored). */
  async create(definition: Omit<StoredFields, 'subject'> & { id?: string | undefined; subject?: string | null | undefined }): Promise<Budget> {
    const id = definition.id ?? `budget-${randomUUID()}`;
    const fields = storedFields(definition);
    if (this.options.code.some((b) => b.id === id) || !(await this.store.create(id, fields, epochSeconds()))) {
      throw new RuntimeError('CONFLICT', `A budget with id ${id} exists already`);
    }
    return this.get(id);
  }

  /** Replaces a stored budget's limit and what it applies to; one in code cannot change (409). */
  async update(id: string, definition: Omit<StoredFields, 'subject'> & { subject?: string | null | undefined }): Promise<Budget> {
    this.refuseCode(id);
    if (!(await this.store.update(id, storedFields(definition), epochSeconds()))) throw new RuntimeError('NOT_FOUND', `Budget not found: ${id}`);
    return this.get(id);
  }

  async remove(id: string): Promise<void> {
    this.refuseCode(id);
    if (!(await this.store.remove(id))) throw new RuntimeError('NOT_FOUND', `Budget not found: ${id}`);
  }

  private refuseCode(id: string): void {
    if (this.options.code.some((b) => b.id === id)) throw new RuntimeError('CONFLICT', `Budget ${id} is set in the runtime's code; change it there`);
  }

  /** The counters the budgets that apply to `subject` read, grouped, in a stable order. */
  private async counters(subject: BudgetSubject, nowMs: number, budgets?: readonly Budget[]): Promise<Counter[]> {
    const byKey = new Map<string, Counter>();
    for (const budget of budgets ?? (await this.list())) {
      if (!applies(budget, subject)) continue;
      const key: CounterKey = { scope: budget.scope, subject: subjectValue(budget.scope, subject)!, window: budget.window, bucketMs: bucketStart(budget.window, nowMs) };
      const id = `${key.scope}\u0000${key.subject}\u0000${key.window}`;
      const counter = byKey.get(id) ?? { key, budgets: [] };
      counter.budgets.push(budget);
      byKey.set(id, counter);
    }
    return [...byKey.values()].sort((a, b) => counterOrder(a.key, b.key));
  }

  /**
   * Admits a new run of `subject` or throws BUDGET_EXCEEDED: counts the run on every counter
   * (refused past a runs limit), and refuses when a tokens or cost budget is already used up.
   */
  async admit(subject: BudgetSubject): Promise<Admission> {
    const nowMs = this.now();
    const counters = await this.counters(subject, nowMs);
    if (counters.length === 0) return { release: async () => undefined };
    await this.options.db.transaction(async (tx) => {
      for (const { key, budgets } of counters) {
        const runLimits = budgets.filter((b) => b.metric === 'runs');
        const max = runLimits.length ? Math.min(...runLimits.map((b) => b.limit)) : undefined;
        const after = await this.usage.addRun(tx, key, max, nowMs);
        if (!after) {
          const tightest = runLimits.find((b) => b.limit === max)!;
          throw budgetExceeded(tightest, subject, (await this.usage.read(key, tx)).runs, nowMs, 'run');
        }
        this.refuseUsedUp(budgets, after, subject, nowMs, 'run');
      }
    });
    this.pruneNowAndThen(nowMs);
    return { release: () => this.release(counters) };
  }

  private async release(counters: readonly Counter[]): Promise<void> {
    for (const { key } of counters) await this.usage.removeRun(key);
  }

  /** Throws BUDGET_EXCEEDED when a run that is under way may not call its model again. */
  async beforeModelCall(subject: BudgetSubject): Promise<void> {
    const nowMs = this.now();
    for (const { key, budgets } of await this.counters(subject, nowMs)) {
      const spending = budgets.filter((b) => b.metric !== 'runs');
      if (spending.length) this.refuseUsedUp(spending, await this.usage.read(key), subject, nowMs, 'call');
    }
  }

  /** Adds one model call's tokens and cost (at `model`'s price; an unpriced model costs nothing here). */
  async record(subject: BudgetSubject, usage: Usage, model: string): Promise<void> {
    const nowMs = this.now();
    const cost = this.options.prices ? (costOf(usage, model, this.options.prices) ?? 0) : 0;
    for (const { key } of await this.counters(subject, nowMs)) {
      await this.usage.addUsage(key, { inputTokens: usage.inputTokens, outputTokens: usage.outputTokens, costUsd: cost }, nowMs);
    }
  }

  /** Each budget that applies to `subject`, with what is used of it in its current window. */
  async report(subject: BudgetSubject, budgets: readonly Budget[]): Promise<{ budget: Budget; key: CounterKey; consumption: Consumption }[]> {
    const nowMs = this.now();
    const out: { budget: Budget; key: CounterKey; consumption: Consumption }[] = [];
    for (const { key, budgets: reading } of await this.counters(subject, nowMs, budgets)) {
      const consumption = await this.usage.read(key);
      for (const budget of reading) out.push({ budget, key, consumption });
    }
    return out;
  }

  private refuseUsedUp(budgets: readonly Budget[], c: Consumption, subject: BudgetSubject, nowMs: number, during: 'run' | 'call'): void {
    for (const b of budgets) {
      if (b.metric !== 'runs' && usedOf(b.metric, c) >= b.limit) throw budgetExceeded(b, subject, usedOf(b.metric, c), nowMs, during);
    }
  }

  private pruneNowAndThen(nowMs: number): void {
    if (nowMs - this.prunedAt < PRUNE_EVERY_MS) return;
    this.prunedAt = nowMs;
    this.usage.prune(nowMs - KEEP_MS).catch((e: unknown) => this.options.log.warn(`could not prune budget counters: ${String(e)}`));
  }
}
