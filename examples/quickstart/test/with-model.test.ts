/**
 * The quickstart with a model configured the way a user does it, through OPENAI_API_KEY and
 * OPENAI_BASE_URL, pointed at the loopback fake LLM: the tool, the knowledge search, the team
 * and the workflow all do their real work, and the library embeds what is uploaded.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Knowledge, SqliteDb, type RunningRuntime, type Runtime } from '@svc/runtime';
import { eventually } from '../../../packages/runtime/test/support/eventually.js';
import { startFakeLlm, type FakeLlm } from '../../../packages/runtime/test/support/fake-llm.js';
import { parseSse } from '../../../packages/runtime/test/support/sse.js';
import { createQuickstartRuntime } from '../src/runtime.js';
import { SAMPLES_DIR } from '../src/samples.js';

let dir: string;
let fake: FakeLlm;
let runtime: Runtime;
let server: RunningRuntime;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'svc-quickstart-model-'));
  fake = await startFakeLlm({
    toolArguments: { search_knowledge_base: { query: 'how do I cancel a run' }, get_current_time: { timezone: 'Asia/Tokyo' } },
  });
  runtime = createQuickstartRuntime({
    db: new SqliteDb({ path: join(dir, 'q.db') }),
    env: { OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: `${fake.url}/v1`, OPENAI_MODEL: 'fake-model' },
  });
  server = await runtime.serve({ port: 0, host: '127.0.0.1' });
});

afterAll(async () => {
  await server?.close();
  for (const k of runtime?.knowledge ?? []) if (k instanceof Knowledge) await k.store.close();
  await fake?.close();
  rmSync(dir, { recursive: true, force: true });
});

const run = async (path: string, message: string) => {
  const res = await fetch(`${server.url}${path}`, { method: 'POST', body: new URLSearchParams({ message }) });
  return parseSse(await res.text());
};

const ask = async (message: string, user: string) => {
  const res = await fetch(`${server.url}/agents/assistant/runs`, { method: 'POST', body: new URLSearchParams({ message, user_id: user, stream: 'false' }) });
  expect(res.status).toBe(200);
};

describe('quickstart with a model from the environment', () => {
  it('the assistant calls its clock tool', async () => {
    const events = await run('/agents/assistant/runs', 'What time is it in Tokyo?');
    const completed = events.find((e) => e.event === 'ToolCallCompleted')!;
    expect(completed.data.tool).toMatchObject({ tool_name: 'get_current_time', tool_call_error: false });
    expect(String((completed.data.tool as { result: string }).result)).toContain('"timezone":"Asia/Tokyo"');
    expect(events.at(-1)).toMatchObject({ event: 'RunCompleted', data: { content: 'You said: What time is it in Tokyo?' } });
    expect(events[0]!.data).toMatchObject({ model: 'fake-model', model_provider: 'openai' });
  });

  it('the assistant remembers its users across sessions, and keeps one user’s memories from another', async () => {
    fake.setBehaviour({
      reply: (c) =>
        c.toolNames.includes('save_user_memories')
          ? { kind: 'tool-call', name: 'save_user_memories', arguments: { add: c.lastUserMessage.includes('otters') ? [{ memory: 'Quinn loves otters', topics: ['animals'] }] : [] } }
          : { kind: 'text', text: 'Noted.' },
    });
    try {
      await ask('I love otters.', 'quinn');
      await eventually(async () => ((await runtime.memories.list({ limit: 10, page: 1, sort_by: 'updated_at', sort_order: 'desc' }, 'quinn')).total ? true : undefined), 30_000, 'the memory');
      await ask('Which animal should I draw?', 'quinn');
      const answered = () => fake.requests.filter((r) => !r.conversation.toolNames.includes('save_user_memories')).at(-1)!;
      expect(answered().conversation.system).toContain('Quinn loves otters');
      await ask('Which animal should I draw?', 'rory');
      expect(answered().conversation.system).not.toContain('otters');
    } finally {
      fake.setBehaviour({ reply: () => undefined });
    }
  }, 60_000);

  it('the docs expert answers from the bundled docs', async () => {
    const events = await run('/agents/docs-expert/runs', 'How do I stop a run?');
    const completed = events.find((e) => e.event === 'ToolCallCompleted')!;
    expect((completed.data.tool as { result: string }).result).toContain('runs-and-sessions.md › Cancelling');
    // The passage went back to the model with the conversation.
    const lastRequest = fake.requests.at(-1)!.body as { messages: { role: string; content: string }[] };
    expect(lastRequest.messages.at(-1)!.content).toContain('/cancel');
    expect(events.at(-1)!.event).toBe('RunCompleted');
  });

  it('searches the docs by hybrid search, embedding through the same server', async () => {
    const config = (await (await fetch(`${server.url}/knowledge/config?knowledge_id=runtime-docs`)).json()) as { vector_dbs: { search_types: string[] }[] };
    expect(config.vector_dbs).toEqual([expect.objectContaining({ search_types: ['vector', 'keyword', 'hybrid'] })]);
  });

  it('the library embeds uploads through the same server and finds them by hybrid search', async () => {
    const config = (await (await fetch(`${server.url}/knowledge/config?knowledge_id=library`)).json()) as { vector_dbs: { search_types: string[] }[] };
    expect(config.vector_dbs).toEqual([expect.objectContaining({ id: 'library-store', search_types: ['vector', 'keyword', 'hybrid'] })]);
    const form = new FormData();
    form.append('file', new Blob([readFileSync(join(SAMPLES_DIR, 'garden-guide.md'))]), 'garden-guide.md');
    const accepted = (await (await fetch(`${server.url}/knowledge/content`, { method: 'POST', body: form })).json()) as { id: string };
    const status = await eventually(async () => {
      const s = (await (await fetch(`${server.url}/knowledge/content/${accepted.id}/status`)).json()) as { status: string };
      return s.status === 'processing' ? undefined : s;
    });
    expect(status).toMatchObject({ status: 'completed' });
    const search = async (query: string, searchType: string) =>
      (
        (await (
          await fetch(`${server.url}/knowledge/search`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ query, search_type: searchType }),
          })
        ).json()) as { data: { content_id: string; content: string }[] }
      ).data;
    // Vector search finds only chunks that were embedded.
    expect((await search('comfrey tea', 'vector'))[0]).toMatchObject({ content_id: accepted.id });
    expect((await search('how should I dilute comfrey tea', 'hybrid'))[0]).toMatchObject({ content_id: accepted.id, content: expect.stringContaining('comfrey tea') });
  });

  it('the librarian answers from an upload in the library', async () => {
    fake.setBehaviour({ toolArguments: { search_knowledge_base: { query: 'comfrey tea' } } });
    try {
      const events = await run('/agents/librarian/runs', 'How strong should comfrey tea be?');
      const completed = events.find((e) => e.event === 'ToolCallCompleted')!;
      expect((completed.data.tool as { result: string }).result).toContain('dilute comfrey tea one part to ten');
      expect(events.at(-1)!.event).toBe('RunCompleted');
    } finally {
      fake.setBehaviour({ toolArguments: { search_knowledge_base: { query: 'how do I cancel a run' }, get_current_time: { timezone: 'Asia/Tokyo' } } });
    }
  });

  it('the workflow looks up the docs, then the writer summarizes them', async () => {
    const events = await run('/workflows/research/runs', 'sessions');
    expect(events.filter((e) => e.event === 'StepCompleted').map((e) => e.data.step_name)).toEqual(['lookup', 'summarize']);
    expect(events.at(-1)!.event).toBe('WorkflowCompleted');
    const writerRequest = fake.requests.at(-1)!.body as { messages: { role: string; content: string }[] };
    expect(writerRequest.messages.at(-1)!.content).toContain('Every run belongs to a session');
  });

  it("shows each run's trace: the model calls with their tokens, the tool call, the docs search", async () => {
    const events = await run('/agents/docs-expert/runs', 'How do I cancel a run?');
    const runId = events[0]!.data.run_id as string;
    const trace = await eventually(async () => {
      const res = await fetch(`${server.url}/traces/${runId}`);
      const body = res.status === 200 ? ((await res.json()) as Record<string, any>) : undefined;
      // Written RUNNING as the run starts; its end follows within the writer's window.
      return body?.status === 'RUNNING' ? undefined : body;
    }, 10_000, 'the run to be traced');
    expect(trace).toMatchObject({ run_id: runId, component_type: 'agent', component_id: 'docs-expert', status: 'COMPLETED' });
    const [root] = trace.spans as Record<string, any>[];
    const children = root!.children as Record<string, any>[];
    expect(children.map((c) => c.kind)).toEqual(['model', 'tool', 'model']);
    // The fake model reports 12 input and 5 output tokens on every answer.
    for (const model of children.filter((c) => c.kind === 'model')) expect(model).toMatchObject({ name: 'openai/fake-model', input_tokens: 12, output_tokens: 5 });
    expect(trace).toMatchObject({ input_tokens: 24, output_tokens: 10 });
    const search = children[1]!.children.find((c: Record<string, any>) => c.kind === 'knowledge');
    expect(search).toMatchObject({ name: 'runtime-docs', attributes: { query: 'how do I cancel a run', search_type: 'hybrid' } });
    expect(search.attributes.hits.length).toBeGreaterThan(0);
    const listed = (await (await fetch(`${server.url}/traces?agent_id=docs-expert`)).json()) as { data: { run_id: string }[] };
    expect(listed.data.map((t) => t.run_id)).toContain(runId);
  });
});
