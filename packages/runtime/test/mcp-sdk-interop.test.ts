/**
 * The MCP endpoint as the official MCP SDK client meets it: every tool called with good and bad
 * arguments, output schemas the client validates, ping, session ids, and the rule that matters to
 * Claude Code and Codex: they give the model a tool's structuredContent when there is one, so it
 * must carry everything the text says (the agent's answer above all).
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent } from '../src/agent/agent.js';
import { OpenAIChatModel } from '../src/providers/openai/chat.js';
import { tool } from '../src/tools/function-tool.js';
import { testComponents } from './support/components.js';
import { testDatabaseKinds } from './support/databases.js';
import { startFakeLlm, type FakeLlm } from './support/fake-llm.js';
import { startRuntime, type StartedRuntime } from './support/runtime.js';

type Json = Record<string, any>;

const TOOLS = ['add_memory', 'cancel_run', 'continue_run', 'delete_memory', 'get_agentos_config', 'get_memories', 'get_session_runs', 'get_sessions', 'run_agent', 'run_team', 'run_workflow', 'update_memory'];

/**
 * Fails when a text block says something the structured result does not: each text must be the
 * JSON of the structured result or the value of one of its string fields.
 */
function expectTextBackedByStructure(result: CallToolResult): void {
  if (result.structuredContent === undefined) return;
  const structured = result.structuredContent;
  const strings = Object.values(structured).filter((v): v is string => typeof v === 'string');
  for (const block of result.content) {
    if (block.type !== 'text') continue;
    const backed = strings.includes(block.text) || block.text === JSON.stringify(structured);
    expect(backed, `text not found in structuredContent: ${block.text}\nstructured: ${JSON.stringify(structured)}`).toBe(true);
  }
}

for (const kind of testDatabaseKinds) {
  describe.skipIf(!kind.available)(`MCP SDK client against the runtime on ${kind.kind}`, () => {
    let fake: FakeLlm;
    let rt: StartedRuntime;
    let client: Client;
    let transport: StreamableHTTPClientTransport;
    const call = async (name: string, args: Record<string, unknown>): Promise<CallToolResult> => {
      const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
      expectTextBackedByStructure(result);
      return result;
    };

    beforeAll(async () => {
      fake = await startFakeLlm({ toolArguments: { delete_file: { path: 'notes.txt' } } });
      const model = new OpenAIChatModel({ model: 'fake-model', baseURL: `${fake.url}/v1`, maxRetries: 0 });
      const { agents, teams, workflows } = testComponents(model);
      const deleteFile = tool({
        name: 'delete_file',
        description: 'Delete a file',
        input: z.object({ path: z.string() }),
        requiresConfirmation: true,
        execute: ({ path }) => `Deleted ${path}`,
      });
      const files = new Agent({ id: 'files', instructions: 'Manage files.', tools: [deleteFile], model });
      rt = await startRuntime(kind, { agents: [...agents, files], teams, workflows, mcp_server: true, name: 'Interop' });
      client = new Client({ name: 'interop-test', version: '1.0.0' });
      transport = new StreamableHTTPClientTransport(new URL(`${rt.url}/mcp`));
      await client.connect(transport);
    });
    afterAll(async () => {
      await client?.close();
      await rt?.stop();
      await fake?.close();
    });

    it('lists the eight tools, each with an output schema; run tools declare the answer in it', async () => {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name).sort()).toEqual(TOOLS);
      for (const t of tools) expect(t.outputSchema, t.name).toBeDefined();
      for (const name of ['run_agent', 'run_team', 'run_workflow', 'continue_run']) {
        const schema = tools.find((t) => t.name === name)!.outputSchema as Json;
        expect(Object.keys(schema.properties)).toEqual(expect.arrayContaining(['run_id', 'session_id', 'status', 'content', 'requirements']));
        expect(schema.required).toEqual(expect.arrayContaining(['run_id', 'session_id', 'status', 'content']));
      }
      expect(tools.find((t) => t.name === 'run_agent')!.description).toContain('Run an agent');
    });

    it('gives the client a session id and answers ping', async () => {
      expect(transport.sessionId).toMatch(/^[0-9a-f-]{36}$/);
      await expect(client.ping()).resolves.toEqual({});
    });

    it('run_agent, run_team, run_workflow: the answer is in structuredContent.content and in the text', async () => {
      const agent = await call('run_agent', { agent_id: 'writer', message: 'hello there' });
      expect(agent.isError).toBeFalsy();
      expect(agent.structuredContent).toMatchObject({ status: 'COMPLETED', content: 'You said: hello there' });
      expect(agent.content).toEqual([{ type: 'text', text: 'You said: hello there' }]);

      fake.setBehaviour({ toolArguments: { transfer_to_member: { member_id: 'writer', task: 'hi' } } });
      const team = await call('run_team', { team_id: 'router', message: 'route me' });
      fake.setBehaviour({ toolArguments: { delete_file: { path: 'notes.txt' } } });
      expect(team.structuredContent).toMatchObject({ status: 'COMPLETED', content: 'You said: hi' });

      const workflow = await call('run_workflow', { workflow_id: 'pipeline', message: 'go' });
      expect(workflow.structuredContent).toMatchObject({ status: 'COMPLETED', content: 'final: YOU SAID: GO' });
    });

    it('continues a session by session_id, and a caller-chosen session_id starts a new session', async () => {
      const first = await call('run_agent', { agent_id: 'writer', message: 'I am Ada', session_id: 'chosen-by-client' });
      expect(first.structuredContent).toMatchObject({ session_id: 'chosen-by-client', status: 'COMPLETED' });
      const second = await call('run_agent', { agent_id: 'writer', message: 'Who am I?', session_id: 'chosen-by-client' });
      expect(second.structuredContent).toMatchObject({ session_id: 'chosen-by-client' });
      const runs = await call('get_session_runs', { session_id: 'chosen-by-client' });
      expect((runs.structuredContent as Json).runs).toHaveLength(2);
    });

    it('a paused run says what waits for confirmation, in structure and text; continue_run answers like a run', async () => {
      const paused = await call('run_agent', { agent_id: 'files', message: 'Delete notes.txt' });
      const structured = paused.structuredContent as Json;
      expect(paused.isError).toBeFalsy();
      expect(structured).toMatchObject({ status: 'PAUSED', requirements: [{ tool_name: 'delete_file', tool_args: '{"path":"notes.txt"}' }] });
      expect(structured.message).toContain('continue_run');
      const callId = structured.requirements[0].tool_call_id as string;
      expect(structured.message).toContain(callId);

      const badDecision = await call('continue_run', { run_id: structured.run_id, agent_id: 'files', requirements: [{ tool_call_id: callId }] });
      expect(badDecision).toMatchObject({ isError: true });
      const continued = await call('continue_run', {
        run_id: structured.run_id,
        agent_id: 'files',
        requirements: [{ tool_call_id: callId, confirmed: true }],
      });
      expect(continued.structuredContent).toMatchObject({ run_id: structured.run_id, status: 'COMPLETED', content: 'You said: Delete notes.txt' });
    });

    it('get_agentos_config, get_sessions and get_session_runs answer what their schemas say', async () => {
      const config = await call('get_agentos_config', {});
      expect(config.structuredContent).toMatchObject({ name: 'Interop', agents: expect.arrayContaining([expect.objectContaining({ id: 'writer' })]) });
      const sessions = await call('get_sessions', { session_type: 'agent', component_id: 'writer', limit: 5 });
      expect((sessions.structuredContent as Json).meta).toMatchObject({ page: 1, limit: 5 });
      const sessionId = (sessions.structuredContent as Json).data[0].session_id as string;
      const runs = await call('get_session_runs', { session_id: sessionId });
      const runId = (runs.structuredContent as Json).runs[0].run_id as string;
      const one = await call('get_session_runs', { session_id: sessionId, run_id: runId });
      expect((one.structuredContent as Json).runs).toEqual([expect.objectContaining({ run_id: runId, messages: expect.any(Array) })]);
    });

    it('bad arguments to every tool are tool errors with a message, never protocol failures', async () => {
      const cases: [string, Record<string, unknown>, RegExp][] = [
        ['run_agent', { agent_id: 'nope', message: 'x' }, /Agent nope not found/],
        ['run_agent', { agent_id: 'writer' }, /message/],
        ['run_team', { team_id: 'nope', message: 'x' }, /Team nope not found/],
        ['run_workflow', { workflow_id: 'pipeline', message: 42 }, /message/],
        ['cancel_run', { run_id: 'r' }, /exactly one of agent_id, team_id, or workflow_id/],
        ['cancel_run', { run_id: 'no-such-run', agent_id: 'writer' }, /Run no-such-run not found/],
        ['continue_run', { run_id: 'r', agent_id: 'writer', team_id: 'router' }, /exactly one of/],
        ['continue_run', { run_id: 'no-such-run', agent_id: 'files' }, /not found/],
        ['get_sessions', { limit: 0 }, /limit/],
        ['get_sessions', { session_type: 'robot' }, /session_type/],
        ['get_session_runs', {}, /session_id/],
        ['get_session_runs', { session_id: 'no-such-session' }, /Session no-such-session not found/],
      ];
      for (const [name, args, message] of cases) {
        const result = await call(name, args);
        expect(result.isError, `${name} ${JSON.stringify(args)}`).toBe(true);
        expect((result.content as Json[])[0]!.text).toMatch(message);
      }
      await expect(client.callTool({ name: 'no_such_tool', arguments: {} })).resolves.toMatchObject({ isError: true });
    });

    it('an agent that fails gives a tool error whose structured result says why', async () => {
      fake.script({ kind: 'error', status: 400, message: 'context too long' });
      const failed = await call('run_agent', { agent_id: 'writer', message: 'boom' });
      expect(failed.isError).toBe(true);
      expect(failed.structuredContent).toMatchObject({ status: 'ERROR', error: expect.stringContaining('context too long') });
    });

    it('cancel_run of a finished run says it had already finished, with its status', async () => {
      const done = (await call('run_agent', { agent_id: 'writer', message: 'quick' })).structuredContent as Json;
      const cancelled = await call('cancel_run', { run_id: done.run_id, agent_id: 'writer' });
      expect(cancelled.isError).toBeFalsy();
      expect(cancelled.structuredContent).toEqual({
        run_id: done.run_id,
        cancelled: false,
        status: 'COMPLETED',
        already_finished: true,
        message: `Run ${done.run_id} had already finished with status COMPLETED; nothing was cancelled`,
      });
    });

    it('answers GET with 405 (no server stream to hold open) and ends a session on DELETE', async () => {
      const get = await fetch(`${rt.url}/mcp`, { headers: { accept: 'text/event-stream' } });
      expect(get.status).toBe(405);
      expect(get.headers.get('allow')).toBe('POST, DELETE');
      expect(await get.json()).toMatchObject({ jsonrpc: '2.0', error: { code: -32000 } });
      const malformed = await fetch(`${rt.url}/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: '{"jsonrpc":',
      });
      expect(malformed.status).toBe(400);
      expect(await malformed.json()).toMatchObject({ jsonrpc: '2.0', error: { code: -32700 }, id: null });

      const other = new Client({ name: 'short-lived', version: '1.0.0' });
      const otherTransport = new StreamableHTTPClientTransport(new URL(`${rt.url}/mcp`));
      await other.connect(otherTransport);
      await otherTransport.terminateSession();
      expect(otherTransport.sessionId).toBeUndefined();
      await other.close();
    });
  });
}
