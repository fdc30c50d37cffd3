/**
 * The budgets service on a real database of each kind: tenants (a principal's `tenantId`),
 * principals and agents each count on their own counters; a runs budget refuses past its limit
 * and a released admission gives the run back; tokens and cost are refused before a model call
 * once used up; windows start over; every refusal names its budget and its reset.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabaseKinds, type TestDatabase } from '../../test/support/databases.js';
import { RuntimeError } from '../errors.js';
import type { Db } from '../storage/db.js';
import { silentLogger } from '../util/logger.js';
import { Budgets } from './budgets.js';
import { codeBudgets } from './code-budgets.js';
import type { BudgetSubject } from './types.js';

const T0 = Date.UTC(2026, 10, 28, 10, 15);
const acme = (principal: string, agent = 'writer'): BudgetSubject => ({ principal, tenant: 'acme', agent });
const usage = (input: number, output: number) => ({ inputTokens: input, outputTokens: output, totalTokens: input + output });

async function refusal(promise: Promise<unknown>): Promise<RuntimeError> {
  const error = await promise.then(() => undefined, (e: unknown) => e);
  if (!RuntimeError.isInstance(error)) throw new Error(`expected a refusal, got ${String(error)}`);
  return error;
}

for (const kind of testDatabaseKinds) {
  describe.skipIf(!kind.available)(`the budgets service (${kind.kind})`, () => {
    let database: TestDatabase;
    let db: Db;
    let now = T0;
    let budgets: Budgets;

    beforeAll(async () => {
      database = await kind.create();
      db = database.open();
      await db.migrate();
      budgets = new Budgets({
        db,
        code: codeBudgets([
          { id: 'acme-runs', scope: 'tenant', subject: 'acme', metric: 'runs', window: 'hour', limit: 3 },
          { scope: 'tenant', metric: 'cost', window: 'month', limit: 0.001 },
          { id: 'each-user-tokens', scope: 'principal', metric: 'tokens', window: 'day', limit: 100 },
        ]),
        prices: { 'm-1': { input: 10, output: 30 } },
        log: silentLogger,
        now: () => now,
      });
    });
    afterAll(async () => {
      await db?.close();
      await database?.cleanup();
    });

    it('counts a tenant across its users, refuses its fourth run this hour, and takes back a released one', async () => {
      await budgets.admit(acme('u1'));
      const second = await budgets.admit(acme('u2'));
      await budgets.admit(acme('u3'));
      const refused = await refusal(budgets.admit(acme('u4')));
      expect(refused.code).toBe('BUDGET_EXCEEDED');
      expect(refused.fields).toMatchObject({ budget: { id: 'acme-runs', scope: 'tenant', subject: 'acme', metric: 'runs', window: 'hour', limit: 3, used: 3 }, retry_after: 45 * 60 });
      expect(refused.headers).toEqual({ 'retry-after': String(45 * 60) });
      // Another tenant and a caller without one are not counted there.
      await budgets.admit({ principal: 'u1', tenant: 'globex', agent: 'writer' });
      await budgets.admit({ principal: 'u9', tenant: undefined, agent: 'writer' });
      // A run that did not start after all gives its place back.
      await second.release();
      await budgets.admit(acme('u5'));
      await expect(budgets.admit(acme('u6'))).rejects.toMatchObject({ code: 'BUDGET_EXCEEDED' });
      // The next hour starts over.
      now = T0 + 3_600_000;
      await budgets.admit(acme('u7'));
      const [line] = await budgets.report({ principal: undefined, tenant: 'acme', agent: undefined }, await budgets.list());
      expect(line).toMatchObject({ budget: { id: 'acme-runs' }, consumption: { runs: 1 } });
    });

    it("refuses a user's next model call once its tokens are used up, and its tenant's once the cost is", async () => {
      now = T0 + 2 * 3_600_000;
      const alice = acme('alice');
      await budgets.beforeModelCall(alice);
      // 0.0005 USD: under the tenant's 0.001.
      await budgets.record(alice, usage(20, 10), 'm-1');
      await budgets.beforeModelCall(alice);
      await budgets.record(alice, usage(50, 25), 'm-1');
      const tokens = await refusal(budgets.beforeModelCall(alice));
      expect(tokens.fields).toMatchObject({ budget: { id: 'each-user-tokens', scope: 'principal', subject: 'alice', used: 105, limit: 100 } });
      expect(tokens.message).toContain('the run stopped before its next model call');
      // Another user of the tenant still has tokens, but the tenant's cost is spent:
      // (70 * 10 + 35 * 30) / 1e6 = 0.00175 USD of 0.001.
      const cost = await refusal(budgets.beforeModelCall(acme('bob')));
      expect(cost.fields).toMatchObject({ budget: { id: 'code-2', scope: 'tenant', subject: 'acme', metric: 'cost', limit: 0.001 } });
      expect((cost.fields as { budget: { used: number } }).budget.used).toBeCloseTo(0.00175, 12);
      // An unpriced model adds tokens and no cost; another tenant is untouched.
      const other = { principal: 'carol', tenant: 'globex', agent: 'writer' };
      await budgets.record(other, usage(5, 5), 'unpriced');
      await budgets.beforeModelCall(other);
      const report = await budgets.report(other, await budgets.list());
      expect(report.map((l) => [l.budget.id, l.consumption.inputTokens + l.consumption.outputTokens, l.consumption.costUsd])).toEqual([
        ['each-user-tokens', 10, 0],
        ['code-2', 10, 0],
      ]);
    });

    it('keeps stored budgets beside the code ones: ids are unique across both, code ones cannot change', async () => {
      const made = await budgets.create({ id: 'writer-day', scope: 'agent', subject: 'writer', metric: 'runs', window: 'day', limit: 1 });
      expect(made).toMatchObject({ id: 'writer-day', source: 'api', subject: 'writer' });
      await expect(budgets.create({ id: 'acme-runs', scope: 'agent', metric: 'runs', window: 'day', limit: 1 })).rejects.toMatchObject({ code: 'CONFLICT' });
      await expect(budgets.update('acme-runs', { scope: 'agent', metric: 'runs', window: 'day', limit: 1 })).rejects.toMatchObject({ code: 'CONFLICT' });
      await expect(budgets.remove('nope')).rejects.toMatchObject({ code: 'NOT_FOUND' });
      expect((await budgets.list()).map((b) => b.id)).toEqual(['acme-runs', 'code-2', 'each-user-tokens', 'writer-day']);
      await budgets.remove('writer-day');
    });
  });
}
