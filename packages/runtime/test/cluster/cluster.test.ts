/**
 * Three runtimes on one PostgreSQL behave as one, tested through a round-robin proxy only:
 * cancel and continue reach the runtime that runs the run, events can be followed from any
 * runtime, kill -9 mid-run and mid-job loses nothing, and a revoked token stops everywhere.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresTestDatabase, type TestDatabase } from '../support/databases.js';
import { eventually } from '../support/eventually.js';
import { startFakeEmbeddings, type FakeEmbeddings } from '../support/fake-embeddings.js';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm.js';
import { call } from '../support/http.js';
import { parseSse } from '../support/sse.js';
import { CLUSTER_KEY, startCluster, type Cluster } from './cluster.js';

type Json = Record<string, any>;

const words = (n: number, prefix = 'w') => Array.from({ length: n }, (_, i) => `${prefix}${i}`).join(' ');

/** Starts a streaming run through the proxy; answers its id and the rest of its stream. */
async function startStreamingRun(cluster: Cluster, agent: string, message: string): Promise<{ runId: string; rest: Promise<string> }> {
  const res = await fetch(`${cluster.url}/agents/${agent}/runs`, {
    method: 'POST',
    headers: { authorization: `Bearer ${CLUSTER_KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ message }),
  });
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  const first = decoder.decode((await reader.read()).value);
  const runId = parseSse(first)[0]!.data.run_id as string;
  const rest = (async () => {
    let text = first;
    for (;;) {
      const { done, value } = await reader.read().catch(() => ({ done: true, value: undefined }));
      if (done) return text;
      text += decoder.decode(value);
    }
  })();
  return { runId, rest };
}

const key = { token: CLUSTER_KEY };

describe.skipIf(!postgresTestDatabase.available)('three runtimes on one PostgreSQL behind a load balancer', () => {
  let fake: FakeLlm;
  let embeddings: FakeEmbeddings;
  let database: TestDatabase;
  let cluster: Cluster;

  beforeAll(async () => {
    fake = await startFakeLlm({ toolArguments: { delete_file: { path: 'notes.txt' } } });
    embeddings = await startFakeEmbeddings({ delayMs: 200 });
    database = await postgresTestDatabase.create();
    cluster = await startCluster(database, { llmUrl: fake.url, embeddingsUrl: embeddings.url, leaseSeconds: 2 });
  }, 90_000);
  afterAll(async () => {
    await cluster?.stop();
    await database?.cleanup();
    await embeddings?.close();
    await fake?.close();
  });

  it('spreads requests over all three runtimes', async () => {
    const before = cluster.proxy.routed.length;
    for (let i = 0; i < 6; i++) expect((await call(cluster.url, 'GET', '/config', key)).status).toBe(200);
    expect(new Set(cluster.proxy.routed.slice(before))).toEqual(new Set([0, 1, 2]));
  });

  it('a cancel that lands on another runtime stops the run where it runs, keeping its output', async () => {
    fake.setBehaviour({ chunkDelayMs: 50 });
    const { runId, rest } = await startStreamingRun(cluster, 'writer', words(60));
    await new Promise((r) => setTimeout(r, 400));
    const cancel = await call(cluster.url, 'POST', `/agents/writer/runs/${runId}/cancel`, key);
    fake.setBehaviour({ chunkDelayMs: 0 });
    expect(cancel.body).toEqual({ run_id: runId, cancelled: true, status: 'CANCELLED', already_finished: false });
    const events = parseSse(await rest);
    expect(events.at(-1)!.event).toBe('RunCancelled');
    const run = (await call(cluster.url, 'GET', `/agents/writer/runs/${runId}`, key)).body as Json;
    expect(run).toMatchObject({ status: 'CANCELLED', content: expect.stringMatching(/^You said: w0 w1/) });
  });

  it('a paused run continues on whichever runtime the continue reaches, exactly once', async () => {
    const paused = (await call(cluster.url, 'POST', '/agents/files/runs', { ...key, body: { message: 'Delete notes.txt', stream: false } })).body as Json;
    expect(paused.status).toBe('PAUSED');
    const decision = { tools: [{ tool_call_id: paused.tools[0].tool_call_id, confirmed: true }], stream: false };
    // Two continues at once, landing on two different runtimes: one wins, the other is told.
    const [one, two] = await Promise.all([
      call(cluster.url, 'POST', `/agents/files/runs/${paused.run_id}/continue`, { ...key, body: decision }),
      call(cluster.url, 'POST', `/agents/files/runs/${paused.run_id}/continue`, { ...key, body: decision }),
    ]);
    expect([one.status, two.status].sort()).toEqual([200, 409]);
    const winner = one.status === 200 ? one : two;
    expect(winner.body).toMatchObject({ run_id: paused.run_id, status: 'COMPLETED' });
  });

  it('a client follows a run from another runtime than the one running it', async () => {
    fake.setBehaviour({ chunkDelayMs: 30 });
    const message = words(30, 'f');
    const { runId, rest } = await startStreamingRun(cluster, 'writer', message);
    const followed = await fetch(`${cluster.url}/agents/writer/runs/${runId}/events`, { headers: { authorization: `Bearer ${CLUSTER_KEY}` } });
    const events = parseSse(await followed.text());
    fake.setBehaviour({ chunkDelayMs: 0 });
    await rest;
    expect(events[0]!.event).toBe('RunStarted');
    expect(events.at(-1)).toMatchObject({ event: 'RunCompleted', data: { content: `You said: ${message}` } });
    const text = events.filter((e) => e.event === 'RunContent').map((e) => e.data.content as string).join('');
    expect(text).toBe(`You said: ${message}`);
  });

  it('a revoked token is refused by every runtime from the moment the revoke returns', async () => {
    const minted = await call(cluster.url, 'POST', '/service-accounts', { ...key, body: { name: 'load', scopes: [{ scope: 'config:read' }] } });
    const token = minted.body.token as string;
    const results: { sentAt: number; status: number }[] = [];
    const state = { stop: false };
    const hammer = async () => {
      while (!state.stop) {
        const sentAt = performance.now();
        const res = await fetch(`${cluster.url}/config`, { headers: { authorization: `Bearer ${token}` } });
        await res.arrayBuffer();
        results.push({ sentAt, status: res.status });
      }
    };
    const workers = [hammer(), hammer(), hammer(), hammer(), hammer(), hammer()];
    await new Promise((r) => setTimeout(r, 500));
    const revoked = await call(cluster.url, 'DELETE', `/service-accounts/${minted.body.id}`, key);
    const revokedAt = performance.now();
    expect(revoked.status).toBe(204);
    await new Promise((r) => setTimeout(r, 500));
    state.stop = true;
    await Promise.all(workers);
    expect(results.filter((r) => r.sentAt < revokedAt && r.status === 200).length).toBeGreaterThan(10);
    const after = results.filter((r) => r.sentAt > revokedAt);
    expect(after.length).toBeGreaterThan(10);
    expect(after.filter((r) => r.status === 200)).toEqual([]);
  });

  it('kill -9 of the runtime running a run: a survivor marks it interrupted with its output, and the cluster keeps answering', async () => {
    fake.setBehaviour({ chunkDelayMs: 60 });
    const { runId } = await startStreamingRun(cluster, 'writer', words(200, 'k'));
    // Which runtime runs it: the one whose stream we hold (the proxy's last route before this).
    await eventually(async () => {
      const run = (await call(cluster.url, 'GET', `/agents/writer/runs/${runId}`, key)).body as Json;
      return typeof run.content === 'string' && run.content.length > 0 ? true : undefined;
    }, 10_000, 'output to be stored');
    const owner = await ownerOf(database, runId);
    const victim = cluster.runtimes.find((r) => `${r.port}` === owner.split(':').pop())!;
    expect(victim).toBeDefined();
    await victim.kill();
    const run = await eventually(async () => {
      const r = (await call(cluster.url, 'GET', `/agents/writer/runs/${runId}`, key)).body as Json;
      return r.status === 'RUNNING' ? undefined : r;
    }, 15_000, 'a survivor to finalise the run');
    fake.setBehaviour({ chunkDelayMs: 0 });
    expect(run).toMatchObject({ status: 'ERROR', error: expect.stringContaining('interrupted'), content: expect.stringMatching(/^You said: k0/) });
    // Its trace was written as it started (within a second), so the run is not lost from
    // GET /traces: the survivor that finalised the run ended its trace too.
    const trace = (await call(cluster.url, 'GET', `/traces/${runId}`, key)).body as Json;
    expect(trace).toMatchObject({ run_id: runId, component_id: 'writer', status: 'ERROR', error: expect.stringContaining('interrupted') });
    expect(trace.end_ms).toBeGreaterThan(trace.start_ms);
    expect((await call(cluster.url, 'GET', '/config', key)).status).toBe(200);
  });

  it('kill -9 of the runtime ingesting content: a survivor finishes the job, every chunk stored once', async () => {
    const alive = cluster.runtimes.filter((r) => r.process.exitCode === null && r.process.signalCode === null);
    const text = Array.from({ length: 2500 }, (_, i) => `Sentence ${i} about clustered ingestion.`).join(' ');
    const before = embeddings.requests.length;
    // Straight to one runtime, so we know which one to kill.
    const accepted = await call(alive[0]!.url, 'POST', '/knowledge/content', { ...key, body: { name: 'cluster.txt', text_content: text, chunk_size: 200 } });
    expect(accepted.status).toBe(202);
    await eventually(() => (embeddings.requests.length >= before + 2 ? true : undefined), 10_000, 'embedding to be under way');
    await alive[0]!.kill();
    const status = await eventually(async () => {
      const s = (await call(cluster.url, 'GET', `/knowledge/content/${accepted.body.id}/status`, key)).body as Json;
      return s.status === 'processing' ? undefined : s;
    }, 30_000, 'a survivor to finish the job');
    expect(status).toMatchObject({ status: 'completed' });
    const hits = (
      await call(cluster.url, 'POST', '/knowledge/search', { ...key, body: { query: 'clustered', search_type: 'keyword', max_results: 1000, meta: { limit: 1000 } } })
    ).body.data as Json[];
    expect(hits.length).toBeGreaterThan(400);
    expect(new Set(hits.map((h) => h.id)).size).toBe(hits.length);
  });
});

async function ownerOf(database: TestDatabase, runId: string): Promise<string> {
  const db = database.open();
  try {
    const [row] = await db.query<{ run_node: string }>('SELECT run_node FROM svc_runs WHERE run_id = $1', [runId]);
    return row!.run_node;
  } finally {
    await db.close();
  }
}
