/**
 * /memories and the MCP memory tools keep each user to their own memories, on SQLite and
 * PostgreSQL: two JWT users, an admin, a service account and a token naming no user, on a
 * runtime with RBAC and user isolation off (memories are personal data: a caller naming a user is
 * confined to its own whatever the isolation setting). Another user's memory answers 404 (read,
 * change, delete), is never listed (whatever user_id is asked for), and a body's user_id cannot
 * write into another user's memories; admins reach every user's. Also: paging, topic and text
 * filters, versioned updates (409 on a stale version), and the 4xx for bad input. And an agent
 * with memory run by signed-in users (REST and MCP): a fact one user's run noted is in that
 * user's later prompts only, whatever user_id another caller sends.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent } from '../src/agent/agent.js';
import { OpenAIChatModel } from '../src/providers/openai/chat.js';
import { testDatabaseKinds } from './support/databases.js';
import { noteTaker } from './support/note-taker.js';
import { startFakeLlm, type FakeLlm } from './support/fake-llm.js';
import { call } from './support/http.js';
import { sign, signingKey, type SigningKey } from './support/jwt.js';
import { startRuntime, type StartedRuntime } from './support/runtime.js';

type Json = Record<string, any>;

const SCOPES = ['memories:read', 'memories:write', 'memories:delete', 'agents:run'];

async function mcpClient(url: string, token: string): Promise<Client> {
  const client = new Client({ name: 'memories', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  return client;
}

let key: SigningKey;
let fake: FakeLlm;
/** The system text of the last model call for this message. */
const systemOf = (message: string) => fake.requests.filter((r) => r.conversation.lastUserMessage === message).at(-1)!.conversation.system;
beforeAll(async () => {
  key = await signingKey('RS256', 'mem');
  fake = await startFakeLlm({ reply: noteTaker });
});
afterAll(async () => {
  await fake?.close();
});

for (const kind of testDatabaseKinds) {
  describe.runIf(kind.available)(`memory isolation on ${kind.kind}`, () => {
    let rt: StartedRuntime;
    const t = { alice: '', bob: '', admin: '', sa: '', noSub: '', readOnly: '' };
    const add = async (token: string, body: Json): Promise<Json> => {
      const res = await call(rt.url, 'POST', '/memories', { token, body });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      return res.body;
    };
    const ids = async (token: string, query = ''): Promise<string[]> => {
      const res = await call(rt.url, 'GET', `/memories?limit=100${query}`, { token });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res.body.data.map((m: Json) => m.memory);
    };

    beforeAll(async () => {
      const model = new OpenAIChatModel({ model: 'fake-model', baseURL: `${fake.url}/v1`, maxRetries: 0 });
      const agents = [new Agent({ id: 'assistant', model, memory: true })];
      rt = await startRuntime(kind, { agents, mcp_server: true, authorization: true, authorization_config: { verification_keys: [key.publicPem] } });
      const jwt = (sub: string | undefined, scopes: string[]) => sign(key, { claims: { sub, scopes } });
      t.alice = await jwt('alice', SCOPES);
      t.bob = await jwt('bob', SCOPES);
      t.admin = await jwt('root', ['agent_os:admin']);
      t.noSub = await jwt(undefined, SCOPES);
      t.readOnly = await jwt('carol', ['memories:read']);
      const minted = await call(rt.url, 'POST', '/service-accounts', {
        token: t.admin,
        body: { name: 'ci', scopes: SCOPES.map((scope) => ({ scope })), allow_privileged_scopes: true },
      });
      if (minted.status !== 201) throw new Error(`minting failed: ${JSON.stringify(minted.body)}`);
      t.sa = minted.body.token as string;
    });
    afterAll(async () => {
      await rt?.stop();
    });

    it('writes each caller its own memories, whatever user_id the body names; admins write for anyone', async () => {
      expect((await add(t.alice, { memory: 'Alice prefers tea', topics: ['Drinks', 'drinks', ' food '], user_id: 'bob' })).user_id).toBe('alice');
      expect((await add(t.alice, { memory: 'Alice lives in Lyon', topics: ['home'] })).topics).toEqual(['home']);
      expect((await add(t.bob, { memory: 'Bob is allergic to nuts', topics: ['food'] })).user_id).toBe('bob');
      expect((await add(t.sa, { memory: 'CI runs nightly' })).user_id).toBe('sa:ci');
      expect((await add(t.admin, { memory: 'Dave likes 100% cocoa_chocolate', user_id: 'dave', topics: ['food'] })).user_id).toBe('dave');
      // An admin naming no user writes its own memory.
      const noUser = await call(rt.url, 'POST', '/memories', { token: t.admin, body: { memory: 'whose?' } });
      expect(noUser.status).toBe(201);
      expect(noUser.body.user_id).toBe('root');
    });

    it('lists only the caller’s own, even when it asks for another user; admins list all and filter', async () => {
      expect((await ids(t.alice)).sort()).toEqual(['Alice lives in Lyon', 'Alice prefers tea']);
      expect(await ids(t.alice, '&user_id=bob')).toEqual([]);
      expect(await ids(t.bob)).toEqual(['Bob is allergic to nuts']);
      expect(await ids(t.sa)).toEqual(['CI runs nightly']);
      expect(await ids(t.readOnly)).toEqual([]);
      expect((await ids(t.admin)).length).toBe(6);
      expect(await ids(t.admin, '&user_id=bob')).toEqual(['Bob is allergic to nuts']);
      expect((await ids(t.admin, '&topic=FOOD')).sort()).toEqual(['Alice prefers tea', 'Bob is allergic to nuts', 'Dave likes 100% cocoa_chocolate']);
      expect(await ids(t.alice, '&topic=food')).toEqual(['Alice prefers tea']);
      // Text is matched literally: % and _ are not wildcards.
      expect(await ids(t.admin, '&text=100%25%20cocoa_')).toEqual(['Dave likes 100% cocoa_chocolate']);
      expect(await ids(t.admin, '&text=%25%25')).toEqual([]);
      const topics = await call(rt.url, 'GET', '/memory_topics', { token: t.alice });
      expect(topics.body).toEqual([{ topic: 'drinks', count: 1 }, { topic: 'food', count: 1 }, { topic: 'home', count: 1 }]);
      const page = await call(rt.url, 'GET', '/memories?limit=2&page=2&sort_by=created_at&sort_order=asc', { token: t.admin });
      expect(page.body.meta).toEqual({ page: 2, limit: 2, total_count: 6, total_pages: 3 });
      expect(page.body.data.map((m: Json) => m.memory)).toEqual(['Bob is allergic to nuts', 'CI runs nightly']);
    });

    it("answers 404 for another user's memory on read, change and delete, and leaves it as it was", async () => {
      const [bobs] = (await call(rt.url, 'GET', '/memories', { token: t.bob })).body.data as Json[];
      const path = `/memories/${bobs!.memory_id}`;
      expect((await call(rt.url, 'GET', path, { token: t.alice })).status).toBe(404);
      expect((await call(rt.url, 'PATCH', path, { token: t.alice, body: { memory: 'pwned' } })).status).toBe(404);
      expect((await call(rt.url, 'DELETE', path, { token: t.alice })).status).toBe(404);
      expect((await call(rt.url, 'DELETE', '/memories', { token: t.sa, body: { memory_ids: [bobs!.memory_id] } })).status).toBe(204);
      expect((await call(rt.url, 'GET', path, { token: t.bob })).body).toMatchObject({ memory: 'Bob is allergic to nuts', version: 1 });
      expect((await call(rt.url, 'GET', path, { token: t.admin })).status).toBe(200);
    });

    it('refuses a token naming no user, a missing scope, and bad input with 4xx', async () => {
      expect((await call(rt.url, 'GET', '/memories', { token: t.noSub })).status).toBe(403);
      expect((await call(rt.url, 'POST', '/memories', { token: t.noSub, body: { memory: 'x' } })).status).toBe(403);
      expect((await call(rt.url, 'POST', '/memories', { token: t.readOnly, body: { memory: 'x' } })).status).toBe(403);
      expect((await call(rt.url, 'POST', '/memories', { token: t.alice, body: { memory: '   ' } })).status).toBe(422);
      expect((await call(rt.url, 'POST', '/memories', { token: t.alice, body: { memory: 'x'.repeat(2001) } })).status).toBe(422);
      expect((await call(rt.url, 'POST', '/memories', { token: t.alice, body: { memory: 'x', topics: Array(11).fill('t') } })).status).toBe(422);
      expect((await call(rt.url, 'GET', '/memories?limit=0', { token: t.alice })).status).toBe(422);
    });

    it('versions every change: a stale version is refused with 409 and changes nothing', async () => {
      const made = await add(t.alice, { memory: 'Alice runs on Sundays', topics: ['sport'] });
      const path = `/memories/${made.memory_id}`;
      const first = await call(rt.url, 'PATCH', path, { token: t.alice, body: { memory: 'Alice runs on Saturdays', version: 1 } });
      expect(first.body).toMatchObject({ memory: 'Alice runs on Saturdays', version: 2, topics: ['sport'] });
      const stale = await call(rt.url, 'PATCH', path, { token: t.alice, body: { memory: 'Alice runs on Mondays', version: 1 } });
      expect(stale.status).toBe(409);
      expect(stale.body.error_code).toBe('CONFLICT');
      const topics = await call(rt.url, 'PATCH', path, { token: t.alice, body: { topics: ['running'] } });
      expect(topics.body).toMatchObject({ memory: 'Alice runs on Saturdays', version: 3, topics: ['running'] });
      expect((await call(rt.url, 'DELETE', path, { token: t.alice })).status).toBe(204);
      expect((await call(rt.url, 'GET', path, { token: t.alice })).status).toBe(404);
    });

    it('the MCP memory tools confine callers the same way and are gated by the REST scopes', async () => {
      const bob = await mcpClient(rt.url, t.bob);
      const listed = await bob.callTool({ name: 'get_memories', arguments: { user_id: 'alice' } });
      expect((listed.structuredContent as Json).data).toEqual([]);
      const mine = await bob.callTool({ name: 'get_memories', arguments: {} });
      expect((mine.structuredContent as Json).data.map((m: Json) => m.memory)).toEqual(['Bob is allergic to nuts']);
      const added = await bob.callTool({ name: 'add_memory', arguments: { memory: 'Bob cycles to work', user_id: 'alice' } });
      expect((added.structuredContent as Json).memory.user_id).toBe('bob');
      const [alices] = (await call(rt.url, 'GET', '/memories', { token: t.alice })).body.data as Json[];
      expect(await bob.callTool({ name: 'update_memory', arguments: { memory_id: alices!.memory_id, memory: 'pwned' } })).toMatchObject({ isError: true });
      expect(await bob.callTool({ name: 'delete_memory', arguments: { memory_id: alices!.memory_id } })).toMatchObject({ isError: true });
      expect((await call(rt.url, 'GET', `/memories/${alices!.memory_id}`, { token: t.alice })).body.memory).toBe(alices!.memory);
      await bob.close();

      const carol = await mcpClient(rt.url, t.readOnly);
      expect(await carol.callTool({ name: 'add_memory', arguments: { memory: 'x' } })).toMatchObject({ isError: true, content: [{ text: expect.stringMatching(/memories:write/) }] });
      await carol.close();
      const nobody = await mcpClient(rt.url, t.noSub);
      expect(await nobody.callTool({ name: 'get_memories', arguments: {} })).toMatchObject({ isError: true });
      await nobody.close();
      const admin = await mcpClient(rt.url, t.admin);
      expect((((await admin.callTool({ name: 'get_memories', arguments: { user_id: 'alice' } })).structuredContent as Json).data as Json[]).length).toBe(2);
      await admin.close();
    });

    it("a signed-in user's runs remember for that user only, over REST and MCP, whatever user_id they send", async () => {
      const noted = await call(rt.url, 'POST', '/agents/assistant/runs', { token: t.alice, body: { message: 'Note that Alice flies gliders.', user_id: 'bob', stream: false } });
      expect(noted.body).toMatchObject({ status: 'COMPLETED', user_id: 'alice' });
      expect((await ids(t.alice)).filter((m) => m.includes('gliders'))).toEqual(['Alice flies gliders']);
      await call(rt.url, 'POST', '/agents/assistant/runs', { token: t.alice, body: { message: 'Any weekend ideas?', stream: false } });
      expect(systemOf('Any weekend ideas?')).toContain('Alice flies gliders');
      await call(rt.url, 'POST', '/agents/assistant/runs', { token: t.bob, body: { message: 'Any ideas for me?', user_id: 'alice', stream: false } });
      expect(systemOf('Any ideas for me?')).not.toContain('gliders');
      const bob = await mcpClient(rt.url, t.bob);
      await bob.callTool({ name: 'run_agent', arguments: { agent_id: 'assistant', message: 'Ideas over MCP?', user_id: 'alice' } });
      expect(systemOf('Ideas over MCP?')).not.toContain('gliders');
      await bob.close();
      const alice = await mcpClient(rt.url, t.alice);
      await alice.callTool({ name: 'run_agent', arguments: { agent_id: 'assistant', message: 'My ideas over MCP?' } });
      expect(systemOf('My ideas over MCP?')).toContain('Alice flies gliders');
      await alice.close();
    });
  });
}
