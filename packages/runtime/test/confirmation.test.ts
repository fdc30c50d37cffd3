/**
 * Human-in-the-loop: a tool declared with `requiresConfirmation` pauses the run; the run is
 * continued over HTTP or MCP with a decision per waiting call, on SQLite and PostgreSQL.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent } from '../src/agent/agent.js';
import { OpenAIChatModel } from '../src/providers/openai/chat.js';
import { Runtime } from '../src/runtime.js';
import { silentLogger } from '../src/util/logger.js';
import { tool } from '../src/tools/function-tool.js';
import { testDatabaseKinds } from './support/databases.js';
import { startFakeLlm, type FakeLlm } from './support/fake-llm.js';
import { eventually } from './support/eventually.js';
import { startRuntime, type StartedRuntime } from './support/runtime.js';
import { parseSse } from './support/sse.js';

type Json = Record<string, any>;

for (const kind of testDatabaseKinds) {
  describe.skipIf(!kind.available)(`tools that need confirmation, on ${kind.kind}`, () => {
    let fake: FakeLlm;
    let rt: StartedRuntime;
    let deleted: string[];
    let agents: Agent[];

    const post = (path: string, body: unknown) =>
      fetch(`${rt.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const pause = async (): Promise<Json> => {
      const run = (await (await post('/agents/files/runs', { message: 'Delete notes.txt', stream: false, user_id: 'ann' })).json()) as Json;
      expect(run.status).toBe('PAUSED');
      return run;
    };

    beforeAll(async () => {
      fake = await startFakeLlm({ toolArguments: { delete_file: { path: 'notes.txt' } } });
      const model = new OpenAIChatModel({ model: 'fake-model', baseURL: `${fake.url}/v1`, maxRetries: 0 });
      const deleteFile = tool({
        name: 'delete_file',
        description: 'Delete a file',
        input: z.object({ path: z.string() }),
        requiresConfirmation: true,
        execute: ({ path }) => {
          deleted.push(path);
          return `Deleted ${path}`;
        },
      });
      agents = [new Agent({ id: 'files', instructions: 'Manage files.', tools: [deleteFile], model })];
      rt = await startRuntime(kind, { agents, mcp_server: true });
    });
    beforeEach(() => {
      deleted = [];
    });
    afterAll(async () => {
      await rt?.stop();
      await fake?.close();
    });

    it('pauses before the call, running nothing, and says which calls wait', async () => {
      const run = await pause();
      expect(deleted).toEqual([]);
      expect(run.tools).toEqual([
        expect.objectContaining({ tool_name: 'delete_file', tool_args: '{"path":"notes.txt"}', requires_confirmation: true, confirmed: null, result: null }),
      ]);
      const listed = (await (await fetch(`${rt.url}/agents/files/runs?status=PAUSED`)).json()) as Json[];
      expect(listed.map((r) => r.run_id)).toContain(run.run_id);
    });

    it('streams RunPaused with the waiting calls', async () => {
      const res = await post('/agents/files/runs', { message: 'Delete notes.txt' });
      const events = parseSse(await res.text());
      expect(events.map((e) => e.event)).toEqual(['RunStarted', 'RunPaused']);
      expect(events[1]!.data.tools).toEqual([expect.objectContaining({ tool_name: 'delete_file', confirmed: null })]);
    });

    it('runs a confirmed call, then lets the model answer, under the same run id', async () => {
      const run = await pause();
      const callId = run.tools[0].tool_call_id;
      const res = await post(`/agents/files/runs/${run.run_id}/continue`, {
        tools: [{ tool_call_id: callId, confirmed: true }],
        session_id: run.session_id,
        stream: false,
      });
      expect(res.status).toBe(200);
      const done = (await res.json()) as Json;
      expect(deleted).toEqual(['notes.txt']);
      expect(done).toMatchObject({ run_id: run.run_id, status: 'COMPLETED', content: 'You said: Delete notes.txt', user_id: 'ann' });
      expect(done.tools).toEqual([expect.objectContaining({ tool_call_id: callId, confirmed: true, result: 'Deleted notes.txt', error: null })]);
      const lastRequest = fake.requests.at(-1)!.body as Json;
      expect(lastRequest.messages.at(-1)).toMatchObject({ role: 'tool', content: 'Deleted notes.txt' });
      const stored = (await (await fetch(`${rt.url}/agents/files/runs/${run.run_id}`)).json()) as Json;
      expect(stored.messages.map((m: Json) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
    });

    it("traces a paused and continued run as one trace: both parts' spans, the tokens of both", async () => {
      const run = await pause();
      const res = await post(`/agents/files/runs/${run.run_id}/continue`, { tools: [{ tool_call_id: run.tools[0].tool_call_id, confirmed: true }], session_id: run.session_id, stream: false });
      expect(res.status).toBe(200);
      const trace = await eventually(async () => {
        const t = (await (await fetch(`${rt.url}/traces/${run.run_id}`)).json()) as Json;
        return t.status === 'COMPLETED' ? t : undefined;
      }, 10_000, 'the continued run to be traced');
      // The fake reports 12 input and 5 output tokens per call: one call before the pause, one after.
      expect(trace).toMatchObject({ run_id: run.run_id, status: 'COMPLETED', input_tokens: 24, output_tokens: 10, user_id: 'ann' });
      const shape = (span: Json): unknown[] => (span.children.length ? [span.kind, span.name, span.children.map(shape)] : [span.kind, span.name]);
      const model = ['model', 'openai/fake-model'];
      expect(trace.spans.map(shape)).toEqual([
        ['run', 'agent:files', [model]],
        ['run', 'agent:files', [['tool', 'delete_file'], model]],
      ]);
    });

    it('tells the model about a declined call, from a form with the decisions as JSON text, streaming', async () => {
      const run = await pause();
      const res = await fetch(`${rt.url}/agents/files/runs/${run.run_id}/continue`, {
        method: 'POST',
        body: new URLSearchParams({ tools: JSON.stringify([{ tool_call_id: run.tools[0].tool_call_id, confirmed: false }]) }),
      });
      const events = parseSse(await res.text());
      expect(events.map((e) => e.event)).toEqual(['RunContinued', 'ToolCallStarted', 'ToolCallCompleted', 'RunContent', 'RunContent', 'RunContent', 'RunContent', 'RunCompleted']);
      expect(events[2]!.data.tool).toMatchObject({ tool_call_error: true, confirmed: false, result: 'The user declined to run delete_file' });
      expect(deleted).toEqual([]);
      expect((fake.requests.at(-1)!.body as Json).messages.at(-1)).toMatchObject({ role: 'tool', content: 'The user declined to run delete_file' });
    });

    it('refuses continuing what cannot be continued, with the documented statuses', async () => {
      const run = await pause();
      const callId = run.tools[0].tool_call_id;
      const cont = (body: unknown, runId = run.run_id) => post(`/agents/files/runs/${runId}/continue`, body);

      const missing = await cont({ tools: [], stream: false });
      expect(missing.status).toBe(400);
      expect(((await missing.json()) as Json).detail).toContain(`Decide on every waiting tool call (confirmed true or false): ${callId} (delete_file)`);
      const stranger = await cont({ tools: [{ tool_call_id: 'call_nope', confirmed: true }] });
      expect(stranger.status).toBe(400);
      const badJson = await fetch(`${rt.url}/agents/files/runs/${run.run_id}/continue`, { method: 'POST', body: new URLSearchParams({ tools: '[{' }) });
      expect(badJson.status).toBe(422);
      expect(JSON.stringify(await badJson.json())).toContain('Invalid JSON in tools field');
      expect((await cont({ tools: [{ tool_call_id: callId, confirmed: true }], session_id: 'another' })).status).toBe(404);
      // The run is ann's: another user is refused outright (not told it does not exist).
      expect((await cont({ tools: [{ tool_call_id: callId, confirmed: true }], user_id: 'bob' })).status).toBe(403);
      expect((await cont({ tools: [] }, 'no-such-run')).status).toBe(404);
      expect(deleted).toEqual([]);

      expect((await cont({ tools: [{ tool_call_id: callId, confirmed: true }], stream: false })).status).toBe(200);
      const again = await cont({ tools: [{ tool_call_id: callId, confirmed: true }], stream: false });
      expect(again.status).toBe(409);
      expect(await again.json()).toEqual({ detail: 'run is already completed', error_code: 'CONFLICT' });
      expect(deleted).toEqual(['notes.txt']);
    });

    it('lets exactly one of two simultaneous continues run the tool', async () => {
      const run = await pause();
      const body = { tools: [{ tool_call_id: run.tools[0].tool_call_id, confirmed: true }], stream: false };
      const results = await Promise.all([post(`/agents/files/runs/${run.run_id}/continue`, body), post(`/agents/files/runs/${run.run_id}/continue`, body)]);
      expect(results.map((r) => r.status).sort()).toEqual([200, 409]);
      expect(deleted).toEqual(['notes.txt']);
    });

    it('continues a run paused before a restart', async () => {
      const run = await pause();
      const reopened = new Runtime({ env: {}, db: rt.database.open(), agents }, { logger: silentLogger });
      await reopened.start();
      try {
        const res = await reopened.fetch(
          new Request(`http://localhost/agents/files/runs/${run.run_id}/continue`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ tools: [{ tool_call_id: run.tools[0].tool_call_id, confirmed: true }], stream: false }),
          }),
        );
        expect(((await res.json()) as Json).status).toBe('COMPLETED');
        expect(deleted).toEqual(['notes.txt']);
      } finally {
        await reopened.close();
      }
    });

    it('pauses and continues through MCP', async () => {
      const client = new Client({ name: 'svc-test', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(`${rt.url}/mcp`)));
      try {
        const paused = (await client.callTool({ name: 'run_agent', arguments: { agent_id: 'files', message: 'Delete notes.txt' } })) as Json;
        expect(paused.isError).toBeFalsy();
        expect(paused.structuredContent).toMatchObject({ status: 'PAUSED', requirements: [{ tool_name: 'delete_file', tool_args: '{"path":"notes.txt"}' }] });
        expect(paused.content[0].text).toContain('need the user');
        const { run_id, requirements } = paused.structuredContent;
        const done = (await client.callTool({
          name: 'continue_run',
          arguments: { agent_id: 'files', run_id, requirements: [{ tool_call_id: requirements[0].tool_call_id, confirmed: true }] },
        })) as Json;
        expect(done.isError).toBeFalsy();
        expect(done.structuredContent).toMatchObject({ run_id, status: 'COMPLETED' });
        expect(deleted).toEqual(['notes.txt']);
        const bad = (await client.callTool({ name: 'continue_run', arguments: { agent_id: 'files', run_id, requirements: [] } })) as Json;
        expect(bad.isError).toBe(true);
        expect(bad.content[0].text).toBe('run is already completed');
      } finally {
        await client.close();
      }
    });
  });
}
