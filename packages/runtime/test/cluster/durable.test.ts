/**
 * Durable runs on three runtime processes sharing one PostgreSQL: a background run started
 * through one runtime completes with no client and is read through another; a stream dropped on
 * one runtime resumes on another with Last-Event-ID, every event exactly once; one
 * Idempotency-Key sent at once to all three makes one run; enqueued messages run in order on
 * whichever runtimes take them and interrupt cancels across runtimes; kill -9 of the runtime
 * executing a background run leaves it ERROR, never RUNNING.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresTestDatabase, type TestDatabase } from '../support/databases.js';
import { eventually } from '../support/eventually.js';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm.js';
import { call } from '../support/http.js';
import { readEvents, textOf } from '../support/sse-ids.js';
import { CLUSTER_KEY, startCluster, type Cluster } from './cluster.js';

type Json = Record<string, any>;

const key = { token: CLUSTER_KEY };
const auth = { authorization: `Bearer ${CLUSTER_KEY}`, 'content-type': 'application/json' };
const words = (n: number, prefix: string) => Array.from({ length: n }, (_, i) => `${prefix}${i}`).join(' ');

describe.skipIf(!postgresTestDatabase.available)('durable runs on three runtimes on one PostgreSQL', () => {
  let fake: FakeLlm;
  let database: TestDatabase;
  let cluster: Cluster;

  const ended = (runId: string, via = cluster.url): Promise<Json> =>
    eventually(async () => {
      const run = (await call(via, 'GET', `/agents/writer/runs/${runId}`, key)).body as Json;
      return ['COMPLETED', 'ERROR', 'CANCELLED'].includes(run.status) ? run : undefined;
    }, 30_000, `run ${runId} to end`);

  const runsOf = async (sessionId: string): Promise<Json[]> => (await call(cluster.url, 'GET', `/agents/writer/runs?session_id=${sessionId}`, key)).body as Json[];

  beforeAll(async () => {
    fake = await startFakeLlm();
    database = await postgresTestDatabase.create();
    cluster = await startCluster(database, { llmUrl: fake.url, leaseSeconds: 2 });
  }, 90_000);
  afterAll(async () => {
    await cluster?.stop();
    await database?.cleanup();
    await fake?.close();
  });

  it('a background run started through one runtime completes with no client and is read through another', async () => {
    fake.setBehaviour({ chunkDelayMs: 20 });
    const [one, two] = cluster.runtimes;
    const message = words(30, 'bg');
    const accepted = await call(one!.url, 'POST', '/agents/writer/runs', { ...key, body: { message, background: true } });
    expect(accepted.status).toBe(202);
    expect(accepted.body).toMatchObject({ status: 'PENDING' });
    const run = await ended(accepted.body.run_id, two!.url);
    fake.setBehaviour({ chunkDelayMs: 0 });
    expect(run).toMatchObject({ status: 'COMPLETED', content: `You said: ${message}` });
  });

  it('a stream dropped on one runtime resumes on another with Last-Event-ID: every event exactly once', async () => {
    fake.setBehaviour({ chunkDelayMs: 40 });
    const [one, , three] = cluster.runtimes;
    const message = words(50, 's');
    const controller = new AbortController();
    const res = await fetch(`${one!.url}/agents/writer/runs`, { method: 'POST', headers: auth, body: JSON.stringify({ message, on_disconnect: 'continue' }), signal: controller.signal });
    const before = await readEvents(res, (events) => events.filter((e) => e.event === 'RunContent').length >= 10, controller);
    const runId = before[0]!.data.run_id as string;
    const after = await readEvents(await fetch(`${three!.url}/agents/writer/runs/${runId}/events`, { headers: { ...auth, 'last-event-id': before.at(-1)!.id! } }));
    fake.setBehaviour({ chunkDelayMs: 0 });
    const all = [...before, ...after];
    expect(textOf(all)).toBe(`You said: ${message}`);
    expect(all.map((e) => e.event).filter((e) => e !== 'RunContent')).toEqual(['RunStarted', 'RunCompleted']);
    expect(new Set(all.map((e) => e.id)).size).toBe(all.length);
  });

  it('one Idempotency-Key sent at once to all three runtimes makes one run', async () => {
    const body = { message: 'exactly once, please', session_id: 'cluster-idem', background: true };
    // Two requests to each runtime, all at once.
    const answers = await Promise.all(
      [...cluster.runtimes, ...cluster.runtimes].map((rt) =>
        fetch(`${rt.url}/agents/writer/runs`, { method: 'POST', headers: { ...auth, 'idempotency-key': 'cluster-key-1' }, body: JSON.stringify(body) }),
      ),
    );
    const bodies = (await Promise.all(answers.map((r) => r.json()))) as Json[];
    expect(answers.map((r) => r.status)).toEqual([202, 202, 202, 202, 202, 202]);
    expect(new Set(bodies.map((b) => b.run_id)).size).toBe(1);
    expect(answers.filter((r) => r.headers.get('idempotent-replayed') === 'true')).toHaveLength(5);
    await ended(bodies[0]!.run_id);
    expect(await runsOf('cluster-idem')).toHaveLength(1);
  });

  it('enqueued messages run in order on whichever runtimes take them; interrupt cancels a run on another runtime', async () => {
    fake.setBehaviour({ chunkDelayMs: 20 });
    const session = 'cluster-queue';
    const sent: Json[] = [];
    for (const [i, rt] of cluster.runtimes.entries()) {
      const res = await call(rt.url, 'POST', '/agents/writer/runs', { ...key, body: { message: `${words(10, `m${i}-`)}`, session_id: session, background: true, multitask_strategy: 'enqueue' } });
      expect(res.status).toBe(202);
      sent.push(res.body as Json);
    }
    for (const s of sent) await ended(s.run_id);
    const runs = await runsOf(session);
    expect(runs.map((r) => r.status)).toEqual(['COMPLETED', 'COMPLETED', 'COMPLETED']);
    // In order: the last one's model call saw the two before it completed (its history).
    const requests = fake.requests.filter((r) => JSON.stringify(r.body).includes('m2-0'));
    expect(requests.length).toBeGreaterThan(0);
    const users = ((requests[0]!.body as Json).messages as Json[]).filter((m) => m.role === 'user').map((m) => String(m.content).split(' ')[0]);
    expect(users).toEqual(['m0-0', 'm1-0', 'm2-0']);

    fake.setBehaviour({ chunkDelayMs: 60 });
    const long = await call(cluster.runtimes[0]!.url, 'POST', '/agents/writer/runs', { ...key, body: { message: words(100, 'l'), session_id: session, background: true } });
    await eventually(async () => ((await call(cluster.url, 'GET', `/agents/writer/runs/${long.body.run_id}`, key)).body.status === 'RUNNING' ? true : undefined), 10_000, 'the long run to start');
    const interrupting = await call(cluster.runtimes[2]!.url, 'POST', '/agents/writer/runs', { ...key, body: { message: 'instead', session_id: session, stream: false, multitask_strategy: 'interrupt' } });
    fake.setBehaviour({ chunkDelayMs: 0 });
    expect(interrupting).toMatchObject({ status: 200, body: { status: 'COMPLETED', content: 'You said: instead' } });
    expect((await ended(long.body.run_id)).status).toBe('CANCELLED');
  });

  it('kill -9 of the runtime executing a background run leaves it ERROR, never RUNNING', async () => {
    fake.setBehaviour({ chunkDelayMs: 60 });
    const accepted = await call(cluster.url, 'POST', '/agents/writer/runs', { ...key, body: { message: words(300, 'x'), background: true } });
    await eventually(async () => {
      const run = (await call(cluster.url, 'GET', `/agents/writer/runs/${accepted.body.run_id}`, key)).body as Json;
      return run.status === 'RUNNING' && typeof run.content === 'string' && run.content.length > 0 ? true : undefined;
    }, 15_000, 'the run to stream');
    const db = database.open();
    const [row] = await db.query<{ run_node: string }>('SELECT run_node FROM svc_runs WHERE run_id = $1', [accepted.body.run_id]);
    await db.close();
    const victim = cluster.runtimes.find((r) => row!.run_node.endsWith(`:${r.port}`))!;
    await victim.kill();
    const killedAt = Date.now();
    const run = await eventually(async () => {
      const r = (await call(cluster.url, 'GET', `/agents/writer/runs/${accepted.body.run_id}`, key)).body as Json;
      return r.status === 'RUNNING' ? undefined : r;
    }, 20_000, 'a survivor to end the run');
    fake.setBehaviour({ chunkDelayMs: 0 });
    expect(run).toMatchObject({ status: 'ERROR', error: expect.stringContaining('interrupted'), content: expect.stringMatching(/^You said: x0/) });
    process.stdout.write(`[durable cluster] background run ended ERROR ${Date.now() - killedAt} ms after kill -9 (lease 2 s)\n`);
    // It stays ended: the job a survivor took over does not start it again.
    await new Promise((r) => setTimeout(r, 3000));
    expect((await call(cluster.url, 'GET', `/agents/writer/runs/${accepted.body.run_id}`, key)).body).toMatchObject({ status: 'ERROR' });
  });
});
