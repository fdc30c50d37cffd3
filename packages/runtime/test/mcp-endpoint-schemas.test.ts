/**
 * Our own /mcp endpoint as strict clients see it, checked with the official SDK client: plain
 * schemas (no bare `additionalProperties: {}`, no list of types), `continue_run`'s decisions
 * described, no `listChanged` claimed, and a declined tool call reported as neither started nor
 * completed in the progress of continue_run.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent } from '../src/agent/agent.js';
import { OpenAIChatModel } from '../src/providers/openai/chat.js';
import { tool } from '../src/tools/function-tool.js';
import { sqliteTestDatabase } from './support/databases.js';
import { startFakeLlm, type FakeLlm } from './support/fake-llm.js';
import { startRuntime, type StartedRuntime } from './support/runtime.js';

type Json = Record<string, any>;

describe('the /mcp endpoint for strict clients', () => {
  let fake: FakeLlm;
  let rt: StartedRuntime;
  let client: Client;
  const removed: string[] = [];

  beforeAll(async () => {
    fake = await startFakeLlm({ toolArguments: { remove: { name: 'a.txt' } } });
    const model = new OpenAIChatModel({ model: 'fake-model', baseURL: `${fake.url}/v1`, maxRetries: 0 });
    const remove = tool({
      name: 'remove',
      description: 'Remove a file',
      input: z.object({ name: z.string() }),
      requiresConfirmation: true,
      execute: ({ name }) => {
        removed.push(name);
        return `removed ${name}`;
      },
    });
    rt = await startRuntime(sqliteTestDatabase, { agents: [new Agent({ id: 'files', tools: [remove], model })], mcp_server: true });
    client = new Client({ name: 'strict', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${rt.url}/mcp`)));
  });
  afterAll(async () => {
    await client?.close();
    await rt?.stop();
    await fake?.close();
  });

  it('lists tools with plain schemas and claims no listChanged', async () => {
    expect(client.getServerCapabilities()?.tools?.listChanged).not.toBe(true);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['run_agent', 'continue_run', 'get_session_runs']));
    const text = JSON.stringify(tools);
    expect(text).not.toContain('"additionalProperties":{}');
    expect(text).not.toMatch(/"type":\[/);
    const requirements = tools.find((t) => t.name === 'continue_run')!.inputSchema.properties!.requirements as Json;
    expect(requirements.items).toMatchObject({
      type: 'object',
      properties: { tool_call_id: { type: 'string' }, confirmed: { type: 'boolean' } },
      required: ['tool_call_id', 'confirmed'],
    });
  });

  it('reports no tool progress for a declined call, and started/completed for a confirmed one', async () => {
    for (const confirmed of [false, true]) {
      const paused = await client.callTool({ name: 'run_agent', arguments: { agent_id: 'files', message: 'remove a.txt' } });
      const run = paused.structuredContent as Json;
      // The SDK client checked this against the tool's output schema (content may be absent or null).
      expect(run.status).toBe('PAUSED');
      const messages: string[] = [];
      const continued = await client.callTool(
        { name: 'continue_run', arguments: { agent_id: 'files', run_id: run.run_id, requirements: [{ tool_call_id: run.requirements[0].tool_call_id, confirmed }] } },
        undefined,
        { onprogress: (p) => messages.push(p.message ?? '') },
      );
      expect((continued.structuredContent as Json).status).toBe('COMPLETED');
      const toolProgress = messages.filter((m) => m.startsWith('Tool call'));
      expect(toolProgress).toEqual(confirmed ? ['Tool call started: remove', 'Tool call completed: remove'] : []);
    }
    expect(removed).toEqual(['a.txt']);
  });
});
