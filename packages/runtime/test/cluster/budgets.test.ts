/**
 * Budgets across three runtimes (processes of their own) on one PostgreSQL, behind the
 * round-robin proxy: concurrent runs against one token budget overshoot it by at most one
 * model call per concurrent run, every token counted (no lost update); a runs budget admits
 * exactly its limit out of a burst of concurrent runs; the next run is refused 429 with
 * Retry-After; no run is left RUNNING.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresTestDatabase, type TestDatabase } from '../support/databases.js';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm.js';
import { call, type Reply } from '../support/http.js';
import { CLUSTER_KEY, startCluster, type Cluster } from './cluster.js';

const key = { token: CLUSTER_KEY };
/** What the fake reports for every model call. */
const PER_CALL = 12 + 5;
const CONCURRENT = 6;

describe.skipIf(!postgresTestDatabase.available)('budgets across three runtimes on one PostgreSQL', () => {
  let fake: FakeLlm;
  let database: TestDatabase;
  let cluster: Cluster;

  beforeAll(async () => {
    // Slow enough streams that the runs of a wave really overlap.
    fake = await startFakeLlm({ chunkDelayMs: 15 });
    database = await postgresTestDatabase.create();
    cluster = await startCluster(database, { llmUrl: fake.url });
  }, 90_000);
  afterAll(async () => {
    await cluster?.stop();
    await database?.cleanup();
    await fake?.close();
  });

  const runWeather = (i: number): Promise<Reply> =>
    call(cluster.url, 'POST', '/agents/weather/runs', { ...key, body: { message: `Weather ${i}?`, stream: false, user_id: `u${i % 4}` } });

  it('concurrent runs overshoot a token budget by at most one model call each, and every token is counted', async () => {
    const limit = 500;
    const created = await call(cluster.url, 'POST', '/budgets', { ...key, body: { id: 'weather-tokens', scope: 'agent', subject: 'weather', metric: 'tokens', window: 'day', limit } });
    expect(created.status).toBe(201);
    const before = fake.requests.length;
    const replies: Reply[] = [];
    let i = 0;
    // Waves of concurrent runs (each two model calls) until the budget refuses a whole wave.
    for (let wave = 0; wave < 20; wave++) {
      const answers = await Promise.all(Array.from({ length: CONCURRENT }, () => runWeather(i++)));
      replies.push(...answers);
      if (answers.every((a) => a.status === 429)) break;
    }
    expect(replies.at(-1)!.status).toBe(429);
    const ran = replies.filter((r) => r.status === 200);
    for (const r of ran) expect(['COMPLETED', 'ERROR']).toContain(r.body.status);
    const stopped = ran.filter((r) => r.body.status === 'ERROR');
    expect(stopped.length).toBeGreaterThan(0);
    for (const r of stopped) expect(r.body.error).toMatch(/^Budget "weather-tokens" exceeded: agent weather has used \d+ tokens of 500 tokens this day/);
    for (const r of replies.filter((x) => x.status === 429)) {
      expect(r.body).toMatchObject({ error_code: 'BUDGET_EXCEEDED', budget: { id: 'weather-tokens', scope: 'agent', subject: 'weather', metric: 'tokens', limit } });
      expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0);
    }

    const usage = await call(cluster.url, 'GET', '/usage?agent=weather', key);
    const line = usage.body.budgets.find((b: Record<string, any>) => b.budget.id === 'weather-tokens');
    const calls = fake.requests.length - before;
    // Every call's tokens counted, across three processes writing one counter at once.
    expect(line.used).toBe(calls * PER_CALL);
    expect(line.runs).toBe(ran.length);
    // Reached, and overshot by at most one model call per concurrent run.
    expect(line.used).toBeGreaterThanOrEqual(limit);
    expect(line.used - limit).toBeLessThanOrEqual(CONCURRENT * PER_CALL);
    process.stdout.write(`token budget ${limit}: used ${line.used} over ${calls} model calls in ${ran.length} runs (${stopped.length} stopped, ${replies.length - ran.length} refused), overshoot ${line.used - limit}\n`);

    // Nothing stuck: every run that started has ended.
    for (const r of ran) {
      const stored = await call(cluster.url, 'GET', `/agents/weather/runs/${r.body.run_id}`, key);
      expect(['COMPLETED', 'ERROR']).toContain(stored.body.status);
    }
    const next = await runWeather(999);
    expect(next.status).toBe(429);
  }, 240_000);

  it('a runs budget admits exactly its limit out of a concurrent burst spread over the runtimes', async () => {
    await call(cluster.url, 'POST', '/budgets', { ...key, body: { id: 'carol-runs', scope: 'principal', subject: 'carol', metric: 'runs', window: 'hour', limit: 5 } });
    const routed = cluster.proxy.routed.length;
    const burst = await Promise.all(
      Array.from({ length: 15 }, (_, n) => call(cluster.url, 'POST', '/agents/writer/runs', { ...key, body: { message: `burst ${n}`, stream: false, user_id: 'carol' } })),
    );
    expect(new Set(cluster.proxy.routed.slice(routed))).toEqual(new Set([0, 1, 2]));
    expect(burst.filter((r) => r.status === 200)).toHaveLength(5);
    expect(burst.filter((r) => r.status === 429)).toHaveLength(10);
    const usage = await call(cluster.url, 'GET', '/usage?principal=carol', key);
    expect(usage.body.budgets).toEqual([expect.objectContaining({ subject: 'carol', used: 5, remaining: 0, runs: 5 })]);
  }, 120_000);
});
