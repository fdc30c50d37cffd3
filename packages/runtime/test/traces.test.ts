/**
 * Traces end to end, on SQLite and PostgreSQL: runs of an agent with a tool (streamed and not),
 * a team and a workflow leave their span trees with the tokens the model reported; GET /traces
 * filters and pages them; GET /metrics counts them; a user reads only their own runs' traces.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent } from '../src/agent/agent.js';
import { anthropic } from '../src/providers/anthropic/messages.js';
import { ollama } from '../src/providers/ollama/chat.js';
import { OpenAIChatModel, openai } from '../src/providers/openai/chat.js';
import { testComponents } from './support/components.js';
import { testDatabaseKinds } from './support/databases.js';
import { eventually } from './support/eventually.js';
import { startFakeLlm, type FakeLlm } from './support/fake-llm.js';
import { call } from './support/http.js';
import { startRuntime, type StartedRuntime } from './support/runtime.js';
import { parseSse } from './support/sse.js';

type Json = Record<string, any>;
type Shape = [kind: string, name: string, children?: Shape[]];

const KEY = 'traces-test-security-key';
const USAGE = { inputTokens: 31, outputTokens: 7 };

/** A span tree as kinds and names, children in start order. */
const shape = (span: Json): Shape => (span.children.length ? [span.kind, span.name, span.children.map(shape)] : [span.kind, span.name]);
const model: Shape = ['model', 'openai/fake-model'];

for (const kind of testDatabaseKinds) {
  describe.skipIf(!kind.available)(`traces on ${kind.kind}`, () => {
    let fake: FakeLlm;
    let rt: StartedRuntime;
    let alice: string;
    let bob: string;
    const runIds: Record<string, string> = {};

    const api = (method: string, path: string, body?: unknown, token = KEY) => call(rt.url, method, path, { token, ...(body === undefined ? {} : { body }) });
    /** The run's trace once its writer has flushed (at run end, off the response's path). */
    const traceOf = (runId: string, token = KEY) =>
      eventually(async () => {
        const res = await api('GET', `/traces/${runId}`, undefined, token);
        // Written RUNNING as the run starts; its end follows within the writer's window.
        return res.status === 200 && res.body.status !== 'RUNNING' ? (res.body as Json) : undefined;
      }, 10_000, `the trace of ${runId}`);

    const mint = async (name: string) => {
      const scopes = ['agents:run', 'traces:read', 'metrics:read'].map((scope) => ({ scope }));
      const res = await api('POST', '/service-accounts', { name, scopes, allow_privileged_scopes: true });
      expect(res.status).toBe(201);
      return res.body.token as string;
    };

    beforeAll(async () => {
      fake = await startFakeLlm({ usage: USAGE });
      const chat = new OpenAIChatModel({ model: 'fake-model', baseURL: `${fake.url}/v1`, maxRetries: 0 });
      const { agents, teams, workflows } = testComponents(chat);
      const docs = { id: 'docs', name: 'Docs', search: async () => [{ content: 'PORT sets the port', name: 'config.md', score: 0.92 }] };
      const librarian = new Agent({ id: 'librarian', knowledge: docs, model: chat });
      rt = await startRuntime(kind, { agents: [...agents, librarian], teams, workflows, env: { OS_SECURITY_KEY: KEY } });
      alice = await mint('alice');
      bob = await mint('bob');
    });
    afterAll(async () => {
      await rt?.stop();
      await fake?.close();
    });

    it('records an agent run without streaming as run -> model -> tool -> model, with the tokens the model reported', async () => {
      const res = await api('POST', '/agents/weather/runs', { message: 'Weather in Paris?', stream: false, user_id: 'u1', session_id: 'trace-s1' });
      expect(res.status).toBe(200);
      runIds.plain = res.body.run_id;
      const trace = await traceOf(res.body.run_id);
      expect(trace).toMatchObject({
        run_id: res.body.run_id,
        session_id: 'trace-s1',
        component_type: 'agent',
        component_id: 'weather',
        user_id: 'u1',
        status: 'COMPLETED',
        input_tokens: 2 * USAGE.inputTokens,
        output_tokens: 2 * USAGE.outputTokens,
      });
      expect(trace.spans.map(shape)).toEqual([['run', 'agent:weather', [model, ['tool', 'get_weather'], model]]]);
      const [first, toolSpan, second] = trace.spans[0].children as Json[];
      expect(first).toMatchObject({ status: 'ok', input_tokens: USAGE.inputTokens, output_tokens: USAGE.outputTokens });
      expect(first!.attributes).toMatchObject({ provider: 'openai', model: 'fake-model', finish_reason: 'tool-calls', tools: ['get_weather'], input_tokens: 31, output_tokens: 7 });
      expect(first!.attributes.messages_sent).toEqual([{ role: 'system', content: 'Use the tool.' }, { role: 'user', content: 'Weather in Paris?' }]);
      expect(first!.attributes.message_received.tool_calls[0]).toMatchObject({ name: 'get_weather', arguments: '{"city":"Paris"}' });
      expect(first!.attributes.ttft_ms).toBeGreaterThanOrEqual(0);
      expect(first!.attributes.ttft_ms).toBeLessThanOrEqual(first!.attributes.latency_ms);
      expect(toolSpan).toMatchObject({ status: 'ok', attributes: { arguments: { city: 'Paris' }, result: 'It is sunny in Paris' } });
      expect(second!.attributes).toMatchObject({ finish_reason: 'stop', message_received: { role: 'assistant', content: 'You said: Weather in Paris?' } });
      expect(trace.spans[0].attributes).toMatchObject({ input: 'Weather in Paris?', run_status: 'COMPLETED' });
      for (const span of [first, toolSpan, second]) expect(span!.start_ms).toBeGreaterThanOrEqual(trace.start_ms);
    });

    it('records a streamed run the same way', async () => {
      const res = await fetch(`${rt.url}/agents/weather/runs`, {
        method: 'POST',
        headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify({ message: 'Stream please', user_id: 'u2' }),
      });
      const events = parseSse(await res.text());
      const runId = (events[0]!.data as Json).run_id as string;
      runIds.streamed = runId;
      const trace = await traceOf(runId);
      expect(trace).toMatchObject({ status: 'COMPLETED', user_id: 'u2', input_tokens: 62, output_tokens: 14 });
      expect(trace.spans.map(shape)).toEqual([['run', 'agent:weather', [model, ['tool', 'get_weather'], model]]]);
      expect(trace.spans[0].children.map((s: Json) => s.output_tokens)).toEqual([7, null, 7]);
    });

    it('records a team run with its member as a child span, and the member’s calls beneath it', async () => {
      fake.setBehaviour({ toolArguments: { transfer_to_member: { member_id: 'weather', task: 'Weather in Rome?' } } });
      const res = await api('POST', '/teams/router/runs', { message: 'Weather?', stream: false });
      fake.setBehaviour({ toolArguments: { get_weather: { city: 'Paris' } } });
      expect(res.status).toBe(200);
      runIds.team = res.body.run_id;
      const trace = await traceOf(res.body.run_id);
      expect(trace.spans.map(shape)).toEqual([['run', 'team:router', [model, ['member', 'weather', [model, ['tool', 'get_weather'], model]]]]]);
      expect(trace.spans[0].children[1].attributes).toMatchObject({ member_type: 'agent', task: 'Weather in Rome?' });
      // The member's model calls count toward the team's run.
      expect(trace).toMatchObject({ component_type: 'team', input_tokens: 3 * USAGE.inputTokens, output_tokens: 3 * USAGE.outputTokens });
    });

    it('records a workflow run with a span per step, an agent step holding its model call', async () => {
      const res = await api('POST', '/workflows/pipeline/runs', { message: 'hello', stream: false });
      expect(res.status).toBe(200);
      runIds.workflow = res.body.run_id;
      const trace = await traceOf(res.body.run_id);
      const [root] = trace.spans as Json[];
      expect(root!.name).toBe('workflow:pipeline');
      expect(root!.children.map((s: Json) => s.name)).toEqual(expect.arrayContaining(['draft', 'length', 'shout', 'final']));
      expect(root!.children.every((s: Json) => s.kind === 'step' && s.status === 'ok')).toBe(true);
      const draft = root!.children.find((s: Json) => s.name === 'draft');
      expect(shape(draft)).toEqual(['step', 'draft', [model]]);
      expect(draft.attributes).toMatchObject({ executor_type: 'agent', executor_id: 'writer', content: 'You said: hello' });
      expect(trace).toMatchObject({ component_type: 'workflow', input_tokens: USAGE.inputTokens });
    });

    it('lists runs by each filter, newest first, in bounded pages', async () => {
      const ids = async (query: string) => {
        const res = await api('GET', `/traces?${query}`);
        expect(res.status).toBe(200);
        return res.body.data.map((t: Json) => t.run_id);
      };
      expect(await ids('agent_id=weather')).toEqual([runIds.streamed, runIds.plain]);
      expect(await ids('team_id=router')).toEqual([runIds.team]);
      expect(await ids('workflow_id=pipeline')).toEqual([runIds.workflow]);
      expect(await ids('session_id=trace-s1')).toEqual([runIds.plain]);
      expect(await ids('user_id=u2')).toEqual([runIds.streamed]);
      expect(await ids('status=ERROR')).toEqual([]);
      expect(await ids('min_duration_ms=3600000')).toEqual([]);
      const plain = (await api('GET', `/traces/${runIds.plain}`)).body as Json;
      expect(await ids(`from=${plain.start_ms}&to=${plain.start_ms + 1}&agent_id=weather`)).toEqual([runIds.plain]);

      const first = await api('GET', '/traces?limit=3');
      expect(first.body.data).toHaveLength(3);
      expect(first.body.meta).toMatchObject({ limit: 3, next_cursor: expect.any(String) });
      const second = await api('GET', `/traces?limit=3&cursor=${first.body.meta.next_cursor}`);
      expect(second.body.meta.next_cursor).toBeNull();
      expect([...first.body.data, ...second.body.data].map((t: Json) => t.run_id).sort()).toEqual(Object.values(runIds).sort());

      expect((await api('GET', '/traces?limit=101')).status).toBe(422);
      expect((await api('GET', '/traces?agent_id=a&team_id=b')).body).toMatchObject({ error_code: 'BAD_REQUEST' });
      expect((await api('GET', '/traces?cursor=bogus')).body).toMatchObject({ error_code: 'BAD_REQUEST' });
      expect((await api('GET', '/traces/no-such-run')).status).toBe(404);
    });

    it('counts usage per day, component and model', async () => {
      const res = await api('GET', '/metrics');
      expect(res.status).toBe(200);
      const today = new Date().toISOString().slice(0, 10);
      // The runs may straddle midnight UTC: sum the days.
      const sum = (rows: Json[], field: string) => rows.reduce((n, r) => n + r[field], 0);
      expect(sum(res.body.days, 'runs')).toBe(4);
      expect(sum(res.body.days, 'errors')).toBe(0);
      expect(sum(res.body.days, 'input_tokens')).toBe(8 * USAGE.inputTokens);
      expect(sum(res.body.days, 'output_tokens')).toBe(8 * USAGE.outputTokens);
      expect(res.body.days.at(-1)).toMatchObject({ date: today, cost: null });
      const weather = res.body.components.filter((c: Json) => c.component_id === 'weather');
      expect(sum(weather, 'runs')).toBe(2);
      expect(weather[0].p95_latency_ms).toBeGreaterThanOrEqual(weather[0].p50_latency_ms);
      const models = res.body.models as Json[];
      expect(models.every((m) => m.provider === 'openai' && m.model === 'fake-model')).toBe(true);
      expect(sum(models, 'runs')).toBe(8);
      expect(sum(models, 'input_tokens')).toBe(8 * USAGE.inputTokens);
      expect((await api('GET', '/metrics?from=10&to=5')).body).toMatchObject({ error_code: 'BAD_REQUEST' });
    });

    it('records a knowledge search under its tool call, and redacts credentials the model put in arguments', async () => {
      fake.setBehaviour({ toolArguments: { search_knowledge_base: { query: 'port', limit: 2, api_key: 'sk-live-secret-123' } } });
      const res = await api('POST', '/agents/librarian/runs', { message: 'Which port?', stream: false });
      fake.setBehaviour({ toolArguments: { get_weather: { city: 'Paris' } } });
      expect(res.body.status).toBe('COMPLETED');
      const trace = await traceOf(res.body.run_id);
      expect(trace.spans.map(shape)).toEqual([['run', 'agent:librarian', [model, ['tool', 'search_knowledge_base', [['knowledge', 'docs']]], model]]]);
      const toolSpan = trace.spans[0].children[1] as Json;
      expect(toolSpan.attributes.arguments).toEqual({ query: 'port', limit: 2, api_key: '[redacted]' });
      expect(toolSpan.children[0]).toMatchObject({
        status: 'ok',
        attributes: { query: 'port', limit: 2, search_type: null, filters: null, hits: [{ name: 'config.md', score: 0.92, content: 'PORT sets the port' }] },
      });
      expect(JSON.stringify(trace)).not.toContain('sk-live-secret-123');
    });

    it('shows a user only their own runs’ traces and metrics', async () => {
      const run = await api('POST', '/agents/writer/runs', { message: 'mine', stream: false }, alice);
      expect(run.body).toMatchObject({ user_id: 'sa:alice', status: 'COMPLETED' });
      const mine = await traceOf(run.body.run_id, alice);
      expect(mine.user_id).toBe('sa:alice');

      const theirs = await api('GET', `/traces/${run.body.run_id}`, undefined, bob);
      expect(theirs.status).toBe(404);
      expect(theirs.body).toMatchObject({ error_code: 'NOT_FOUND' });
      expect((await api('GET', `/traces/${runIds.plain}`, undefined, alice)).status).toBe(404);
      // A user_id filter naming someone else cannot widen the view.
      expect((await api('GET', '/traces?user_id=sa:alice', undefined, bob)).body.data).toEqual([]);
      expect((await api('GET', '/traces', undefined, alice)).body.data.map((t: Json) => t.run_id)).toEqual([run.body.run_id]);
      const metrics = await api('GET', '/metrics', undefined, bob);
      expect(metrics.body.days).toEqual([]);
      // Without the scope: 403.
      const bare = await api('POST', '/service-accounts', { name: 'carol', scopes: [{ scope: 'agents:run' }] });
      expect((await api('GET', '/traces', undefined, bare.body.token)).status).toBe(403);
    });

    it('records a failed model call as an error span, and the run as ERROR in the listing and the metrics', async () => {
      fake.script({ kind: 'error', status: 400, message: 'no such model' });
      const res = await api('POST', '/agents/writer/runs', { message: 'fail please', stream: false, user_id: 'u3' });
      expect(res.body.status).toBe('ERROR');
      const trace = await traceOf(res.body.run_id);
      expect(trace).toMatchObject({ status: 'ERROR', error: expect.any(String), input_tokens: 0, output_tokens: 0 });
      expect(trace.spans.map(shape)).toEqual([['run', 'agent:writer', [model]]]);
      expect(trace.spans[0].status).toBe('error');
      expect(trace.spans[0].children[0]).toMatchObject({ status: 'error', input_tokens: null, attributes: { error_code: 'MODEL_HTTP_ERROR', ttft_ms: null } });
      expect((await api('GET', '/traces?status=ERROR')).body.data.map((t: Json) => t.run_id)).toEqual([res.body.run_id]);
      const metrics = await api('GET', '/metrics');
      const writer = metrics.body.components.filter((c: Json) => c.component_id === 'writer');
      expect(writer.reduce((n: number, c: Json) => n + c.errors, 0)).toBe(1);
      expect(metrics.body.models.reduce((n: number, m: Json) => n + m.errors, 0)).toBe(1);
    });
  });
}

describe('traces switched off', () => {
  it('records no span when TRACES_ENABLED is false, and the run itself is unchanged', async () => {
    const fake = await startFakeLlm({ usage: USAGE });
    const chat = new OpenAIChatModel({ model: 'fake-model', baseURL: `${fake.url}/v1`, maxRetries: 0 });
    const rt = await startRuntime(testDatabaseKinds[0]!, { agents: testComponents(chat).agents, env: { OS_SECURITY_KEY: KEY, TRACES_ENABLED: 'false' } });
    try {
      const run = await call(rt.url, 'POST', '/agents/weather/runs', { token: KEY, body: { message: 'Weather in Oslo?', stream: false } });
      expect(run.status).toBe(200);
      expect(run.body.status).toBe('COMPLETED');
      // Past the writer's one-second interval: had a span been recorded, it would be stored now.
      await new Promise((resolve) => setTimeout(resolve, 1500));
      expect((await call(rt.url, 'GET', `/traces/${run.body.run_id}`, { token: KEY })).status).toBe(404);
      expect((await call(rt.url, 'GET', '/traces', { token: KEY })).body.data).toEqual([]);
    } finally {
      await rt.stop();
      await fake.close();
    }
  });
});

describe('model spans carry the tokens each provider reported', () => {
  const providers = {
    openai: (url: string) => openai({ model: 'fake-model', apiKey: 'sk-test', baseURL: `${url}/v1`, maxRetries: 0 }),
    anthropic: (url: string) => anthropic({ model: 'fake-model', apiKey: 'sk-ant-test', baseURL: url, maxRetries: 0 }),
    ollama: (url: string) => ollama({ model: 'fake-model', host: url, maxRetries: 0 }),
  };
  for (const kind of testDatabaseKinds) {
    describe.skipIf(!kind.available)(`on ${kind.kind}`, () => {
      let fake: FakeLlm;
      let rt: StartedRuntime;
      beforeAll(async () => {
        fake = await startFakeLlm({ usage: USAGE });
        const agents = Object.entries(providers).map(([id, make]) => new Agent({ id, instructions: 'Use the tool.', tools: [...testComponents(undefined).agents[0]!.tools], model: make(fake.url) }));
        rt = await startRuntime(kind, { agents, env: { OS_SECURITY_KEY: KEY } });
      });
      afterAll(async () => {
        await rt?.stop();
        await fake?.close();
      });
      for (const provider of Object.keys(providers)) {
        for (const stream of [false, true]) {
          it(`${provider}, ${stream ? 'streamed' : 'not streamed'}: run -> model -> tool -> model, each model span with the reported counts`, async () => {
            const res = await call(rt.url, 'POST', `/agents/${provider}/runs`, { token: KEY, body: { message: 'Weather in Lima?', stream } });
            expect(res.status).toBe(200);
            // A streamed run answers SSE text, its first event naming the run.
            const runId = (stream ? parseSse(res.body as string)[0]!.data.run_id : res.body.run_id) as string;
            const trace = await eventually(async () => {
              const t = await call(rt.url, 'GET', `/traces/${runId}`, { token: KEY });
              return t.status === 200 && t.body.status !== 'RUNNING' ? (t.body as Json) : undefined;
            }, 10_000, `the trace of ${runId}`);
            const modelSpan: Shape = ['model', `${provider}/fake-model`];
            expect(trace.spans.map(shape)).toEqual([['run', `agent:${provider}`, [modelSpan, ['tool', 'get_weather'], modelSpan]]]);
            for (const span of (trace.spans[0].children as Json[]).filter((s) => s.kind === 'model')) {
              expect(span).toMatchObject({ input_tokens: USAGE.inputTokens, output_tokens: USAGE.outputTokens });
            }
            expect(trace).toMatchObject({ input_tokens: 2 * USAGE.inputTokens, output_tokens: 2 * USAGE.outputTokens });
          });
        }
      }
    });
  }
});
