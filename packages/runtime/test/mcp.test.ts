/**
 * The MCP endpoint through the official MCP SDK client (initialize, tools/list, tools/call),
 * against a running server whose agents use a real provider and the loopback fake LLM.
 */
import { request } from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { OpenAIChatModel } from '../src/providers/openai/chat.js';
import { testComponents } from './support/components.js';
import { testDatabaseKinds } from './support/databases.js';
import { startFakeLlm, type FakeLlm } from './support/fake-llm.js';
import { startRuntime, type StartedRuntime } from './support/runtime.js';

type Json = Record<string, any>;

function rawPost(url: string, host: string, body: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', headers: { host, 'content-type': 'application/json', accept: 'application/json, text/event-stream' } }, (res) => {
      let text = '';
      res.on('data', (d: Buffer) => (text += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

for (const kind of testDatabaseKinds) {
  describe.skipIf(!kind.available)(`MCP endpoint on ${kind.kind}`, () => {
    let fake: FakeLlm;
    let rt: StartedRuntime;
    let client: Client;

    beforeAll(async () => {
      fake = await startFakeLlm();
      const model = new OpenAIChatModel({ model: 'fake-model', baseURL: `${fake.url}/v1`, maxRetries: 0 });
      rt = await startRuntime(kind, { ...withoutCounters(testComponents(model)), mcp_server: true, name: 'MCP test' });
      client = new Client({ name: 'svc-test', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(`${rt.url}/mcp`)));
    });
    afterAll(async () => {
      await client?.close();
      await rt?.stop();
      await fake?.close();
    });
    afterEach(() => fake.setBehaviour({ chunkDelayMs: 0 }));

    it('initializes and lists the twelve tools', async () => {
      expect(client.getServerVersion()?.name).toBe('MCP test');
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name).sort()).toEqual(
        ['add_memory', 'cancel_run', 'continue_run', 'delete_memory', 'get_agentos_config', 'get_memories', 'get_session_runs', 'get_sessions', 'run_agent', 'run_team', 'run_workflow', 'update_memory'].sort(),
      );
      const runAgent = tools.find((t) => t.name === 'run_agent')!;
      expect(runAgent.inputSchema.required).toEqual(expect.arrayContaining(['agent_id', 'message']));
      expect(runAgent.description).toMatch(/^Run an agent with a message/);
      expect(tools.find((t) => t.name === 'run_team')!.description).toMatch(/^Run a team with a message/);
    });

    it('describes the runtime', async () => {
      const result = await client.callTool({ name: 'get_agentos_config', arguments: {} });
      const config = result.structuredContent as Json;
      expect(config.agents.map((a: Json) => a.id)).toEqual(['weather', 'writer']);
      expect(config.teams.map((t: Json) => t.id)).toEqual(['router', 'coordinator']);
      expect(config.workflows.map((w: Json) => w.id)).toEqual(['pipeline']);
    });

    it('runs an agent with progress notifications, and the session can be read back', async () => {
      const progress: string[] = [];
      const result = await client.callTool(
        { name: 'run_agent', arguments: { agent_id: 'weather', message: 'Paris weather?' } },
        undefined,
        { onprogress: (p) => progress.push(p.message ?? '') },
      );
      expect(result.isError).toBeFalsy();
      expect((result.content as Json[])[0]).toEqual({ type: 'text', text: 'You said: Paris weather?' });
      const run = result.structuredContent as Json;
      expect(run).toMatchObject({ status: 'COMPLETED' });
      expect(progress).toEqual(['Weather agent started', 'Tool call started: get_weather', 'Tool call completed: get_weather']);

      const sessions = (await client.callTool({ name: 'get_sessions', arguments: { session_type: 'agent', component_id: 'weather' } }))
        .structuredContent as Json;
      expect(sessions.data.map((s: Json) => s.session_id)).toContain(run.session_id);
      const runs = (await client.callTool({ name: 'get_session_runs', arguments: { session_id: run.session_id } })).structuredContent as Json;
      expect(runs.runs).toEqual([expect.objectContaining({ run_id: run.run_id, content: 'You said: Paris weather?' })]);
    });

    it('continues a session across tool calls', async () => {
      const first = (await client.callTool({ name: 'run_agent', arguments: { agent_id: 'writer', message: 'I am Ada' } })).structuredContent as Json;
      await client.callTool({ name: 'run_agent', arguments: { agent_id: 'writer', message: 'Who am I?', session_id: first.session_id } });
      const sent = (fake.requests.at(-1)!.body as Json).messages.map((m: Json) => m.content);
      expect(sent).toEqual(['I am Ada', 'You said: I am Ada', 'Who am I?']);
    });

    it('runs a team and a workflow', async () => {
      fake.setBehaviour({ toolArguments: { transfer_to_member: { member_id: 'writer', task: 'hi' } } });
      const team = await client.callTool({ name: 'run_team', arguments: { team_id: 'router', message: 'route me' } });
      expect((team.content as Json[])[0]!.text).toBe('You said: hi');
      fake.setBehaviour({ toolArguments: {} });
      const progress: string[] = [];
      const workflow = await client.callTool({ name: 'run_workflow', arguments: { workflow_id: 'pipeline', message: 'go' } }, undefined, {
        onprogress: (p) => progress.push(p.message ?? ''),
      });
      expect((workflow.content as Json[])[0]!.text).toBe('final: YOU SAID: GO');
      expect(progress[0]).toBe('Workflow started');
      expect(progress).toContain('Step started: draft');
    });

    it('reports bad calls as tool errors, not protocol failures', async () => {
      const unknown = await client.callTool({ name: 'run_agent', arguments: { agent_id: 'nope', message: 'x' } });
      expect(unknown).toMatchObject({ isError: true, content: [{ type: 'text', text: 'Agent nope not found' }] });
      const ambiguous = await client.callTool({ name: 'cancel_run', arguments: { run_id: 'r' } });
      expect(ambiguous).toMatchObject({ isError: true, content: [{ text: 'Provide exactly one of agent_id, team_id, or workflow_id' }] });
      const done = (await client.callTool({ name: 'run_agent', arguments: { agent_id: 'writer', message: 'x' } })).structuredContent as Json;
      const cont = await client.callTool({ name: 'continue_run', arguments: { run_id: done.run_id, agent_id: 'writer' } });
      expect(cont).toMatchObject({ isError: true });
      expect((cont.content as Json[])[0]!.text).toBe('run is already completed');
      const cancelled = await client.callTool({ name: 'cancel_run', arguments: { run_id: done.run_id, agent_id: 'writer' } });
      // Nothing to cancel: the answer says so and gives the status, and is not an error.
      expect(cancelled).toMatchObject({
        content: [{ text: `Run ${done.run_id} had already finished with status COMPLETED; nothing was cancelled` }],
        structuredContent: { run_id: done.run_id, cancelled: false, status: 'COMPLETED', already_finished: true },
      });
      expect(cancelled.isError).toBeFalsy();
    });

    it('cancels a slow run through cancel_run', async () => {
      fake.setBehaviour({ chunkDelayMs: 200 });
      const pending = client.callTool({ name: 'run_agent', arguments: { agent_id: 'writer', message: 'a b c d e f g h' } });
      let runId: string | undefined;
      for (let i = 0; i < 100 && !runId; i++) {
        await new Promise((r) => setTimeout(r, 20));
        runId = rt.runtime.runner.activeRunIds()[0];
      }
      expect(runId).toBeDefined();
      await client.callTool({ name: 'cancel_run', arguments: { run_id: runId!, agent_id: 'writer' } });
      const result = await pending;
      expect(result).toMatchObject({ isError: true, structuredContent: { status: 'CANCELLED' } });
    });

    it('answers only loopback Host headers while the runtime is open', async () => {
      const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
      const evil = await rawPost(`${rt.url}/mcp`, 'evil.example:7777', body);
      expect(evil.status).toBe(400);
      expect(JSON.parse(evil.body)).toMatchObject({ error_code: 'BAD_REQUEST' });
      const local = await rawPost(`${rt.url}/mcp`, `localhost:${rt.server.port}`, body);
      expect(local.status).toBe(200);
      expect(local.body).toMatch(/run_agent/);
    });
  });
}

function withoutCounters(c: ReturnType<typeof testComponents>) {
  return { agents: c.agents, teams: c.teams, workflows: c.workflows };
}
