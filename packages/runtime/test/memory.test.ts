/**
 * Agents that remember their users, end to end on SQLite and PostgreSQL with the loopback model
 * server: a fact stated in one session (extracted after the run, or saved by the model through
 * the memory tool) is in the prompt of a later session of the same user, started over REST or
 * MCP, and never in another user's; extraction is capped, off the response path, and its failure
 * never fails the run; memory reads and writes are spans of the run's trace; with every switch
 * off (or no memory option, or no user) the model server sees no memory call at all.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Agent } from '../src/agent/agent.js';
import { EXTRACTION_MARKER } from '../src/memory/extraction.js';
import { OpenAIChatModel } from '../src/providers/openai/chat.js';
import { testDatabaseKinds } from './support/databases.js';
import { eventually } from './support/eventually.js';
import { startFakeLlm, type FakeConversation, type FakeLlm, type FakeReply } from './support/fake-llm.js';
import { call } from './support/http.js';
import { startRuntime, type StartedRuntime } from './support/runtime.js';

type Json = Record<string, any>;

const isExtraction = (c: FakeConversation) => c.system.includes(EXTRACTION_MARKER);

/**
 * The fake model as the test drives it: an extraction call proposes every "remember that ..."
 * clause of the exchange (and fails for one saying FAIL); an ordinary call answers in text, or
 * calls the memory tool when told "note that ...".
 */
function reply(c: FakeConversation): FakeReply | undefined {
  if (isExtraction(c)) {
    if (c.lastUserMessage.includes('FAIL')) return { kind: 'error', status: 500, message: 'extraction exploded' };
    if (c.lastUserMessage.includes('SLOW')) return { kind: 'hang' };
    const facts = [...c.lastUserMessage.matchAll(/remember that ([^.\n]+)/gi)].map((m) => ({ memory: m[1]!, topics: ['personal'] }));
    return { kind: 'tool-call', name: 'save_user_memories', arguments: { add: facts, update: [], delete: [] } };
  }
  const note = /note that ([^.\n]+)/i.exec(c.lastUserMessage);
  if (note && c.toolResults.length === 0) return { kind: 'tool-call', name: 'update_user_memory', arguments: { action: 'add', memory: note[1], topics: ['notes'] } };
  return { kind: 'text', text: `You said: ${c.lastUserMessage}` };
}

for (const kind of testDatabaseKinds) {
  describe.runIf(kind.available)(`user memories on ${kind.kind}`, () => {
    let fake: FakeLlm;
    let rt: StartedRuntime;

    beforeAll(async () => {
      fake = await startFakeLlm();
      const model = new OpenAIChatModel({ model: 'fake-model', baseURL: `${fake.url}/v1`, maxRetries: 0 });
      const agents = [
        new Agent({ id: 'assistant', model, instructions: 'Be helpful.', memory: { extract: true } }),
        new Agent({ id: 'capped', model, memory: { extract: { maxChanges: 2, timeoutMs: 1_500 }, tool: false } }),
        new Agent({ id: 'off', model, instructions: 'Be helpful.', memory: { recall: false, tool: false, extract: false, summaries: false } }),
        new Agent({ id: 'plain', model, instructions: 'Be helpful.' }),
      ];
      rt = await startRuntime(kind, { agents, mcp_server: true });
    });
    beforeEach(() => fake.setBehaviour({ reply }));
    afterAll(async () => {
      await rt?.stop();
      await fake?.close();
    });

    const run = async (agent: string, message: string, extra: Json = {}): Promise<Json> => {
      const res = await call(rt.url, 'POST', `/agents/${agent}/runs`, { body: { message, stream: false, ...extra } });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.status).toBe('COMPLETED');
      return res.body;
    };
    const memoriesOf = async (user: string): Promise<Json[]> => (await call(rt.url, 'GET', `/memories?user_id=${user}&limit=100`)).body.data;
    /** The system text of the last ordinary (not extraction) call for this message. */
    const promptOf = (message: string): string => fake.requests.filter((r) => !isExtraction(r.conversation) && r.conversation.lastUserMessage === message).at(-1)!.conversation.system;

    it('remembers a fact from one session in a later session of the same user (REST), never in another user’s', async () => {
      const first = await run('assistant', 'Please remember that Alice keeps bees on her roof.', { user_id: 'alice', session_id: 'alice-1' });
      const [memory] = await eventually(async () => ((await memoriesOf('alice')).length ? memoriesOf('alice') : undefined), 10_000, 'the extracted memory');
      expect(memory).toMatchObject({ user_id: 'alice', memory: 'Alice keeps bees on her roof', topics: ['personal'], agent_id: 'assistant', run_id: first.run_id });

      await run('assistant', 'What hobby could I write about?', { user_id: 'alice', session_id: 'alice-2' });
      expect(promptOf('What hobby could I write about?')).toContain('Alice keeps bees on her roof');

      await run('assistant', 'What hobby could Bob write about?', { user_id: 'bob', session_id: 'bob-1' });
      expect(promptOf('What hobby could Bob write about?')).not.toContain('bees');
      // Bob's extraction call did not see Alice's memories either.
      await eventually(() => fake.requests.find((r) => isExtraction(r.conversation) && r.conversation.lastUserMessage.includes('Bob write')), 10_000, "bob's extraction");
      expect(fake.requests.filter((r) => isExtraction(r.conversation) && r.conversation.lastUserMessage.includes('Bob write')).map((r) => r.conversation.lastUserMessage).join()).not.toContain('bees');
      expect(await memoriesOf('bob')).toEqual([]);
    });

    it('does the same for runs started through MCP', async () => {
      const client = new Client({ name: 'memory', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(`${rt.url}/mcp`)));
      const first = await client.callTool({ name: 'run_agent', arguments: { agent_id: 'assistant', message: 'Remember that Carol sails on Lake Geneva.', user_id: 'carol' } });
      expect((first.structuredContent as Json).status).toBe('COMPLETED');
      await eventually(async () => ((await memoriesOf('carol')).length ? true : undefined), 10_000, "carol's memory");
      const later = await client.callTool({ name: 'run_agent', arguments: { agent_id: 'assistant', message: 'Plan my weekend.', user_id: 'carol' } });
      expect((later.structuredContent as Json).status).toBe('COMPLETED');
      expect(promptOf('Plan my weekend.')).toContain('Carol sails on Lake Geneva');
      await client.callTool({ name: 'run_agent', arguments: { agent_id: 'assistant', message: 'Plan my weekend too.', user_id: 'dan' } });
      expect(promptOf('Plan my weekend too.')).not.toContain('Geneva');
      expect(promptOf('Plan my weekend too.')).not.toContain('bees');
      const seen = await client.callTool({ name: 'get_memories', arguments: { user_id: 'carol' } });
      expect((seen.structuredContent as Json).data.map((m: Json) => m.memory)).toEqual(['Carol sails on Lake Geneva']);
      await client.close();
    });

    it('lets the model save a memory with the tool, and traces the recall and the write', async () => {
      const saved = await run('assistant', 'Note that Erin is vegetarian.', { user_id: 'erin' });
      const memories = await memoriesOf('erin');
      expect(memories.map((m) => m.memory)).toContain('Erin is vegetarian');
      const trace = (await call(rt.url, 'GET', `/traces/${saved.run_id}`)).body;
      const kinds = (span: Json): string[] => [`${span.kind}:${span.name}`, ...span.children.flatMap(kinds)];
      const names = await eventually(async () => {
        const t = (await call(rt.url, 'GET', `/traces/${saved.run_id}`)).body;
        const all = t.spans ? (t.spans as Json[]).flatMap(kinds) : [];
        return all.includes('memory:memory extraction') ? all : undefined;
      }, 10_000, 'the extraction span');
      expect(trace.spans).toBeDefined();
      expect(names).toEqual(expect.arrayContaining(['memory:memory recall', 'tool:update_user_memory', 'memory:memory add', 'memory:memory extraction']));
    });

    it('caps what one extraction applies, and an extraction that fails never fails the run', async () => {
      await run('capped', 'Remember that F likes figs. Remember that F likes dates. Remember that F likes plums.', { user_id: 'frank' });
      await eventually(async () => ((await memoriesOf('frank')).length === 2 ? true : undefined), 10_000, "frank's two memories");
      await new Promise((r) => setTimeout(r, 300));
      expect((await memoriesOf('frank')).length).toBe(2);

      const failed = await run('assistant', 'Remember that FAIL is my middle name.', { user_id: 'gina' });
      expect(failed.content).toBe('You said: Remember that FAIL is my middle name.');
      await eventually(() => fake.requests.find((r) => isExtraction(r.conversation) && r.conversation.lastUserMessage.includes('FAIL')), 10_000, 'the failed extraction');
      expect(await memoriesOf('gina')).toEqual([]);
    });

    it('answers without waiting for extraction, which gives up at its deadline', async () => {
      const done = await run('capped', 'Remember that SLOW answers are fine.', { user_id: 'ivy' });
      // The run has answered; its extraction call is still open at the model server.
      const extraction = await eventually(() => fake.requests.find((r) => isExtraction(r.conversation) && r.conversation.lastUserMessage.includes('SLOW')), 10_000, 'the extraction call');
      expect(extraction.clientClosed).toBe(false);
      expect((await call(rt.url, 'GET', `/agents/capped/runs/${done.run_id}`)).body.status).toBe('COMPLETED');
      // Then its deadline passes: the call is abandoned, the span says so, nothing is stored.
      await eventually(() => (extraction.clientClosed ? true : undefined), 10_000, 'the abandoned call');
      const span = await eventually(async () => {
        const spans = ((await call(rt.url, 'GET', `/traces/${done.run_id}`)).body.spans ?? []) as Json[];
        const all = (s: Json): Json[] => [s, ...s.children.flatMap(all)];
        return spans.flatMap(all).find((s) => s.name === 'memory extraction' && s.status === 'error');
      }, 10_000, 'the failed extraction span');
      expect(span.attributes.error).toBeTruthy();
      expect(await memoriesOf('ivy')).toEqual([]);
    });

    it('with every switch off, without a memory option, or without a user: no memory call at all', async () => {
      await call(rt.url, 'POST', '/memories', { body: { memory: 'Hana collects stamps', user_id: 'hana' } });
      await new Promise((r) => setTimeout(r, 200));
      for (const [agent, user] of [['off', 'hana'], ['plain', 'hana'], ['assistant', undefined]] as const) {
        const before = fake.requests.length;
        for (let i = 0; i < 3; i++) await run(agent, `Remember that Hana likes tea, take ${agent} ${i}.`, user ? { user_id: user } : {});
        await new Promise((r) => setTimeout(r, 300));
        const calls = fake.requests.slice(before);
        // One model call per run: no extraction, no memory tool offered, no memory in the prompt.
        expect(calls.length, `${agent} for ${user ?? 'no user'}`).toBe(3);
        for (const r of calls) {
          expect(r.conversation.toolNames).toEqual([]);
          expect(r.conversation.system).not.toContain('stamps');
        }
      }
      expect((await memoriesOf('hana')).map((m) => m.memory)).toEqual(['Hana collects stamps']);
    });
  });
}
