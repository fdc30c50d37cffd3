/**
 * Agents using real MCP servers over stdio: the reference `server-everything` and
 * `server-filesystem` from npm, spawned by the runtime under its watchdog, with the loopback
 * model server scripting the tool calls. Tools are listed with the server's own schemas and
 * called; structured output, validation errors and `isError` reach the model; progress becomes
 * run events and span attributes; confirmation pauses the run; a crashed server is restarted
 * and its failure shown to the model as a tool error.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent } from '../src/agent/agent.js';
import { mcpServer, type McpServerSource } from '../src/mcp-client/mcp-server.js';
import { OpenAIChatModel } from '../src/providers/openai/chat.js';
import { sqliteTestDatabase } from './support/databases.js';
import { eventually } from './support/eventually.js';
import { startFakeLlm, type FakeLlm } from './support/fake-llm.js';
import { call } from './support/http.js';
import { alive, descendants, everythingStdio, filesystemStdio } from './support/mcp-servers.js';
import { startRuntime, type StartedRuntime } from './support/runtime.js';
import { parseSse } from './support/sse.js';

type Json = Record<string, any>;

describe('agents using MCP servers over stdio', () => {
  let fake: FakeLlm;
  let rt: StartedRuntime;
  let folder: string;
  let everything: McpServerSource;
  let files: McpServerSource;
  let changing: McpServerSource;
  let unlisting: McpServerSource;

  beforeAll(async () => {
    folder = await mkdtemp(join(tmpdir(), 'mcp-fs-'));
    await writeFile(join(folder, 'notes.txt'), 'Buy milk');
    fake = await startFakeLlm();
    const model = new OpenAIChatModel({ model: 'fake-model', baseURL: `${fake.url}/v1`, maxRetries: 0 });
    everything = mcpServer({
      id: 'everything',
      ...everythingStdio(),
      include: ['echo', 'get-sum', 'get-structured-content', 'trigger-long-running-operation', 'get-tiny-image'],
      requiresConfirmation: ['get-sum'],
    });
    files = mcpServer({ id: 'files', ...filesystemStdio(folder), prefix: 'fs_', exclude: ['write_file', 'edit_file', 'move_file'] });
    unlisting = mcpServer({ id: 'unlisting', command: process.execPath, args: ['--import', 'tsx', fileURLToPath(new URL('./support/unlisting-mcp-server.ts', import.meta.url))] });
    changing = mcpServer({ id: 'changing', command: process.execPath, args: ['--import', 'tsx', fileURLToPath(new URL('./support/changing-mcp-server.ts', import.meta.url))] });
    rt = await startRuntime(sqliteTestDatabase, {
      agents: [
        new Agent({ id: 'helper', instructions: 'Help.', tools: [everything, files], model }),
        new Agent({ id: 'changing', tools: [changing], model }),
        new Agent({ id: 'broken', tools: [mcpServer({ id: 'missing', command: 'no-such-mcp-server-command' })], model }),
        new Agent({ id: 'unlisting', tools: [unlisting], model }),
      ],
    });
  }, 60_000);
  afterAll(async () => {
    await rt?.stop();
    await fake?.close();
    if (folder) await rm(folder, { recursive: true, force: true });
  });

  const run = async (message: string): Promise<Json> => (await call(rt.url, 'POST', '/agents/helper/runs', { body: { message, stream: false, user_id: 'ann' } })).body;
  const toolsOffered = (i: number): Json[] => ((fake.requests[i]!.body as Json).tools as Json[]).map((t) => t.function);

  it('offers the servers’ tools with their own schemas, filtered and prefixed', async () => {
    const before = fake.requests.length;
    fake.script({ kind: 'text', text: 'Nothing to do.' });
    expect((await run('hello')).status).toBe('COMPLETED');
    const offered = toolsOffered(before);
    const names = offered.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['echo', 'get-sum', 'get-structured-content', 'trigger-long-running-operation', 'fs_read_text_file', 'fs_list_directory']));
    expect(names).not.toContain('get-env');
    expect(names).not.toContain('fs_write_file');
    const weather = offered.find((t) => t.name === 'get-structured-content')!;
    expect(weather.parameters.properties.location).toMatchObject({ type: 'string', enum: ['New York', 'Chicago', 'Los Angeles'] });
    expect(weather.parameters).not.toHaveProperty('$schema');
  });

  it('calls a tool and hands its structured content to the model', async () => {
    const before = fake.requests.length;
    fake.script({ kind: 'tool-call', name: 'get-structured-content', arguments: { location: 'Chicago' } }, { kind: 'text', text: 'It is windy.' });
    const done = await run('Weather in Chicago?');
    expect(done.status).toBe('COMPLETED');
    expect(done.content).toBe('It is windy.');
    const result = JSON.parse(fake.requests[before + 1]!.conversation.toolResults.at(-1)!) as Json;
    expect(result).toEqual({ temperature: expect.any(Number), conditions: expect.any(String), humidity: expect.any(Number) });
    expect(done.tools[0]).toMatchObject({ tool_name: 'get-structured-content', error: null });
  });

  it('refuses arguments the server’s schema rejects before calling, and the model reads why', async () => {
    const before = fake.requests.length;
    fake.script({ kind: 'tool-call', name: 'get-structured-content', arguments: { location: 'Paris' } }, { kind: 'text', text: 'Sorry.' });
    const done = await run('Weather in Paris?');
    expect(done.status).toBe('COMPLETED');
    const seen = fake.requests[before + 1]!.conversation.toolResults.at(-1)!;
    expect(seen).toMatch(/^Invalid arguments for get-structured-content: .*must be equal to one of the allowed values/);
    expect(done.tools[0].error).toBe(seen);
  });

  it('reads a file in the temporary folder, and an isError result reaches the model as an error', async () => {
    const before = fake.requests.length;
    fake.script(
      { kind: 'tool-calls', calls: [{ name: 'fs_read_text_file', arguments: { path: join(folder, 'notes.txt') } }, { name: 'fs_read_text_file', arguments: { path: join(folder, 'missing.txt') } }] },
      { kind: 'text', text: 'Read.' },
    );
    const done = await run('Read my notes');
    expect(done.status).toBe('COMPLETED');
    const [found, missing] = fake.requests[before + 1]!.conversation.toolResults.slice(-2);
    expect(found).toContain('Buy milk');
    expect(missing).toMatch(/^Tool fs_read_text_file failed: .*(ENOENT|no such file)/i);
    expect(done.tools.map((t: Json) => t.error === null)).toEqual([true, false]);
  });

  it('names an image result in the tool message (the image itself follows it: mcp-client-media.test.ts)', async () => {
    const before = fake.requests.length;
    fake.script({ kind: 'tool-call', name: 'get-tiny-image', arguments: {} }, { kind: 'text', text: 'An image.' });
    await run('Show an image');
    expect(fake.requests[before + 1]!.conversation.toolResults.at(-1)).toMatch(/\[image image\/png, \d+ bytes\]: in the next user message/);
  });

  it('streams progress notifications as ToolCallProgress events and keeps them on the tool span', async () => {
    fake.script({ kind: 'tool-call', name: 'trigger-long-running-operation', arguments: { duration: 0.4, steps: 4 } }, { kind: 'text', text: 'Done.' });
    const res = await fetch(`${rt.url}/agents/helper/runs`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ message: 'long one' }) });
    const events = parseSse(await res.text());
    const progress = events.filter((e) => e.event === 'ToolCallProgress');
    // The SDK client handles a notification a microtask late, and forgets the call's progress
    // handler when its answer comes: the server's last report, sent just before the answer, can be lost.
    expect(progress.map((e) => [e.data.progress, e.data.total]).slice(0, 3)).toEqual([[1, 4], [2, 4], [3, 4]]);
    expect(progress.length).toBeLessThanOrEqual(4);
    expect(progress[0]!.data.tool).toMatchObject({ tool_name: 'trigger-long-running-operation' });
    const runId = events[0]!.data.run_id as string;
    const trace = await eventually(async () => {
      const t = await call(rt.url, 'GET', `/traces/${runId}`);
      return t.status === 200 && t.body.status !== 'RUNNING' ? t.body : undefined;
    });
    const spans: Json[] = [];
    const walk = (s: Json) => {
      spans.push(s);
      (s.children ?? s.spans ?? []).forEach(walk);
    };
    (trace.spans ?? [trace.tree ?? trace]).forEach(walk);
    const span = spans.find((s) => s.kind === 'tool' || s.span_kind === 'tool');
    expect(JSON.stringify(span)).toMatch(/"progress":\[\{"progress":1,"total":4,"at":\d+\},\{"progress":2/);
  });

  it('pauses for a tool that needs confirmation, runs it when confirmed, and reports a declined one', async () => {
    fake.script({ kind: 'tool-call', name: 'get-sum', arguments: { a: 2, b: 3 } });
    const paused = await run('Add 2 and 3');
    expect(paused.status).toBe('PAUSED');
    expect(paused.tools).toEqual([expect.objectContaining({ tool_name: 'get-sum', requires_confirmation: true, confirmed: null })]);
    const before = fake.requests.length;
    fake.script({ kind: 'text', text: 'Five.' });
    const confirmed = await call(rt.url, 'POST', `/agents/helper/runs/${paused.run_id}/continue`, {
      body: { tools: [{ tool_call_id: paused.tools[0].tool_call_id, confirmed: true }], stream: false },
    });
    expect(confirmed.body.status).toBe('COMPLETED');
    expect(fake.requests[before]!.conversation.toolResults.at(-1)).toContain('5');

    fake.script({ kind: 'tool-call', name: 'get-sum', arguments: { a: 1, b: 1 } });
    const again = await run('Add 1 and 1');
    const afterPause = fake.requests.length;
    fake.script({ kind: 'text', text: 'Not added.' });
    const declined = await call(rt.url, 'POST', `/agents/helper/runs/${again.run_id}/continue`, {
      body: { tools: [{ tool_call_id: again.tools[0].tool_call_id, confirmed: false }], stream: false },
    });
    expect(declined.body.status).toBe('COMPLETED');
    expect(fake.requests[afterPause]!.conversation.toolResults.at(-1)).toBe('The user declined to run get-sum');
  });

  it('lists each MCP server with its status and tools in /config and GET /mcp-servers, without secrets', async () => {
    const config = await call(rt.url, 'GET', '/config');
    const helper = config.body.agents.find((a: Json) => a.id === 'helper');
    const servers = helper.mcp_servers as Json[];
    expect(servers.map((s) => [s.id, s.transport, s.status])).toEqual([
      ['everything', 'stdio', 'connected'],
      ['files', 'stdio', 'connected'],
    ]);
    expect(servers[0]!.tools).toEqual(expect.arrayContaining([{ name: 'get-sum', requires_confirmation: true }]));
    expect(servers[0]).not.toHaveProperty('args');
    const listed = await call(rt.url, 'GET', '/mcp-servers');
    expect(listed.status).toBe(200);
    expect(listed.body.data.map((s: Json) => [s.agent_id, s.id])).toEqual([
      ['helper', 'everything'],
      ['helper', 'files'],
      ['changing', 'changing'],
      ['broken', 'missing'],
      ['unlisting', 'unlisting'],
    ]);
  });

  it('restarts a crashed server and shows the crash to the model as a tool error, not a failed run', async () => {
    if (everything.pids().length === 0) {
      fake.script({ kind: 'text', text: 'warm' });
      await run('connect first');
    }
    const [watchdog] = everything.pids();
    expect(watchdog).toBeDefined();
    const server = (await descendants(watchdog!))[0]!;
    fake.script({ kind: 'tool-call', name: 'trigger-long-running-operation', arguments: { duration: 20, steps: 20 } }, { kind: 'text', text: 'It broke.' });
    const calling = fake.requests.length;
    const res = await fetch(`${rt.url}/agents/helper/runs`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ message: 'long one' }) });
    const reader = res.body!.getReader();
    let seen = '';
    while (!seen.includes('ToolCallProgress')) seen += new TextDecoder().decode((await reader.read()).value);
    // The server dies in the middle of the call.
    process.kill(server, 'SIGKILL');
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      seen += new TextDecoder().decode(value);
    }
    expect(parseSse(seen).at(-1)!.event).toBe('RunCompleted');
    expect(fake.requests[calling + 1]!.conversation.toolResults.at(-1)).toMatch(/^Tool trigger-long-running-operation failed: MCP server "everything" stopped during the call/);
    // The watchdog exits with the server; the connection restarts it.
    await eventually(() => !alive(watchdog!) || undefined, 10_000, 'the watchdog to exit');
    await eventually(() => (everything.pids()[0] !== undefined && everything.pids()[0] !== watchdog) || undefined, 15_000, 'a new server');
    fake.script({ kind: 'tool-call', name: 'echo', arguments: { message: 'back' } }, { kind: 'text', text: 'ok' });
    const before = fake.requests.length;
    const done = await run('echo back');
    expect(done.status).toBe('COMPLETED');
    expect(fake.requests[before + 1]!.conversation.toolResults.at(-1)).toContain('back');
  });

  it('offers a tool the server added, after its notifications/tools/list_changed', async () => {
    fake.script({ kind: 'tool-call', name: 'add_tool', arguments: {} }, { kind: 'text', text: 'Added.' });
    const first = fake.requests.length;
    expect((await call(rt.url, 'POST', '/agents/changing/runs', { body: { message: 'add one', stream: false } })).body.status).toBe('COMPLETED');
    expect(toolsOffered(first).map((t) => t.name)).toEqual(['add_tool']);
    await eventually(() => (changing.describe().tools as Json[] | null)?.some((t) => t.name === 'added') || undefined, 10_000, 'the new list');
    fake.script({ kind: 'tool-call', name: 'added', arguments: { word: 'hello' } }, { kind: 'text', text: 'Used it.' });
    const second = fake.requests.length;
    expect((await call(rt.url, 'POST', '/agents/changing/runs', { body: { message: 'use it', stream: false } })).body.status).toBe('COMPLETED');
    expect(toolsOffered(second).map((t) => t.name)).toEqual(['add_tool', 'added']);
    expect(fake.requests[second + 1]!.conversation.toolResults.at(-1)).toBe('added says hello');
  });

  it('says a command that cannot be started cannot be, to the model too, without failing the run', async () => {
    const before = fake.requests.length;
    fake.script({ kind: 'tool-call', name: 'missing_unavailable', arguments: {} }, { kind: 'text', text: 'No tools.' });
    const done = (await call(rt.url, 'POST', '/agents/broken/runs', { body: { message: 'hi', stream: false } })).body;
    expect(done.status).toBe('COMPLETED');
    const error = 'MCP server "missing" failed: cannot start no-such-mcp-server-command: spawn no-such-mcp-server-command ENOENT';
    expect(toolsOffered(before)).toEqual([
      { name: 'missing_unavailable', description: `The tools of the MCP server "missing" are unavailable for now: ${error}. Calling this reports the failure; tell the user if you needed them.`, parameters: { type: 'object', properties: {} } },
    ]);
    expect(done.tools[0].error).toBe(`Tool missing_unavailable failed: ${error}`);
    const listed = (await call(rt.url, 'GET', '/mcp-servers')).body.data as Json[];
    expect(listed.find((s) => s.id === 'missing')).toMatchObject({
      status: 'failed',
      tools: null,
      error: 'MCP server "missing" failed: cannot start no-such-mcp-server-command: spawn no-such-mcp-server-command ENOENT',
    });
  });

  it('shows the model a server that no longer lists its tools, not the list it gave before', async () => {
    fake.script({ kind: 'tool-call', name: 'break_listing', arguments: {} }, { kind: 'text', text: 'Broke it.' });
    const first = fake.requests.length;
    expect((await call(rt.url, 'POST', '/agents/unlisting/runs', { body: { message: 'break it', stream: false } })).body.status).toBe('COMPLETED');
    expect(toolsOffered(first).map((t) => t.name)).toEqual(['break_listing']);
    // The server said its list changed (before its answer), so the next run lists again, and cannot.
    fake.script({ kind: 'text', text: 'Cannot.' });
    const second = fake.requests.length;
    expect((await call(rt.url, 'POST', '/agents/unlisting/runs', { body: { message: 'again', stream: false } })).body.status).toBe('COMPLETED');
    expect(toolsOffered(second)).toEqual([
      {
        name: 'unlisting_unavailable',
        description: 'The tools of the MCP server "unlisting" are unavailable for now: MCP server "unlisting" failed: MCP error -32603: the tool registry is down. Calling this reports the failure; tell the user if you needed them.',
        parameters: { type: 'object', properties: {} },
      },
    ]);
    expect(unlisting.describe()).toMatchObject({ error: 'MCP server "unlisting" failed: MCP error -32603: the tool registry is down' });
  });
});
