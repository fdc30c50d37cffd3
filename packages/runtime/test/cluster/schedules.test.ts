/**
 * Schedules and webhooks across three runtime processes on one PostgreSQL behind a round-robin
 * proxy: an every-two-seconds schedule (a seconds field) fires exactly once per occurrence for
 * a minute, every runtime taking a share, and each occurrence's run reaches the schedule's webhook
 * exactly once, signed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyWebhook } from '../../src/webhooks/signature.js';
import { postgresTestDatabase, type TestDatabase } from '../support/databases.js';
import { eventually } from '../support/eventually.js';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm.js';
import { call } from '../support/http.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';
import { CLUSTER_KEY, startCluster, type Cluster } from './cluster.js';

type Json = Record<string, any>;
const key = { token: CLUSTER_KEY };
const SECRET = 'cluster-webhook-secret-0123456789';
// Over a minute, as the issue asks: thirty occurrences, each with its own race between three runtimes.
const WINDOW_MS = 60_000;

describe.skipIf(!postgresTestDatabase.available)('schedules on three runtimes behind a load balancer', () => {
  let fake: FakeLlm;
  let receiver: WebhookReceiver;
  let database: TestDatabase;
  let cluster: Cluster;

  beforeAll(async () => {
    fake = await startFakeLlm();
    receiver = await startWebhookReceiver();
    database = await postgresTestDatabase.create();
    cluster = await startCluster(database, { llmUrl: fake.url, env: { WEBHOOK_SECRET: SECRET, WEBHOOK_ALLOW_PRIVATE_HOSTS: 'true', WEBHOOK_RETRY_BASE_SECONDS: '1' } });
  }, 120_000);
  afterAll(async () => {
    await cluster?.stop();
    await database?.cleanup();
    await receiver?.close();
    await fake?.close();
  });

  it('fires an every-two-seconds schedule exactly once per occurrence, each run delivered to its webhook once', async () => {
    const created = await call(cluster.url, 'POST', '/schedules', {
      ...key,
      body: { cron: '*/2 * * * * *', target: { kind: 'agent', id: 'writer' }, input: { message: 'cluster tick' }, webhook: `${receiver.url}/tick` },
    });
    expect(created.status).toBe(201);
    const id = created.body.schedule_id as string;
    const begun = Date.now();
    await new Promise((r) => setTimeout(r, WINDOW_MS));
    expect((await call(cluster.url, 'POST', `/schedules/${id}/disable`, key)).body.enabled).toBe(false);
    const ended = Date.now();

    const occurrences = ((await call(cluster.url, 'GET', `/schedules/${id}/runs`, key)).body as Json[]).toReversed();
    const times = occurrences.map((o) => Date.parse(o.occurrence_at));
    expect(new Set(times).size).toBe(times.length);
    for (let i = 1; i < times.length; i++) expect(times[i]! - times[i - 1]!).toBe(2000);
    // No occurrence of the window is missing at either end.
    expect(times[0]!).toBeLessThanOrEqual(begun + 3000);
    expect(times.at(-1)!).toBeGreaterThanOrEqual(ended - 3500);
    expect(times.length).toBeGreaterThanOrEqual(WINDOW_MS / 2000 - 1);
    expect(occurrences.every((o) => o.trigger === 'cron' && o.state === 'started' && typeof o.run_id === 'string')).toBe(true);

    const db = database.open();
    try {
      const [count] = await db.query<{ n: string }>(`SELECT COUNT(*) AS n FROM svc_runs WHERE input LIKE '%cluster tick%'`);
      expect(Number(count?.n)).toBe(occurrences.length);
      const owners = await db.query<{ fired_by: string }>('SELECT DISTINCT fired_by FROM svc_schedule_occurrences WHERE schedule_id = $1', [id]);
      // Every runtime competes for every occurrence; more than one wins some.
      expect(owners.length).toBeGreaterThan(1);
      const lateness = occurrences.map((o) => Date.parse(o.recorded_at) - Date.parse(o.occurrence_at)).sort((a, b) => a - b);
      process.stdout.write(`cluster: ${occurrences.length} occurrences in ${((ended - begun) / 1000).toFixed(1)} s fired by ${owners.length} runtimes; lateness ms median ${lateness[Math.floor(lateness.length / 2)]} max ${lateness.at(-1)}\n`);
      expect(lateness.at(-1)!).toBeLessThan(2000);
    } finally {
      await db.close();
    }

    const runIds = occurrences.map((o) => o.run_id as string);
    await eventually(() => (runIds.every((r) => receiver.received.some((h) => h.json?.run?.run_id === r)) ? true : undefined), 20_000, 'every webhook');
    await new Promise((r) => setTimeout(r, 1500));
    for (const runId of runIds) {
      const hits = receiver.received.filter((h) => h.json?.run?.run_id === runId);
      expect(hits).toHaveLength(1);
      expect(hits[0]!.json.run).toMatchObject({ status: 'COMPLETED', content: 'You said: cluster tick' });
      expect(verifyWebhook(SECRET, hits[0]!.body, hits[0]!.headers['x-svc-signature'] as string)).toBe(true);
    }
  }, 120_000);
});
