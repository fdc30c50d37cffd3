/**
 * `svc knowledge reindex` against a REAL runtime on SQLite hosting a knowledge base whose
 * embedder is a loopback OpenAI-compatible server. What the CLI did is checked through what the
 * runtime then reports (GET /knowledge/reindex) and what the embedder was asked to embed.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Knowledge, OpenAIEmbedder, SqliteVectorStore } from '@svc/runtime';
import { startFakeEmbeddings, type FakeEmbeddings } from '../../runtime/test/support/fake-embeddings.js';
import { ensureBuilt, jsonOf, runCli, sandbox, type Sandbox } from './support/cli.js';
import { api, startSqliteRuntime, type TestRuntime } from './support/runtime.js';

const KEY = 'test-admin-key';
const TEXT = Array.from({ length: 60 }, (_, i) => `Fact number ${i} about reindexing.`).join(' ');

describe('svc knowledge reindex', () => {
  let embeddings: FakeEmbeddings;
  let rt: TestRuntime;
  let box: Sandbox;
  let dir: string;
  const run = (args: string[], env: Record<string, string | undefined> = { SVC_ADMIN_TOKEN: KEY }) =>
    runCli(['knowledge', 'reindex', '--url', rt.url, ...args], { ...box, env, timeoutMs: 60_000 });
  const inputs = () => embeddings.requests.flatMap((r) => (r.body as { input: string[] }).input);

  beforeAll(async () => {
    await ensureBuilt();
    embeddings = await startFakeEmbeddings({ delayMs: 50 });
  });
  afterAll(() => embeddings.close());
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'svc-cli-knowledge-'));
    // One input per request, one at a time: a reindex takes long enough to watch.
    const embedder = new OpenAIEmbedder({ baseURL: `${embeddings.url}/v1`, model: `cli-embed-${Date.now()}`, batchSize: 2, maxConcurrency: 1, env: {} });
    const knowledge = new Knowledge({ id: 'docs', store: new SqliteVectorStore({ path: join(dir, 'knowledge.db') }), embedder });
    rt = await startSqliteRuntime({ knowledge: [knowledge], env: { OS_SECURITY_KEY: KEY } });
    box = sandbox();
    const upload = await api(rt.url, 'POST', '/knowledge/content', { token: KEY, body: { name: 'facts.txt', text_content: TEXT, chunk_size: 100 } });
    if (upload.status !== 202) throw new Error(`upload answered ${upload.status}`);
    for (let i = 0; i < 200; i++) {
      const s = await api(rt.url, 'GET', `/knowledge/content/${upload.body.id}/status`, { token: KEY });
      if (s.body.status !== 'processing') break;
      await new Promise((r) => setTimeout(r, 50));
    }
  });
  afterEach(async () => {
    await rt.stop();
    box.cleanup();
    rmSync(dir, { recursive: true, force: true });
  });

  it('--wait --json: follows the job to the end and prints one document; every chunk is embedded again', async () => {
    const before = (await api(rt.url, 'GET', '/knowledge/reindex', { token: KEY })).body;
    expect(before).toMatchObject({ state: 'idle', chunks_done: 0 });
    const total = before.chunks_total as number;
    expect(total).toBeGreaterThan(10);
    embeddings.reset();
    const r = await run(['--wait', '--json', '--poll-interval', '0.2']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const body = jsonOf(r);
    expect(body).toMatchObject({ knowledge_id: 'docs', state: 'completed', chunks_done: total, chunks_total: total, error: null });
    expect(body.embedder).toMatch(/^openai:cli-embed-/);
    expect((await api(rt.url, 'GET', '/knowledge/reindex', { token: KEY })).body).toMatchObject({ state: 'completed', chunks_done: total });
    expect(new Set(inputs()).size).toBe(total);
    expect(inputs()).toHaveLength(total);
  });

  it('human --wait shows progress on stderr and the outcome on stdout', async () => {
    const r = await run(['--wait', '--poll-interval', '0.1', '--knowledge-id', 'docs']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/Reindex of 'docs' with openai:cli-embed-\d+: (queued|running), \d+\/\d+ chunks/);
    expect(r.stdout).toMatch(/Reindex of 'docs' completed: \d+ chunks embedded with openai:cli-embed-\d+\./);
    expect(r.stderr).toMatch(/^ {2}running: \d+\/\d+ chunks$/m);
  });

  it('without --wait answers at once with the job; asking again while it runs gives the same job', async () => {
    const first = await run(['--json']);
    expect(first.code).toBe(0);
    const job = jsonOf(first);
    expect(['queued', 'running']).toContain(job.state);
    expect(job.job_id).toEqual(expect.any(String));
    const second = jsonOf(await run(['--json']));
    expect(second.job_id).toBe(job.job_id);
    const human = await run([]);
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/Reindex of 'docs' with openai:cli-embed-\d+: (queued|running)/);
  });

  it('errors: no credential, a wrong one, an unknown knowledge base (exit 1); a malformed id (exit 2)', async () => {
    const none = await run(['--json'], {});
    expect(none.code).toBe(1);
    expect(jsonOf(none)).toMatchObject({ error: expect.stringContaining('requires a credential'), hint: expect.stringContaining('SVC_ADMIN_TOKEN') });
    const wrong = await run(['--json'], { SVC_ADMIN_TOKEN: 'not-the-key' });
    expect(wrong.code).toBe(1);
    expect(jsonOf(wrong).error).toMatch(/rejected the credential/);
    expect(wrong.stdout).not.toContain('not-the-key');
    const missing = await run(['--knowledge-id', 'nope', '--json']);
    expect(missing.code).toBe(1);
    expect(jsonOf(missing).error).toMatch(/"nope" not found/);
    const malformed = await run(['--knowledge-id', '../etc', '--json']);
    expect(malformed.code).toBe(2);
    expect(malformed.stdout).toBe('');
    expect(malformed.stderr).toMatch(/Invalid --knowledge-id/);
    // Nothing was started by any of these.
    expect((await api(rt.url, 'GET', '/knowledge/reindex', { token: KEY })).body).toMatchObject({ state: 'idle' });
  });
});
