/**
 * Runs that outlive the connection, on both stores, with two runtimes on one database: a
 * background run answers 202 at once and completes without its client, read through the other
 * runtime; a stream dropped mid-way resumes on the other runtime with Last-Event-ID, every
 * event once; an Idempotency-Key makes one run of concurrent repeats (and one content record),
 * and 409 for another body; a busy session rejects, enqueues in order, or is interrupted; the
 * MCP run tools start background runs and get_run reads them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IdempotencyStore } from '../src/idempotency/idempotency-store.js';
import { OpenAIChatModel } from '../src/providers/openai/chat.js';
import { testComponents, testKnowledge } from './support/components.js';
import { testDatabaseKinds, type TestDatabase } from './support/databases.js';
import { eventually } from './support/eventually.js';
import { startFakeEmbeddings, type FakeEmbeddings } from './support/fake-embeddings.js';
import { startFakeLlm, type FakeLlm } from './support/fake-llm.js';
import { call } from './support/http.js';
import { initialize } from './support/mcp-raw.js';
import { startRuntimeOn, type StartedRuntime } from './support/runtime.js';
import { readEvents, textOf } from './support/sse-ids.js';

type Json = Record<string, any>;

const words = (n: number, prefix: string) => Array.from({ length: n }, (_, i) => `${prefix}${i}`).join(' ');

const post = (url: string, path: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });

const finished = async (url: string, runId: string): Promise<Json> =>
  eventually(async () => {
    const run = (await call(url, 'GET', `/agents/writer/runs/${runId}`)).body as Json;
    return ['COMPLETED', 'ERROR', 'CANCELLED'].includes(run.status) ? run : undefined;
  }, 20_000, `run ${runId} to end`);

for (const kind of testDatabaseKinds) {
  describe.skipIf(!kind.available)(`durable runs on ${kind.kind}`, () => {
    let fake: FakeLlm;
    let embeddings: FakeEmbeddings;
    let database: TestDatabase;
    let a: StartedRuntime;
    let b: StartedRuntime;

    beforeAll(async () => {
      fake = await startFakeLlm();
      embeddings = await startFakeEmbeddings();
      database = await kind.create();
      const model = new OpenAIChatModel({ model: 'fake-model', baseURL: `${fake.url}/v1`, maxRetries: 0 });
      const { agents, teams, workflows } = testComponents(model);
      const knowledgePath = kind.kind === 'sqlite' ? `${database.url}.knowledge.db` : undefined;
      const knowledge = () => [testKnowledge(embeddings.url, knowledgePath, kind.kind === 'postgres' ? database.url : undefined)];
      a = await startRuntimeOn(database, { agents, teams, workflows, knowledge: knowledge(), mcp_server: true });
      b = await startRuntimeOn(database, { agents, teams, workflows, knowledge: knowledge(), mcp_server: true });
    }, 60_000);
    afterAll(async () => {
      await a?.stop();
      await b?.stop();
      await database?.cleanup();
      await embeddings?.close();
      await fake?.close();
    });

    it('a background run answers 202 at once, completes without its client, and is read through the other runtime', async () => {
      fake.setBehaviour({ chunkDelayMs: 100 });
      const message = words(20, 'bg');
      const started = performance.now();
      const res = await post(a.url, '/agents/writer/runs', { message, background: true });
      const accepted = (await res.json()) as Json;
      expect(res.status).toBe(202);
      // Answered long before the model's answer ends (the echo's 22 words at 100 ms each take
      // 2.2 s), with room for a loaded machine's slow first request.
      expect(performance.now() - started).toBeLessThan(2000);
      expect(accepted).toMatchObject({ run_id: expect.any(String), session_id: expect.any(String), status: 'PENDING', agent_id: 'writer' });
      const run = await finished(b.url, accepted.run_id);
      fake.setBehaviour({ chunkDelayMs: 0 });
      expect(run).toMatchObject({ status: 'COMPLETED', content: `You said: ${message}` });
      const events = await readEvents(await fetch(`${b.url}/agents/writer/runs/${accepted.run_id}/events`));
      expect(events[0]).toMatchObject({ id: '1', event: 'RunStarted' });
      expect(events.at(-1)!.event).toBe('RunCompleted');
      expect(textOf(events)).toBe(`You said: ${message}`);
    });

    it('teams and workflows run in the background too', async () => {
      const team = await call(a.url, 'POST', '/teams/coordinator/runs', { body: { message: 'team work', background: true } });
      const workflow = await call(b.url, 'POST', '/workflows/pipeline/runs', { body: { message: 'flow work', background: true } });
      expect([team.status, workflow.status]).toEqual([202, 202]);
      expect(team.body).toMatchObject({ team_id: 'coordinator', status: 'PENDING' });
      const ended = (path: string) =>
        eventually(async () => {
          const run = (await call(a.url, 'GET', path)).body as Json;
          return ['COMPLETED', 'ERROR', 'CANCELLED'].includes(run.status) ? run : undefined;
        }, 20_000, path);
      expect(await ended(`/teams/coordinator/runs/${team.body.run_id}`)).toMatchObject({ status: 'COMPLETED' });
      expect(await ended(`/workflows/pipeline/runs/${workflow.body.run_id}`)).toMatchObject({ status: 'COMPLETED', content: expect.stringContaining('final: ') });
      // Read at once after the run ended: its final events were stored before its final status.
      const events = await readEvents(await fetch(`${b.url}/workflows/pipeline/runs/${workflow.body.run_id}/events`));
      expect([events[0]!.event, events.at(-1)!.event]).toEqual(['WorkflowStarted', 'WorkflowCompleted']);
    });

    it('a stream dropped mid-way resumes on the other runtime with Last-Event-ID: every event once, nothing missed', async () => {
      fake.setBehaviour({ chunkDelayMs: 40 });
      const message = words(40, 'r');
      const controller = new AbortController();
      const res = await fetch(`${a.url}/agents/writer/runs`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ message, on_disconnect: 'continue' }),
        signal: controller.signal,
      });
      const before = await readEvents(res, (events) => events.filter((e) => e.event === 'RunContent').length >= 8, controller);
      expect(before.every((e) => e.id !== undefined)).toBe(true);
      const runId = before[0]!.data.run_id as string;
      const lastId = before.at(-1)!.id!;
      expect(lastId).toMatch(/^\d+:\d+$/);
      // The run goes on without its client ("continue"); the other runtime replays what was missed, then the rest live.
      const after = await readEvents(await fetch(`${b.url}/agents/writer/runs/${runId}/events`, { headers: { 'last-event-id': lastId } }));
      fake.setBehaviour({ chunkDelayMs: 0 });
      const all = [...before, ...after];
      expect(textOf(all)).toBe(`You said: ${message}`);
      expect(all.filter((e) => e.event === 'RunStarted')).toHaveLength(1);
      expect(all.filter((e) => e.event === 'RunCompleted')).toHaveLength(1);
      expect(all.at(-1)!.event).toBe('RunCompleted');
      // Ids never go back: the stored index, then the characters inside a text event.
      const order = all.map((e) => e.id!.split(':').map(Number) as [number, number?]);
      for (let i = 1; i < order.length; i++) {
        const [seq, chars] = order[i]!;
        const [prevSeq, prevChars] = order[i - 1]!;
        expect(seq > prevSeq || (seq === prevSeq && (chars ?? Infinity) > (prevChars ?? -1))).toBe(true);
      }
      // ?after= resumes the same way.
      const viaQuery = await readEvents(await fetch(`${a.url}/agents/writer/runs/${runId}/events?after=${encodeURIComponent(lastId)}`));
      expect(textOf([...before, ...viaQuery])).toBe(`You said: ${message}`);
      expect((await call(a.url, 'GET', `/agents/writer/runs/${runId}/events?after=x`)).status).toBe(422);
    });

    it('concurrent repeats of an Idempotency-Key on both runtimes make one run; another body under the key is 409', async () => {
      const key = `idem-${kind.kind}-${Date.now()}`;
      const body = { message: `idempotent ${kind.kind}`, background: true, session_id: `idem-session-${kind.kind}` };
      const answers = await Promise.all([a, b, a, b, a, b].map((rt) => post(rt.url, '/agents/writer/runs', body, { 'idempotency-key': key })));
      const bodies = (await Promise.all(answers.map((r) => r.json()))) as Json[];
      expect(answers.map((r) => r.status)).toEqual([202, 202, 202, 202, 202, 202]);
      expect(new Set(bodies.map((x) => x.run_id)).size).toBe(1);
      expect(answers.filter((r) => r.headers.get('idempotent-replayed') === 'true')).toHaveLength(5);
      await finished(a.url, bodies[0]!.run_id);
      const runs = (await call(a.url, 'GET', `/agents/writer/runs?session_id=${body.session_id}`)).body as Json[];
      expect(runs).toHaveLength(1);
      // A repeat later answers the same run, in the same shape.
      const again = await post(b.url, '/agents/writer/runs', { ...body }, { 'idempotency-key': key });
      expect(again.status).toBe(202);
      expect(((await again.json()) as Json).run_id).toBe(bodies[0]!.run_id);
      // Same key, another body.
      const other = await post(a.url, '/agents/writer/runs', { ...body, message: 'something else' }, { 'idempotency-key': key });
      expect(other.status).toBe(409);
      expect(await other.json()).toMatchObject({ error_code: 'IDEMPOTENCY_KEY_REUSED' });
      // A non-streaming repeat waits for the run and answers it whole.
      const plainKey = `${key}-plain`;
      const plain = { message: `plain ${kind.kind}`, stream: false };
      const [one, two] = await Promise.all([post(a.url, '/agents/writer/runs', plain, { 'idempotency-key': plainKey }), post(b.url, '/agents/writer/runs', plain, { 'idempotency-key': plainKey })]);
      const [first, second] = (await Promise.all([one.json(), two.json()])) as Json[];
      expect([one.status, two.status]).toEqual([200, 200]);
      expect(second).toMatchObject({ run_id: first!.run_id, status: 'COMPLETED', content: `You said: plain ${kind.kind}` });
      expect((await post(a.url, '/agents/writer/runs', plain, { 'idempotency-key': 'bad key with spaces' })).status).toBe(400);
    });

    it('an Idempotency-Key on a content upload makes one record for concurrent repeats', async () => {
      const key = `content-${kind.kind}-${Date.now()}`;
      const body = { name: `idem-${kind.kind}.txt`, text_content: 'Idempotent content about lighthouses.' };
      const answers = await Promise.all([a, b, a].map((rt) => post(rt.url, '/knowledge/content', body, { 'idempotency-key': key })));
      const bodies = (await Promise.all(answers.map((r) => r.json()))) as Json[];
      expect(answers.map((r) => r.status)).toEqual([202, 202, 202]);
      expect(new Set(bodies.map((x) => x.id)).size).toBe(1);
      const listed = (await call(a.url, 'GET', '/knowledge/content?limit=100')).body.data as Json[];
      expect(listed.filter((r) => r.name === body.name)).toHaveLength(1);
      const other = await post(b.url, '/knowledge/content', { ...body, text_content: 'Different' }, { 'idempotency-key': key });
      expect(other.status).toBe(409);
      expect(await other.json()).toMatchObject({ error_code: 'IDEMPOTENCY_KEY_REUSED' });
    });

    it('a busy session rejects by default, runs enqueued messages in order after the current one, and interrupt cancels it', async () => {
      fake.setBehaviour({ chunkDelayMs: 30 });
      const session = `queue-${kind.kind}`;
      const controller = new AbortController();
      const firstRes = await fetch(`${a.url}/agents/writer/runs`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ message: words(20, 'one'), session_id: session }),
        signal: controller.signal,
      });
      const firstEvents = readEvents(firstRes);
      await eventually(async () => ((await call(a.url, 'GET', `/agents/writer/runs?session_id=${session}&status=RUNNING`)).body.length === 1 ? true : undefined), 5000, 'the first run to start');
      const rejected = await post(b.url, '/agents/writer/runs', { message: 'too soon', session_id: session, stream: false });
      expect(rejected.status).toBe(409);
      expect(await rejected.json()).toMatchObject({ error_code: 'CONFLICT', detail: expect.stringContaining('multitask_strategy') });
      const requestsBefore = fake.requests.length;
      const second = post(b.url, '/agents/writer/runs', { message: 'second', session_id: session, stream: false, multitask_strategy: 'enqueue' });
      // In order of admission: the second is queued before the third is sent.
      await eventually(async () => ((await call(a.url, 'GET', `/agents/writer/runs?session_id=${session}&status=PENDING`)).body.length === 1 ? true : undefined), 5000, 'the second to be queued');
      const third = await post(a.url, '/agents/writer/runs', { message: 'third', session_id: session, background: true, multitask_strategy: 'enqueue' });
      expect(third.status).toBe(202);
      const thirdRun = (await third.json()) as Json;
      const secondRun = (await (await second).json()) as Json;
      expect(secondRun).toMatchObject({ status: 'COMPLETED', content: 'You said: second' });
      expect(textOf(await firstEvents)).toBe(`You said: ${words(20, 'one')}`);
      expect(await finished(a.url, thirdRun.run_id)).toMatchObject({ status: 'COMPLETED', content: 'You said: third' });
      // In order: each queued run saw the ones before it completed (its history).
      const histories = fake.requests.slice(requestsBefore).map((r) => ((r.body as Json).messages as Json[]).filter((m) => m.role === 'user').map((m) => m.content as string));
      expect(histories.map((h) => h.at(-1))).toEqual(['second', 'third']);
      expect(histories[1]).toEqual([words(20, 'one'), 'second', 'third']);

      // Interrupt: the running run is cancelled (wherever it runs), then the new message runs.
      const longRes = await fetch(`${a.url}/agents/writer/runs`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ message: words(60, 'long'), session_id: session, on_disconnect: 'continue' }),
      });
      const longEvents = readEvents(longRes);
      await eventually(async () => ((await call(a.url, 'GET', `/agents/writer/runs?session_id=${session}&status=RUNNING`)).body.length === 1 ? true : undefined), 5000, 'the long run to start');
      const interrupting = await post(b.url, '/agents/writer/runs', { message: 'stop that', session_id: session, stream: false, multitask_strategy: 'interrupt' });
      fake.setBehaviour({ chunkDelayMs: 0 });
      expect(interrupting.status).toBe(200);
      expect(await interrupting.json()).toMatchObject({ status: 'COMPLETED', content: 'You said: stop that' });
      const long = await longEvents;
      expect(long.at(-1)).toMatchObject({ event: 'RunCancelled' });
      const runs = (await call(a.url, 'GET', `/agents/writer/runs?session_id=${session}`)).body as Json[];
      expect(runs.map((r) => r.status)).toEqual(['COMPLETED', 'COMPLETED', 'COMPLETED', 'CANCELLED', 'COMPLETED']);
    });

    it('a streamed message queued behind a busy session streams the queued run once it runs, with event ids', async () => {
      fake.setBehaviour({ chunkDelayMs: 20 });
      const session = `queued-stream-${kind.kind}`;
      const first = (await (await post(a.url, '/agents/writer/runs', { message: words(15, 'q'), session_id: session, background: true })).json()) as Json;
      await eventually(async () => ((await call(a.url, 'GET', `/agents/writer/runs/${first.run_id}`)).body.status === 'RUNNING' ? true : undefined), 5000, 'the first run to start');
      const events = await readEvents(await post(b.url, '/agents/writer/runs', { message: 'queued and streamed', session_id: session, multitask_strategy: 'enqueue' }));
      fake.setBehaviour({ chunkDelayMs: 0 });
      expect(events[0]).toMatchObject({ id: '1', event: 'RunStarted' });
      expect(events.at(-1)).toMatchObject({ event: 'RunCompleted' });
      expect(textOf(events)).toBe('You said: queued and streamed');
      expect((await call(a.url, 'GET', `/agents/writer/runs/${first.run_id}`)).body.status).toBe('COMPLETED');
    });

    it('a queued run can be cancelled before it starts, and its followers see the end', async () => {
      fake.setBehaviour({ chunkDelayMs: 30 });
      const session = `cancel-queued-${kind.kind}`;
      const first = await post(a.url, '/agents/writer/runs', { message: words(20, 'c'), session_id: session, background: true });
      const queued = (await (await post(b.url, '/agents/writer/runs', { message: 'later', session_id: session, background: true, multitask_strategy: 'enqueue' })).json()) as Json;
      expect(queued.status).toBe('PENDING');
      const cancel = await call(b.url, 'POST', `/agents/writer/runs/${queued.run_id}/cancel`);
      expect(cancel.body).toMatchObject({ cancelled: true, status: 'CANCELLED' });
      const events = await readEvents(await fetch(`${a.url}/agents/writer/runs/${queued.run_id}/events`));
      expect(events.map((e) => e.event)).toEqual(['RunCancelled']);
      await finished(a.url, ((await first.json()) as Json).run_id);
      fake.setBehaviour({ chunkDelayMs: 0 });
      expect((await call(a.url, 'GET', `/agents/writer/runs/${queued.run_id}`)).body.status).toBe('CANCELLED');
    });

    it('expired idempotency keys are deleted by the run chores; a key is per principal', async () => {
      const db = database.open();
      try {
        const now = Date.now();
        await db.execute(
          `INSERT INTO svc_idempotency_keys (principal, idem_key, fingerprint, created_ms, expires_ms) VALUES ('anonymous', 'old-key', 'f', $1, $2), ('anonymous', 'fresh-key', 'f', $1, $3)`,
          [now - 25 * 3600_000, now - 3600_000, now + 3600_000],
        );
        // A runtime's chores sweep at start, then every half lease.
        const c = await startRuntimeOn(database, {}, { runLeaseMs: 400 });
        try {
          await eventually(async () => ((await db.query('SELECT idem_key FROM svc_idempotency_keys WHERE idem_key = $1', ['old-key'])).length === 0 ? true : undefined), 5000, 'the expired key to go');
        } finally {
          await c.stop();
        }
        expect(await db.query('SELECT idem_key FROM svc_idempotency_keys WHERE idem_key = $1', ['fresh-key'])).toHaveLength(1);
        const store = new IdempotencyStore(db);
        expect(await store.claim({ principal: 'user:ann', key: 'k' }, 'one', null)).toEqual({ kind: 'new' });
        expect(await store.claim({ principal: 'user:bob', key: 'k' }, 'two', null)).toEqual({ kind: 'new' });
        expect(await store.claim({ principal: 'user:ann', key: 'k' }, 'two', null)).toEqual({ kind: 'mismatch' });
        expect(await store.claim({ principal: 'user:ann', key: 'k' }, 'one', null)).toMatchObject({ kind: 'repeat' });
      } finally {
        await db.close();
      }
    });

    it('run_agent on /mcp with background answers at once with the run id; get_run reads the result', async () => {
      const mcp = `${a.url}/mcp`;
      const sessionId = await initialize(mcp);
      const rpc = async (id: number, name: string, args: Json): Promise<Json> => {
        const res = await fetch(mcp, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...(sessionId ? { 'mcp-session-id': sessionId } : {}) },
          body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } }),
        });
        const text = await res.text();
        const json = (text.startsWith('{') ? JSON.parse(text) : JSON.parse(/^data: (.*)$/m.exec(text)![1]!)) as Json;
        return json.result as Json;
      };
      const started = await rpc(1, 'run_agent', { agent_id: 'writer', message: 'in the background', background: true });
      expect(started.structuredContent).toMatchObject({ status: 'PENDING', run_id: expect.any(String) });
      const runId = started.structuredContent.run_id as string;
      const result = await eventually(async () => {
        const got = await rpc(2, 'get_run', { run_id: runId });
        return got.structuredContent.status === 'COMPLETED' ? got : undefined;
      }, 10_000, 'the background run to complete');
      expect(result.structuredContent).toMatchObject({ run_id: runId, content: 'You said: in the background' });
      const missing = await rpc(3, 'get_run', { run_id: 'nope' });
      expect(missing.isError).toBe(true);
    });
  });
}
