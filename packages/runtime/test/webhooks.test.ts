/**
 * Run webhooks end to end, on SQLite and PostgreSQL: the ended run reaches a loopback receiver
 * signed (the signature verifies), a failing receiver (500, then 200) is retried and every
 * attempt is readable, a background run is delivered once it has run, a delivery outlives the runtime that registered it, two runtimes on one
 * database send each delivery once, and requests are refused without WEBHOOK_SECRET (422) or for
 * a private receiver without WEBHOOK_ALLOW_PRIVATE_HOSTS (400).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent } from '../src/agent/agent.js';
import { OpenAIChatModel } from '../src/providers/openai/chat.js';
import { Runtime } from '../src/runtime.js';
import { verifyWebhook } from '../src/webhooks/signature.js';
import { testComponents } from './support/components.js';
import { testDatabaseKinds, type TestDatabase } from './support/databases.js';
import { eventually } from './support/eventually.js';
import { startFakeLlm, type FakeLlm } from './support/fake-llm.js';
import { call } from './support/http.js';
import { startRuntimeOn, type StartedRuntime } from './support/runtime.js';
import { startWebhookReceiver, type WebhookReceiver } from './support/webhook-receiver.js';

const SECRET = 'webhook-test-secret-0123456789';
const ENV = { WEBHOOK_SECRET: SECRET, WEBHOOK_ALLOW_PRIVATE_HOSTS: 'true', WEBHOOK_RETRY_BASE_SECONDS: '1' };

const run = async (url: string, message: string, webhook: string) => call(url, 'POST', '/agents/writer/runs', { body: { message, stream: false, webhook } });

for (const kind of testDatabaseKinds) {
  describe.skipIf(!kind.available)(`run webhooks on ${kind.kind}`, () => {
    let fake: FakeLlm;
    let database: TestDatabase;
    let receiver: WebhookReceiver;
    let options: Record<string, unknown>;
    let model: OpenAIChatModel;
    let rt: StartedRuntime;
    const others: StartedRuntime[] = [];

    beforeAll(async () => {
      fake = await startFakeLlm();
      receiver = await startWebhookReceiver();
      database = await kind.create();
      model = new OpenAIChatModel({ model: 'fake-model', baseURL: `${fake.url}/v1`, maxRetries: 0 });
      const { agents, teams, workflows } = testComponents(model);
      options = { agents, teams, workflows };
      rt = await startRuntimeOn(database, { ...options, env: ENV });
    });
    afterAll(async () => {
      for (const r of [...others, rt]) await r?.stop();
      await database?.cleanup();
      await receiver?.close();
      await fake?.close();
    });

    const deliveriesOf = (runId: string, base = rt.url) => call(base, 'GET', `/agents/writer/runs/${runId}/webhooks`);

    it('posts the ended run to the receiver, signed over timestamp.body, and records the attempt', async () => {
      const started = await run(rt.url, 'hello hook', `${receiver.url}/ok`);
      expect(started.status).toBe(200);
      const runId = started.body.run_id as string;
      const hit = await eventually(() => receiver.received.find((r) => r.json?.run?.run_id === runId), 10_000, 'the delivery');
      expect(hit.path).toBe('/ok');
      expect(hit.headers['content-type']).toBe('application/json');
      expect(verifyWebhook(SECRET, hit.body, hit.headers['x-svc-signature'] as string)).toBe(true);
      expect(verifyWebhook('another-secret-of-16+', hit.body, hit.headers['x-svc-signature'] as string)).toBe(false);
      expect(verifyWebhook(SECRET, hit.body.replace('hello', 'HELLO'), hit.headers['x-svc-signature'] as string)).toBe(false);
      expect(hit.json).toMatchObject({
        event: 'run.completed',
        attempt: 1,
        run: { run_id: runId, session_id: started.body.session_id, agent_id: 'writer', status: 'COMPLETED', content: 'You said: hello hook', error: null },
      });
      expect(hit.json.run.metrics.total_tokens).toBeGreaterThan(0);
      const deliveries = await eventually(async () => {
        const d = (await deliveriesOf(runId)).body;
        return d[0]?.state === 'delivered' ? d : undefined;
      });
      expect(deliveries).toEqual([
        expect.objectContaining({ run_id: runId, url: `${receiver.url}/ok`, state: 'delivered', next_attempt_at: null, attempts: [expect.objectContaining({ attempt: 1, status_code: 200, error: null })] }),
      ]);
    });

    it('a background run (202 at once) is delivered once it has run, with the request queued before it', async () => {
      const started = await call(rt.url, 'POST', '/agents/writer/runs', { body: { message: 'hook in the background', background: true, webhook: `${receiver.url}/bg` } });
      expect([started.status, started.body.status]).toEqual([202, 'PENDING']);
      const runId = started.body.run_id as string;
      const hit = await eventually(() => receiver.received.find((r) => r.json?.run?.run_id === runId), 15_000, "the background run's delivery");
      expect(hit.path).toBe('/bg');
      expect(verifyWebhook(SECRET, hit.body, hit.headers['x-svc-signature'] as string)).toBe(true);
      expect(hit.json).toMatchObject({ event: 'run.completed', run: { run_id: runId, status: 'COMPLETED', content: 'You said: hook in the background' } });
      expect(receiver.received.filter((r) => r.json?.run?.run_id === runId)).toHaveLength(1);
    });

    it('retries a receiver that answers 500, with backoff, until it answers 200; every attempt is readable', async () => {
      receiver.answer(500);
      const started = await run(rt.url, 'flaky receiver', `${receiver.url}/flaky`);
      const runId = started.body.run_id as string;
      const deliveries = await eventually(async () => {
        const d = (await deliveriesOf(runId)).body;
        return d[0]?.state === 'delivered' ? d : undefined;
      }, 15_000, 'the retried delivery');
      const [first, second] = deliveries[0].attempts;
      expect(deliveries[0].attempts).toHaveLength(2);
      expect(first).toMatchObject({ attempt: 1, status_code: 500, error: 'HTTP 500' });
      expect(second).toMatchObject({ attempt: 2, status_code: 200, error: null });
      // The backoff after the first failure is 0.5-1 s (base 1 s, equal jitter).
      expect(Date.parse(second.attempted_at) - Date.parse(first.attempted_at)).toBeGreaterThanOrEqual(450);
      const hits = receiver.received.filter((r) => r.json?.run?.run_id === runId);
      expect(hits.map((h) => [h.status, h.headers['x-svc-attempt']])).toEqual([[500, '1'], [200, '2']]);
      expect(hits.every((h) => verifyWebhook(SECRET, h.body, h.headers['x-svc-signature'] as string))).toBe(true);
    });

    it('gives a delivery up after WEBHOOK_MAX_ATTEMPTS, recording each failure', async () => {
      // A database of its own: every runtime on one database should share the webhook settings.
      const own = await kind.create();
      const stubborn = await startRuntimeOn(own, { ...options, env: { ...ENV, WEBHOOK_MAX_ATTEMPTS: '2' } });
      try {
        // No one listens on port 9 of loopback: the connection is refused.
        const started = await run(stubborn.url, 'nobody home', 'http://127.0.0.1:9/hook');
        const runId = started.body.run_id as string;
        const deliveries = await eventually(async () => {
          const d = (await deliveriesOf(runId, stubborn.url)).body;
          return d[0]?.state === 'failed' ? d : undefined;
        }, 15_000, 'the delivery to be given up');
        expect(deliveries[0].attempts.map((a: { attempt: number; status_code: number | null }) => [a.attempt, a.status_code])).toEqual([[1, null], [2, null]]);
        expect(deliveries[0].attempts[0].error).toMatch(/ECONNREFUSED|refused/i);
        expect(deliveries[0].next_attempt_at).toBeNull();
      } finally {
        await stubborn.stop();
        await own.cleanup();
      }
    });

    it('a delivery registered by a runtime that stopped before sending it is sent by the next one', async () => {
      // A database of its own: no other runtime may deliver in between.
      const own = await kind.create();
      try {
        const first = await startRuntimeOn(own, { ...options, env: ENV });
        await first.runtime.webhooks.stop();
        const started = await run(first.url, 'outlive me', `${receiver.url}/durable`);
        const runId = started.body.run_id as string;
        await new Promise((r) => setTimeout(r, 1500));
        expect(receiver.received.some((r) => r.path === '/durable')).toBe(false);
        await first.stop();
        const next = await startRuntimeOn(own, { ...options, env: ENV });
        const hit = await eventually(() => receiver.received.find((r) => r.path === '/durable'), 10_000, 'the next runtime to deliver');
        expect(hit.json.run.run_id).toBe(runId);
        await next.stop();
      } finally {
        await own.cleanup();
      }
    });

    it('two runtimes on one database send each delivery exactly once', async () => {
      const peer = await startRuntimeOn(database, { ...options, env: ENV });
      others.push(peer);
      const ids: string[] = [];
      for (let i = 0; i < 6; i++) ids.push((await run(i % 2 ? peer.url : rt.url, `pair ${i}`, `${receiver.url}/pair`)).body.run_id as string);
      await eventually(() => (ids.every((id) => receiver.received.some((r) => r.json?.run?.run_id === id)) ? true : undefined), 15_000, 'every delivery');
      await new Promise((r) => setTimeout(r, 1500));
      for (const id of ids) expect(receiver.received.filter((r) => r.json?.run?.run_id === id)).toHaveLength(1);
    });

    it("posts every API run of a component that declares a webhook in code, besides the request's own", async () => {
      const hooked = new Agent({ id: 'hooked', model, webhook: `${receiver.url}/standing` });
      expect(() => new Runtime({ agents: [hooked], env: {} })).toThrow("'hooked' declares a webhook: set WEBHOOK_SECRET");
      expect(() => new Runtime({ agents: [new Agent({ id: 'bad', model, webhook: 'file:///etc/passwd' })], env: ENV })).toThrow(/not an http\(s\) URL/);
      const own = await startRuntimeOn(database, { agents: [hooked], env: ENV });
      others.push(own);
      const plain = await call(own.url, 'POST', '/agents/hooked/runs', { body: { message: 'standing order', stream: false } });
      const both = await call(own.url, 'POST', '/agents/hooked/runs', { body: { message: 'two receivers', stream: false, webhook: `${receiver.url}/extra` } });
      const paths = async (runId: string) => {
        const d = (await call(own.url, 'GET', `/agents/hooked/runs/${runId}/webhooks`)).body as { url: string; state: string }[];
        return d.every((x) => x.state === 'delivered') ? d.map((x) => new URL(x.url).pathname).sort() : undefined;
      };
      expect(await eventually(() => paths(plain.body.run_id), 10_000, 'the standing delivery')).toEqual(['/standing']);
      expect(await eventually(() => paths(both.body.run_id), 10_000, 'both deliveries')).toEqual(['/extra', '/standing']);
      const standing = receiver.received.filter((r) => r.path === '/standing').map((r) => r.json.run.input.message);
      expect(standing).toEqual(expect.arrayContaining(['standing order', 'two receivers']));
    });

    it('refuses a private receiver without WEBHOOK_ALLOW_PRIVATE_HOSTS, and any webhook without WEBHOOK_SECRET, before running', async () => {
      const strict = await startRuntimeOn(database, { ...options, env: { WEBHOOK_SECRET: SECRET } });
      const open = await startRuntimeOn(database, { ...options, env: {} });
      others.push(strict, open);
      const before = (await call(rt.url, 'GET', '/agents/writer/runs')).body.length;
      const refused = await run(strict.url, 'private', `${receiver.url}/private`);
      expect(refused.status).toBe(400);
      expect(refused.body.detail).toMatch(/^Webhook URL refused: .*loopback.*WEBHOOK_ALLOW_PRIVATE_HOSTS=true/);
      const unsigned = await run(open.url, 'unsigned', `${receiver.url}/unsigned`);
      expect(unsigned.status).toBe(422);
      expect(unsigned.body.detail).toMatch(/WEBHOOK_SECRET/);
      const bad = await run(rt.url, 'bad url', 'ftp://example.com/hook');
      expect(bad.status).toBe(400);
      expect(bad.body.detail).toMatch(/Only http and https/);
      expect((await call(rt.url, 'GET', '/agents/writer/runs')).body.length).toBe(before);
    });
  });
}
