/**
 * Concurrent memory updates lose nothing, on PostgreSQL from two runtimes sharing the database:
 * eight runs of one user at once (four on each runtime), each adding a fact and updating the
 * same remembered fact it was shown in its prompt. Every added fact is stored, and every update's
 * text survives: the first to land updates the memory, each later one (its model saw the old
 * version) is kept beside it rather than over it. Versioned PATCHes through the API from both
 * runtimes at once: exactly one lands, the others answer 409.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent } from '../src/agent/agent.js';
import { OpenAIChatModel } from '../src/providers/openai/chat.js';
import { postgresTestDatabase, type TestDatabase } from './support/databases.js';
import { startFakeLlm, type FakeConversation, type FakeLlm, type FakeReply } from './support/fake-llm.js';
import { call } from './support/http.js';
import { startRuntimeOn, type StartedRuntime } from './support/runtime.js';

type Json = Record<string, any>;

/** Each run adds "fact of run k" and updates the shared memory (found by its id in the prompt) to "shared from run k". */
function reply(c: FakeConversation): FakeReply | undefined {
  if (c.toolResults.length > 0) return { kind: 'text', text: 'Noted.' };
  const tag = /run \d+/.exec(c.lastUserMessage)?.[0] ?? 'run ?';
  const shared = /\[([0-9a-f-]{36})\] (Shared|shared)/.exec(c.system)?.[1];
  const calls: { name: string; arguments: Record<string, unknown> }[] = [{ name: 'update_user_memory', arguments: { action: 'add', memory: `fact of ${tag}` } }];
  if (shared) calls.push({ name: 'update_user_memory', arguments: { action: 'update', memory_id: shared, memory: `shared from ${tag}` } });
  return { kind: 'tool-calls', calls };
}

describe.runIf(postgresTestDatabase.available)('concurrent memory updates on PostgreSQL from two runtimes', () => {
  let fake: FakeLlm;
  let database: TestDatabase;
  const runtimes: StartedRuntime[] = [];

  beforeAll(async () => {
    // Slow answers, so all eight runs read the memories before any of them writes.
    fake = await startFakeLlm({ reply, chunkDelayMs: 40 });
    database = await postgresTestDatabase.create();
    for (let i = 0; i < 2; i++) {
      const model = new OpenAIChatModel({ model: 'fake-model', baseURL: `${fake.url}/v1`, maxRetries: 0 });
      runtimes.push(await startRuntimeOn(database, { agents: [new Agent({ id: 'assistant', model, memory: true })] }));
    }
  });
  afterAll(async () => {
    for (const rt of runtimes) await rt.stop();
    await database?.cleanup();
    await fake?.close();
  });

  it('eight runs of one user at once: every added fact and every update survives', async () => {
    const [a, b] = runtimes as [StartedRuntime, StartedRuntime];
    const shared = await call(a.url, 'POST', '/memories', { body: { memory: 'Shared fact, as first told', user_id: 'uma' } });
    expect(shared.status).toBe(201);
    const runs = await Promise.all(
      Array.from({ length: 8 }, (_, k) => call((k % 2 ? b : a).url, 'POST', '/agents/assistant/runs', { body: { message: `This is run ${k}.`, user_id: 'uma', stream: false } })),
    );
    for (const r of runs) expect(r.body.status, JSON.stringify(r.body)).toBe('COMPLETED');
    const texts = ((await call(b.url, 'GET', '/memories?user_id=uma&limit=100')).body.data as Json[]).map((m) => m.memory).sort();
    const expected = Array.from({ length: 8 }, (_, k) => [`fact of run ${k}`, `shared from run ${k}`]).flat().sort();
    expect(texts).toEqual(expected);
    const row = (await call(a.url, 'GET', `/memories/${shared.body.memory_id}`)).body;
    // Updated once (by the first to land), not eight times over each other.
    expect(row.version).toBe(2);
    // Each run's tool said what happened to its update.
    const outcomes = runs.flatMap((r) => (r.body.tools as Json[]).map((t) => String(t.result)));
    expect(outcomes.filter((o) => o.startsWith('Done (updated')).length).toBe(1);
    expect(outcomes.filter((o) => o.startsWith('Done (kept-beside')).length).toBe(7);
  });

  it('versioned PATCHes from both runtimes at once: one lands, the rest answer 409', async () => {
    const [a, b] = runtimes as [StartedRuntime, StartedRuntime];
    const made = (await call(a.url, 'POST', '/memories', { body: { memory: 'Counter 0', user_id: 'vic' } })).body;
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, k) => call((k % 2 ? b : a).url, 'PATCH', `/memories/${made.memory_id}`, { body: { memory: `Counter ${k + 1}`, version: 1 } })),
    );
    expect(answers.map((r) => r.status).sort()).toEqual([200, ...Array(9).fill(409)]);
    expect((await call(b.url, 'GET', `/memories/${made.memory_id}`)).body.version).toBe(2);
  });
});
