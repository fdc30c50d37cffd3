/**
 * Agents, teams, workflows and sessions end to end: a real server on loopback, a real model
 * provider (OpenAI-compatible) talking to the loopback fake LLM, on SQLite and PostgreSQL.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { OpenAIChatModel } from '../src/providers/openai/chat.js';
import { testDatabaseKinds } from './support/databases.js';
import { testComponents } from './support/components.js';
import { startFakeLlm, type FakeLlm } from './support/fake-llm.js';
import { startRuntime, type StartedRuntime } from './support/runtime.js';
import { parseSse, readUntil } from './support/sse.js';
import { Runtime } from '../src/runtime.js';
import { silentLogger } from '../src/util/logger.js';

type Json = Record<string, any>;

for (const kind of testDatabaseKinds) {
  describe.skipIf(!kind.available)(`agents, teams, workflows on ${kind.kind}`, () => {
    let fake: FakeLlm;
    let rt: StartedRuntime;
    let components: ReturnType<typeof testComponents>;

    const post = (path: string, body: unknown, init: RequestInit = {}) =>
      fetch(`${rt.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body), ...init });
    const get = async (path: string) => {
      const res = await fetch(`${rt.url}${path}`);
      return { status: res.status, body: (await res.json()) as any };
    };

    beforeAll(async () => {
      fake = await startFakeLlm();
      const model = new OpenAIChatModel({ model: 'fake-model', baseURL: `${fake.url}/v1`, maxRetries: 0 });
      components = testComponents(model);
      rt = await startRuntime(kind, { agents: components.agents, teams: components.teams, workflows: components.workflows });
    });
    afterAll(async () => {
      await rt?.stop();
      await fake?.close();
    });
    afterEach(() => fake.setBehaviour({ chunkDelayMs: 0 }));

    it('lists and describes agents with their tools', async () => {
      const list = await get('/agents');
      expect(list.status).toBe(200);
      expect(list.body.map((a: Json) => a.id)).toEqual(['weather', 'writer']);
      const one = await get('/agents/weather');
      expect(one.body).toMatchObject({ id: 'weather', name: 'Weather agent', model: { provider: 'openai', model: 'fake-model' } });
      expect(one.body.tools.tools[0]).toMatchObject({ name: 'get_weather', parameters: { type: 'object', required: ['city'] } });
      expect((await get('/agents/nope')).body).toEqual({ detail: 'Agent not found', error_code: 'NOT_FOUND' });
    });

    it('runs an agent without streaming: tool call, answer, persisted run', async () => {
      const res = await post('/agents/weather/runs', { message: 'Weather in Paris?', stream: false, user_id: 'u1' });
      expect(res.status).toBe(200);
      const run = (await res.json()) as Json;
      expect(run).toMatchObject({
        agent_id: 'weather',
        user_id: 'u1',
        status: 'COMPLETED',
        content: 'You said: Weather in Paris?',
        tools: [{ tool_name: 'get_weather', tool_args: '{"city":"Paris"}', result: 'It is sunny in Paris', error: null }],
      });
      expect(run.metrics.total_tokens).toBeGreaterThan(0);
      // The tool result went back to the model.
      const second = fake.requests.at(-1)!.body as Json;
      expect(second.messages.at(-1)).toMatchObject({ role: 'tool', content: 'It is sunny in Paris' });
      const stored = await get(`/agents/weather/runs/${run.run_id}`);
      expect(stored.body).toMatchObject({ run_id: run.run_id, status: 'COMPLETED', content: run.content });
      expect(stored.body.messages.map((m: Json) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
    });

    it('streams a run as server-sent events in order', async () => {
      const res = await post('/agents/weather/runs', { message: 'Stream please' });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/text\/event-stream/);
      const events = parseSse(await res.text());
      const names = events.map((e) => e.event);
      expect(names[0]).toBe('RunStarted');
      expect(names.slice(1, 3)).toEqual(['ToolCallStarted', 'ToolCallCompleted']);
      expect(names.filter((n) => n === 'RunContent').length).toBeGreaterThan(1);
      expect(names.at(-1)).toBe('RunCompleted');
      const content = events.filter((e) => e.event === 'RunContent').map((e) => e.data.content).join('');
      expect(content).toBe('You said: Stream please');
      expect(events.at(-1)!.data).toMatchObject({ content, agent_id: 'weather' });
      for (const e of events) expect(e.data).toMatchObject({ event: e.event, run_id: events[0]!.data.run_id, session_id: events[0]!.data.session_id });
      expect(events[0]!.data).toMatchObject({ model: 'fake-model', model_provider: 'openai' });
    });

    it('accepts form-encoded and multipart run requests', async () => {
      const urlencoded = await fetch(`${rt.url}/agents/writer/runs`, {
        method: 'POST',
        body: new URLSearchParams({ message: 'from a form', stream: 'false' }),
      });
      expect(((await urlencoded.json()) as Json).content).toBe('You said: from a form');
      const form = new FormData();
      form.set('message', 'from multipart');
      form.set('stream', 'false');
      const multipart = await fetch(`${rt.url}/agents/writer/runs`, { method: 'POST', body: form });
      expect(((await multipart.json()) as Json).content).toBe('You said: from multipart');
    });

    it('continues a session: history reaches the model and the session lists both runs', async () => {
      const first = (await (await post('/agents/writer/runs', { message: 'My name is Ada', stream: false })).json()) as Json;
      const second = (await (await post('/agents/writer/runs', { message: 'What is my name?', stream: false, session_id: first.session_id })).json()) as Json;
      expect(second.session_id).toBe(first.session_id);
      const sent = (fake.requests.at(-1)!.body as Json).messages.map((m: Json) => `${m.role}:${m.content}`);
      expect(sent).toEqual(['user:My name is Ada', 'assistant:You said: My name is Ada', 'user:What is my name?']);

      const session = await get(`/sessions/${first.session_id}`);
      expect(session.body).toMatchObject({ session_id: first.session_id, session_type: 'agent', agent_id: 'writer', runs_count: 2 });
      expect(session.body.chat_history.map((m: Json) => m.content)).toEqual([
        'My name is Ada',
        'You said: My name is Ada',
        'What is my name?',
        'You said: What is my name?',
      ]);
      const runs = await get(`/sessions/${first.session_id}/runs`);
      expect(runs.body.map((r: Json) => r.run_id)).toEqual([first.run_id, second.run_id]);
      const list = await get('/sessions?type=agent&component_id=writer&limit=100');
      expect(list.body.data.map((s: Json) => s.session_id)).toContain(first.session_id);
      expect(list.body.meta).toMatchObject({ page: 1, limit: 100 });
    });

    it('renames and deletes sessions', async () => {
      const run = (await (await post('/agents/writer/runs', { message: 'temp', stream: false })).json()) as Json;
      const renamed = await fetch(`${rt.url}/sessions/${run.session_id}/rename`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ session_name: 'Renamed' }),
      });
      expect(((await renamed.json()) as Json).session_name).toBe('Renamed');
      expect((await fetch(`${rt.url}/sessions/${run.session_id}`, { method: 'DELETE' })).status).toBe(204);
      expect((await get(`/sessions/${run.session_id}`)).status).toBe(404);
      expect((await fetch(`${rt.url}/sessions/${run.session_id}`, { method: 'DELETE' })).status).toBe(404);
      expect((await get(`/agents/writer/runs/${run.run_id}`)).status).toBe(404);
    });

    it('refuses bad run requests with the documented errors', async () => {
      const missing = await post('/agents/writer/runs', { stream: false });
      expect(missing.status).toBe(422);
      expect(((await missing.json()) as Json).errors[0].loc).toEqual(['json', 'message']);
      const empty = await fetch(`${rt.url}/agents/writer/runs`, { method: 'POST' });
      expect(empty.status).toBe(422);
      const plain = await fetch(`${rt.url}/agents/writer/runs`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'hi' });
      expect(plain.status).toBe(415);
      expect(((await plain.json()) as Json).error_code).toBe('UNSUPPORTED_MEDIA_TYPE');
      expect((await post('/agents/nope/runs', { message: 'x' })).status).toBe(404);
      const other = (await (await post('/agents/writer/runs', { message: 'mine', stream: false })).json()) as Json;
      const reused = await post('/agents/weather/runs', { message: 'x', session_id: other.session_id, stream: false });
      expect(reused.status).toBe(409);
      expect(((await reused.json()) as Json).detail).toMatch(/belongs to agent 'writer'/);
    });

    it('cancels a run when the client disconnects mid-stream, keeping what was said', async () => {
      fake.setBehaviour({ chunkDelayMs: 150 });
      const controller = new AbortController();
      const res = await post('/agents/writer/runs', { message: 'one two three four five six seven' }, { signal: controller.signal });
      const seen = await readUntil(res, controller, (events) => events.some((e) => e.event === 'RunContent'));
      const runId = seen[0]!.data.run_id as string;
      let stored: Json = {};
      for (let i = 0; i < 100 && stored.status !== 'CANCELLED'; i++) {
        await new Promise((r) => setTimeout(r, 50));
        stored = (await get(`/agents/writer/runs/${runId}`)).body;
      }
      expect(stored.status).toBe('CANCELLED');
      const full = 'You said: one two three four five six seven';
      expect(stored.content.length).toBeGreaterThan(0);
      expect(stored.content.length).toBeLessThan(full.length);
      expect(full.startsWith(stored.content)).toBe(true);
      expect(fake.requests.at(-1)!.clientClosed).toBe(true);
      const session = await get(`/sessions/${seen[0]!.data.session_id}`);
      expect(session.body.runs_count).toBe(1);
    });

    it('cancels a running run through the cancel route', async () => {
      fake.setBehaviour({ chunkDelayMs: 150 });
      const res = await post('/agents/writer/runs', { message: 'a b c d e f g h i j' });
      const reader = res.body!.getReader();
      const first = new TextDecoder().decode((await reader.read()).value);
      const runId = parseSse(first)[0]!.data.run_id as string;
      const cancel = await post(`/agents/writer/runs/${runId}/cancel`, {});
      expect(await cancel.json()).toEqual({ run_id: runId, cancelled: true, status: 'CANCELLED', already_finished: false });
      let rest = first;
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        rest += new TextDecoder().decode(value);
      }
      expect(parseSse(rest).at(-1)!.event).toBe('RunCancelled');
      const again = await post(`/agents/writer/runs/${runId}/cancel`, {});
      expect(await again.json()).toEqual({ run_id: runId, cancelled: false, status: 'CANCELLED', already_finished: true });
      expect((await post('/agents/writer/runs/no-such-run/cancel', {})).status).toBe(404);
    });

    it('runs a routing team: the chosen member answers', async () => {
      fake.setBehaviour({ toolArguments: { transfer_to_member: { member_id: 'writer', task: 'Say hello' } } });
      const res = await post('/teams/router/runs', { message: 'Greet me' });
      const events = parseSse(await res.text());
      const names = events.map((e) => e.event);
      expect(names[0]).toBe('TeamRunStarted');
      expect(names).toContain('TeamToolCallStarted');
      expect(names.at(-1)).toBe('TeamRunCompleted');
      // The member's own events are streamed under its identity.
      expect(events.some((e) => e.event === 'RunContent' && e.data.agent_id === 'writer')).toBe(true);
      expect(events.at(-1)!.data).toMatchObject({ team_id: 'router', content: 'You said: Say hello' });
      fake.setBehaviour({ toolArguments: {} });
    });

    it('runs a coordinating team: the leader answers after consulting a member', async () => {
      fake.setBehaviour({ toolArguments: { delegate_task_to_member: { member_id: 'writer', task: 'Draft' } } });
      const run = (await (await post('/teams/coordinator/runs', { message: 'Plan it', stream: false })).json()) as Json;
      expect(run).toMatchObject({ team_id: 'coordinator', status: 'COMPLETED', content: 'You said: Plan it' });
      expect(run.tools).toEqual([
        expect.objectContaining({ tool_name: 'delegate_task_to_member', result: 'You said: Draft', by: 'coordinator' }),
      ]);
      fake.setBehaviour({ toolArguments: {} });
    });

    it('runs a workflow: steps in order, a parallel group, a skipped condition', async () => {
      const res = await post('/workflows/pipeline/runs', { message: 'hello' });
      const events = parseSse(await res.text());
      const names = events.map((e) => e.event);
      expect(names[0]).toBe('WorkflowStarted');
      expect(names.at(-1)).toBe('WorkflowCompleted');
      expect(events.filter((e) => e.event === 'StepCompleted').map((e) => e.data.step_name)).toEqual(
        expect.arrayContaining(['draft', 'length', 'shout', 'final']),
      );
      expect(names).toContain('ParallelExecutionStarted');
      expect(events.find((e) => e.event === 'ConditionExecutionStarted')!.data.condition_result).toBe(false);
      expect(events.filter((e) => e.event === 'StepStarted').map((e) => e.data.step_name)).not.toContain('trim');
      expect(events.at(-1)!.data).toMatchObject({ workflow_id: 'pipeline', content: 'final: YOU SAID: HELLO' });
    });

    it('keeps sessions across a restart on the same database', async () => {
      const run = (await (await post('/agents/writer/runs', { message: 'remember me', stream: false })).json()) as Json;
      const reopened = new Runtime({ env: {}, db: rt.database.open(), agents: components.agents }, { logger: silentLogger });
      await reopened.start();
      try {
        const res = await reopened.fetch(new Request(`http://localhost/sessions/${run.session_id}/runs`));
        expect(((await res.json()) as Json[]).map((r) => r.content)).toEqual(['You said: remember me']);
      } finally {
        await reopened.close();
      }
    });
  });
}

describe('a runtime with no model configured', () => {
  let rt: StartedRuntime;
  beforeAll(async () => {
    const { agents, teams, workflows } = testComponents(undefined);
    rt = await startRuntime(testDatabaseKinds[0]!, { agents, teams, workflows });
  });
  afterAll(async () => rt?.stop());

  it('streams a clear RunError instead of crashing', async () => {
    const res = await fetch(`${rt.url}/agents/writer/runs`, { method: 'POST', body: new URLSearchParams({ message: 'hi' }) });
    expect(res.status).toBe(200);
    const events = parseSse(await res.text());
    expect(events.map((e) => e.event)).toEqual(['RunStarted', 'RunError']);
    expect(events[1]!.data).toMatchObject({ error_type: 'ModelNotConfigured' });
    expect(events[1]!.data.content).toMatch(/OPENAI_API_KEY/);
  });

  it('returns the failed run when not streaming, and keeps serving', async () => {
    const res = await fetch(`${rt.url}/teams/router/runs`, { method: 'POST', body: new URLSearchParams({ message: 'hi', stream: 'false' }) });
    const run = (await res.json()) as Json;
    expect(run).toMatchObject({ status: 'ERROR', content: null });
    expect(run.error).toMatch(/No model is configured/);
    expect((await fetch(`${rt.url}/health`)).status).toBe(200);
  });
});
