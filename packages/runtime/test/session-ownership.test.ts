/**
 * A session belongs to the user who started it. A caller-chosen session_id still starts a new
 * session (clients rely on that), but another user's run on it is refused (403 on REST, a tool
 * error on MCP), and that user's listings never show it. Service-account tokens are confined
 * to their own sessions on REST as on MCP.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OpenAIChatModel } from '../src/providers/openai/chat.js';
import { testComponents } from './support/components.js';
import { testDatabaseKinds } from './support/databases.js';
import { startFakeLlm, type FakeLlm } from './support/fake-llm.js';
import { call } from './support/http.js';
import { startRuntime, type StartedRuntime } from './support/runtime.js';

type Json = Record<string, any>;

const KEY = 'ownership-test-security-key';
const SCOPES = ['agents:run', 'agents:read', 'sessions:read', 'sessions:write', 'sessions:delete', 'config:read', 'memories:read', 'memories:write', 'memories:delete'].map((scope) => ({ scope }));

async function mcpClient(url: string, token?: string): Promise<Client> {
  const client = new Client({ name: 'ownership', version: '1.0.0' });
  const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
  await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { requestInit: { headers } }));
  return client;
}

for (const kind of testDatabaseKinds) {
  describe.skipIf(!kind.available)(`session ownership on ${kind.kind}`, () => {
    let fake: FakeLlm;
    let open: StartedRuntime;
    let secured: StartedRuntime;
    let alice: string;
    let bob: string;

    beforeAll(async () => {
      fake = await startFakeLlm();
      const model = new OpenAIChatModel({ model: 'fake-model', baseURL: `${fake.url}/v1`, maxRetries: 0 });
      const { agents } = testComponents(model);
      open = await startRuntime(kind, { agents, mcp_server: true });
      secured = await startRuntime(kind, { agents, mcp_server: true, env: { OS_SECURITY_KEY: KEY } });
      const mint = async (name: string) => {
        const res = await call(secured.url, 'POST', '/service-accounts', {
          token: KEY,
          body: { name, scopes: SCOPES, allow_privileged_scopes: true },
        });
        expect(res.status).toBe(201);
        return res.body.token as string;
      };
      alice = await mint('alice');
      bob = await mint('bob');
    });
    afterAll(async () => {
      await open?.stop();
      await secured?.stop();
      await fake?.close();
    });

    it('open runtime: a chosen session_id starts a session; another user_id on it is refused and never listed for them', async () => {
      const first = await call(open.url, 'POST', '/agents/writer/runs', { body: { message: 'hi', session_id: 'ann-chat', user_id: 'ann', stream: false } });
      expect(first.status).toBe(200);
      expect(first.body).toMatchObject({ session_id: 'ann-chat', user_id: 'ann', status: 'COMPLETED' });

      const intruder = await call(open.url, 'POST', '/agents/writer/runs', { body: { message: 'mine now', session_id: 'ann-chat', user_id: 'bob', stream: false } });
      expect(intruder.status).toBe(403);
      expect(intruder.body).toMatchObject({ error_code: 'FORBIDDEN', detail: "Session 'ann-chat' belongs to another user" });

      const bobs = await call(open.url, 'GET', '/sessions?user_id=bob');
      expect(bobs.body.data.map((s: Json) => s.session_id)).not.toContain('ann-chat');

      const client = await mcpClient(open.url);
      const viaMcp = await client.callTool({ name: 'run_agent', arguments: { agent_id: 'writer', message: 'x', session_id: 'ann-chat', user_id: 'bob' } });
      expect(viaMcp).toMatchObject({ isError: true, content: [{ text: "Session 'ann-chat' belongs to another user" }] });
      const listed = await client.callTool({ name: 'get_sessions', arguments: { user_id: 'bob' } });
      expect((listed.structuredContent as Json).data.map((s: Json) => s.session_id)).not.toContain('ann-chat');
      // The session is untouched: only ann's run is in it.
      const runs = await call(open.url, 'GET', '/sessions/ann-chat/runs');
      expect(runs.body.map((r: Json) => r.user_id)).toEqual(['ann']);
      await client.close();
    });

    it('service-account tokens: runs, reads, cancels and listings stay within their own sessions, on REST and MCP', async () => {
      const started = await call(secured.url, 'POST', '/agents/writer/runs', { token: alice, body: { message: 'secret plan', session_id: 'alice-chat', stream: false } });
      expect(started.body).toMatchObject({ session_id: 'alice-chat', user_id: 'sa:alice' });
      const runId = started.body.run_id as string;

      const refused = await call(secured.url, 'POST', '/agents/writer/runs', { token: bob, body: { message: 'x', session_id: 'alice-chat', stream: false } });
      expect(refused.status).toBe(403);
      const cancel = await call(secured.url, 'POST', `/agents/writer/runs/${runId}/cancel`, { token: bob });
      expect(cancel.status).toBe(403);

      const bobList = await call(secured.url, 'GET', '/sessions', { token: bob });
      expect(bobList.body.data.map((s: Json) => s.session_id)).not.toContain('alice-chat');
      const bobAsksForAlice = await call(secured.url, 'GET', '/sessions?user_id=sa:alice', { token: bob });
      expect(bobAsksForAlice.body.data).toEqual([]);
      expect((await call(secured.url, 'GET', '/sessions/alice-chat', { token: bob })).status).toBe(404);
      expect((await call(secured.url, 'GET', '/sessions/alice-chat/runs', { token: bob })).status).toBe(404);
      expect((await call(secured.url, 'POST', '/sessions/alice-chat/rename', { token: bob, body: { session_name: 'pwned' } })).status).toBe(404);
      expect((await call(secured.url, 'DELETE', '/sessions/alice-chat', { token: bob })).status).toBe(404);
      expect((await call(secured.url, 'DELETE', '/sessions', { token: bob, body: { session_ids: ['alice-chat'] } })).status).toBe(204);

      const aliceList = await call(secured.url, 'GET', '/sessions', { token: alice });
      expect(aliceList.body.data.map((s: Json) => s.session_id)).toEqual(['alice-chat']);
      // The admin key sees everything.
      expect((await call(secured.url, 'GET', '/sessions/alice-chat', { token: KEY })).body).toMatchObject({ session_name: 'secret plan', runs_count: 1 });

      const bobMcp = await mcpClient(secured.url, bob);
      const run = await bobMcp.callTool({ name: 'run_agent', arguments: { agent_id: 'writer', message: 'x', session_id: 'alice-chat' } });
      expect(run).toMatchObject({ isError: true, content: [{ text: "Session 'alice-chat' belongs to another user" }] });
      const cancelled = await bobMcp.callTool({ name: 'cancel_run', arguments: { run_id: runId, agent_id: 'writer' } });
      expect(cancelled).toMatchObject({ isError: true, content: [{ text: 'This run belongs to another user' }] });
      const listed = await bobMcp.callTool({ name: 'get_sessions', arguments: {} });
      expect((listed.structuredContent as Json).data.map((s: Json) => s.session_id)).not.toContain('alice-chat');
      const read = await bobMcp.callTool({ name: 'get_session_runs', arguments: { session_id: 'alice-chat' } });
      expect(read).toMatchObject({ isError: true });
      await bobMcp.close();
    });

    it('service-account tokens: memories stay with their own account, on REST and MCP', async () => {
      const made = await call(secured.url, 'POST', '/memories', { token: alice, body: { memory: 'Alice takes the night train', user_id: 'sa:bob' } });
      expect(made.body).toMatchObject({ user_id: 'sa:alice' });
      const id = made.body.memory_id as string;
      expect((await call(secured.url, 'GET', '/memories?user_id=sa:alice', { token: bob })).body.data).toEqual([]);
      expect((await call(secured.url, 'GET', `/memories/${id}`, { token: bob })).status).toBe(404);
      expect((await call(secured.url, 'PATCH', `/memories/${id}`, { token: bob, body: { memory: 'pwned' } })).status).toBe(404);
      expect((await call(secured.url, 'DELETE', `/memories/${id}`, { token: bob })).status).toBe(404);
      const bobMcp = await mcpClient(secured.url, bob);
      expect(((await bobMcp.callTool({ name: 'get_memories', arguments: { user_id: 'sa:alice' } })).structuredContent as Json).data).toEqual([]);
      expect(await bobMcp.callTool({ name: 'delete_memory', arguments: { memory_id: id } })).toMatchObject({ isError: true });
      await bobMcp.close();
      expect((await call(secured.url, 'GET', `/memories/${id}`, { token: alice })).body).toMatchObject({ memory: 'Alice takes the night train', version: 1 });
      expect((await call(secured.url, 'GET', `/memories/${id}`, { token: KEY })).status).toBe(200);
    });
  });
}
