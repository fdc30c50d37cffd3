/**
 * Agents using a real MCP server over streamable HTTP: the reference `server-everything` from
 * npm, behind a recording proxy that shows what the runtime's client put on the wire. Per-user
 * headers give each user a session of their own; cancelling a run sends notifications/cancelled
 * for the call in flight; internal hosts are refused unless allowed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent } from '../src/agent/agent.js';
import { mcpServer } from '../src/mcp-client/mcp-server.js';
import type { McpHeadersContext } from '../src/mcp-client/options.js';
import { OpenAIChatModel } from '../src/providers/openai/chat.js';
import { sqliteTestDatabase } from './support/databases.js';
import { eventually } from './support/eventually.js';
import { startFakeLlm, type FakeLlm } from './support/fake-llm.js';
import { call } from './support/http.js';
import { startEverythingHttp, startRecordingProxy, type HttpMcpServer, type RecordingProxy } from './support/mcp-servers.js';
import { startRuntime, type StartedRuntime } from './support/runtime.js';
import { readUntil } from './support/sse.js';

type Json = Record<string, any>;

describe('agents using an MCP server over streamable HTTP', () => {
  let fake: FakeLlm;
  let rt: StartedRuntime;
  let server: HttpMcpServer;
  let proxy: RecordingProxy;

  beforeAll(async () => {
    server = await startEverythingHttp();
    proxy = await startRecordingProxy(server.url);
    fake = await startFakeLlm();
    const model = new OpenAIChatModel({ model: 'fake-model', baseURL: `${fake.url}/v1`, maxRetries: 0 });
    const remote = mcpServer({
      id: 'remote',
      url: proxy.url,
      allowPrivateHosts: ['127.0.0.1'],
      headers: ({ userId }) => ({ authorization: `Bearer token-of-${userId}` }),
      include: ['echo', 'trigger-long-running-operation'],
    });
    const refused = mcpServer({ id: 'refused', url: proxy.url });
    rt = await startRuntime(sqliteTestDatabase, {
      agents: [new Agent({ id: 'remote', tools: [remote], model }), new Agent({ id: 'refused', tools: [refused], model })],
    });
  }, 60_000);
  afterAll(async () => {
    await rt?.stop();
    await proxy?.close();
    await server?.close();
    await fake?.close();
  });

  const run = async (agent: string, message: string, user: string): Promise<Json> =>
    (await call(rt.url, 'POST', `/agents/${agent}/runs`, { body: { message, stream: false, user_id: user } })).body;

  it('calls a tool with each user’s own headers, on a session of that user’s own', async () => {
    for (const user of ['ann', 'bob']) {
      const before = fake.requests.length;
      fake.script({ kind: 'tool-call', name: 'echo', arguments: { message: `hi from ${user}` } }, { kind: 'text', text: 'ok' });
      const done = await run('remote', 'say hi', user);
      expect(done.status).toBe('COMPLETED');
      expect(fake.requests[before + 1]!.conversation.toolResults.at(-1)).toContain(`hi from ${user}`);
    }
    const sessions = (user: string) => new Set(proxy.requests.filter((r) => r.authorization === `Bearer token-of-${user}` && r.session).map((r) => r.session));
    expect(sessions('ann').size).toBe(1);
    expect(sessions('bob').size).toBe(1);
    expect([...sessions('ann')][0]).not.toBe([...sessions('bob')][0]);
    expect(proxy.requests.every((r) => r.authorization === 'Bearer token-of-ann' || r.authorization === 'Bearer token-of-bob')).toBe(true);
  });

  it('sends notifications/cancelled for the call in flight when the run is cancelled', async () => {
    // No answer after the call is scripted: the run is cancelled during it.
    fake.script({ kind: 'tool-call', name: 'trigger-long-running-operation', arguments: { duration: 30, steps: 30 } });
    const controller = new AbortController();
    const res = await fetch(`${rt.url}/agents/remote/runs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ message: 'long', user_id: 'ann' }),
      signal: controller.signal,
    });
    let runId = '';
    const events = await readUntil(res, new AbortController(), (seen) => {
      runId = String(seen[0]?.data.run_id ?? '');
      return seen.some((e) => e.event === 'ToolCallProgress');
    });
    expect(events.at(-1)!.data).toMatchObject({ progress: 1, total: 30 });
    const cancelled = await call(rt.url, 'POST', `/agents/remote/runs/${runId}/cancel`);
    expect(cancelled.body).toMatchObject({ cancelled: true });
    controller.abort();
    const callMessage = proxy.messages.findLast((m) => m.method === 'tools/call' && m.params?.name === 'trigger-long-running-operation')!;
    const notice = await eventually(() => proxy.messages.find((m) => m.method === 'notifications/cancelled' && m.params?.requestId === callMessage.id), 10_000, 'notifications/cancelled');
    expect(typeof notice.params.reason).toBe('string');
    const stored = await eventually(async () => {
      const r = await call(rt.url, 'GET', `/agents/remote/runs/${runId}`);
      return r.body.status === 'CANCELLED' ? r.body : undefined;
    });
    expect(stored.status).toBe('CANCELLED');
  });

  it('hands headers(ctx) the run’s principal and a JWT’s claims', async () => {
    const seen: McpHeadersContext[] = [];
    const source = mcpServer({
      id: 'claims',
      url: proxy.url,
      allowPrivateHosts: ['127.0.0.1'],
      headers: (ctx) => {
        seen.push(ctx);
        return { authorization: `Bearer for-${String(ctx.claims.tenant)}` };
      },
    });
    const principal = { kind: 'jwt', userId: 'u-1', scopes: ['agents:run'], claims: { sub: 'u-1', tenant: 'acme' } };
    const tools = await source.tools({ runId: 'r1', sessionId: 's1', userId: 'u-1', principal, signal: new AbortController().signal });
    expect(tools.map((t) => t.name)).toContain('echo');
    expect(seen).toEqual([{ runId: 'r1', sessionId: 's1', userId: 'u-1', principal, claims: { sub: 'u-1', tenant: 'acme' } }]);
    expect(proxy.requests.at(-1)!.authorization).toBe('Bearer for-acme');
    await source.close();
  });

  it('refuses a server on an internal address unless allowed, and says so without failing the run', async () => {
    const before = proxy.messages.length;
    fake.script({ kind: 'text', text: 'no tools' });
    const done = await run('refused', 'hello', 'ann');
    expect(done.status).toBe('COMPLETED');
    expect(proxy.messages.length).toBe(before);
    const listed = await call(rt.url, 'GET', '/mcp-servers');
    const refused = listed.body.data.find((s: Json) => s.id === 'refused');
    expect(refused).toMatchObject({ status: 'failed', tools: null });
    expect(refused.error).toMatch(/MCP server "refused".*loopback address/);
    const remote = listed.body.data.find((s: Json) => s.id === 'remote');
    expect(remote).toMatchObject({ transport: 'streamable-http', per_user: true, connections: 2, status: 'connected' });
    expect(JSON.stringify(listed.body)).not.toContain('token-of-');
  });
  it('connects again after the server restarted and forgot the session, the failed call a tool error', async () => {
    await server.close();
    server = await startEverythingHttp();
    proxy.retarget(server.url);
    const before = fake.requests.length;
    fake.script({ kind: 'tool-call', name: 'echo', arguments: { message: 'lost' } }, { kind: 'text', text: 'It failed.' });
    expect((await run('remote', 'say it', 'ann')).status).toBe('COMPLETED');
    expect(fake.requests[before + 1]!.conversation.toolResults.at(-1)).toMatch(/^Tool echo failed: MCP server "remote" failed: .*No valid session ID/);
    fake.script({ kind: 'tool-call', name: 'echo', arguments: { message: 'back again' } }, { kind: 'text', text: 'ok' });
    const again = fake.requests.length;
    expect((await run('remote', 'say it', 'ann')).status).toBe('COMPLETED');
    expect(fake.requests[again + 1]!.conversation.toolResults.at(-1)).toContain('back again');
  });
});
