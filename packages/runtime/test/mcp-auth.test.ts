/**
 * MCP behind the auth layer: `/mcp` needs a credential, each tool is gated by the scopes of its
 * REST twin, config listings are filtered, and runs carry the caller's identity. Also the
 * OAuth-protected mode: the 401 challenge and the protected-resource metadata.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OpenAIChatModel } from '../src/providers/openai/chat.js';
import type { RuntimeOptions } from '../src/runtime-options.js';
import { testComponents } from './support/components.js';
import { testDatabaseKinds } from './support/databases.js';
import { startFakeLlm, type FakeLlm } from './support/fake-llm.js';
import { call } from './support/http.js';
import { sign, signingKey, type SigningKey } from './support/jwt.js';
import { startRuntime, type StartedRuntime } from './support/runtime.js';

type Json = Record<string, any>;

let rsa: SigningKey;
let fake: FakeLlm;
let model: OpenAIChatModel;

beforeAll(async () => {
  rsa = await signingKey('RS256', 'k1');
  fake = await startFakeLlm();
  model = new OpenAIChatModel({ model: 'fake-model', baseURL: `${fake.url}/v1`, maxRetries: 0 });
});
afterAll(async () => {
  await fake?.close();
});

function components(): RuntimeOptions {
  const c = testComponents(model);
  return { agents: c.agents, teams: c.teams, workflows: c.workflows };
}

const jwt = (scopes: string[], sub: string) => sign(rsa, { claims: { scopes, sub } });

async function connect(url: string, token: string): Promise<Client> {
  const client = new Client({ name: 'svc-auth-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  return client;
}

function errorText(result: Json): string | undefined {
  return result.isError ? (result.content as Json[])[0]!.text : undefined;
}

for (const kind of testDatabaseKinds) {
  describe.skipIf(!kind.available)(`MCP with JWT scopes on ${kind.kind}`, () => {
    let rt: StartedRuntime;
    const clients: Client[] = [];
    const open = async (token: string) => {
      const client = await connect(rt.url, token);
      clients.push(client);
      return client;
    };

    beforeAll(async () => {
      rt = await startRuntime(kind, { ...components(), mcp_server: true, authorization: true, authorization_config: { verification_keys: [rsa.publicPem] } });
    });
    afterAll(async () => {
      await Promise.all(clients.map((c) => c.close()));
      await rt?.stop();
    });

    it('refuses /mcp without a credential', async () => {
      const res = await call(rt.url, 'POST', '/mcp', { body: { jsonrpc: '2.0', id: 0, method: 'ping' } });
      expect(res).toMatchObject({ status: 401, body: { detail: 'Authorization header missing' } });
      expect((await call(rt.url, 'POST', '/mcp', { token: 'junk', body: { jsonrpc: '2.0', id: 0, method: 'ping' } })).status).toBe(401);
    });

    it('gates each tool by the scopes of its REST twin and runs as the token subject', async () => {
      const client = await open(await jwt(['agents:writer:run'], 'dora'));
      expect((await client.listTools()).tools).toHaveLength(13);
      expect(errorText(await client.callTool({ name: 'get_agentos_config', arguments: {} }))).toBe('Insufficient permissions. Required scope(s): config:read');
      expect(errorText(await client.callTool({ name: 'run_agent', arguments: { agent_id: 'weather', message: 'x' } }))).toBe(
        'Insufficient permissions. Required scope(s): agents:weather:run',
      );
      expect(errorText(await client.callTool({ name: 'run_team', arguments: { team_id: 'router', message: 'x' } }))).toMatch(/teams:router:run/);
      expect(errorText(await client.callTool({ name: 'get_sessions', arguments: {} }))).toMatch(/sessions:read/);
      expect(errorText(await client.callTool({ name: 'get_memories', arguments: {} }))).toMatch(/memories:read/);
      expect(errorText(await client.callTool({ name: 'add_memory', arguments: { memory: 'x' } }))).toMatch(/memories:write/);

      const ran = await client.callTool({ name: 'run_agent', arguments: { agent_id: 'writer', message: 'hello', user_id: 'mallory' } });
      expect(ran.isError).toBeFalsy();
      const { session_id } = ran.structuredContent as Json;
      // Read by an admin: under user isolation (the default) only dora and admins see dora's session.
      const session = await call(rt.url, 'GET', `/sessions/${session_id}`, { token: await jwt(['agent_os:admin'], 'auditor') });
      expect(session.body.user_id).toBe('dora');
    });

    it('filters get_agentos_config by per-resource read scopes', async () => {
      const client = await open(await jwt(['config:read', 'agents:weather:read', 'workflows:*:read'], 'erin'));
      const config = (await client.callTool({ name: 'get_agentos_config', arguments: {} })).structuredContent as Json;
      expect(config.agents.map((a: Json) => a.id)).toEqual(['weather']);
      expect(config.teams).toEqual([]);
      expect(config.workflows.map((w: Json) => w.id)).toEqual(['pipeline']);
      const admin = await open(await jwt(['agent_os:admin'], 'root'));
      const all = (await admin.callTool({ name: 'get_agentos_config', arguments: {} })).structuredContent as Json;
      expect(all.agents).toHaveLength(2);
    });

    it('accepts service-account tokens with their scopes', async () => {
      const minted = await call(rt.url, 'POST', '/service-accounts', { token: await jwt(['agent_os:admin'], 'root'), body: { name: 'mcp-client' } });
      const client = await open(minted.body.token);
      const config = await client.callTool({ name: 'get_agentos_config', arguments: {} });
      // Default tokens hold config:read but no per-agent read scopes.
      expect((config.structuredContent as Json).agents).toEqual([]);
      const ran = await client.callTool({ name: 'run_agent', arguments: { agent_id: 'writer', message: 'hi' } });
      expect(ran.isError).toBeFalsy();
      const sessions = (await client.callTool({ name: 'get_sessions', arguments: { session_type: 'agent' } })).structuredContent as Json;
      expect(sessions.data.map((s: Json) => s.user_id)).toEqual(['sa:mcp-client']);
    });
  });

  describe.skipIf(!kind.available)(`OAuth-protected MCP on ${kind.kind}`, () => {
    let rt: StartedRuntime;
    beforeAll(async () => {
      // No `authorization`: REST checks no JWT scopes here, but OAuth-protected MCP always does.
      rt = await startRuntime(kind, {
        ...components(),
        mcp_server: { oauth: { authorization_servers: ['https://login.example.com'] } },
        authorization_config: { verification_keys: [rsa.publicPem] },
      });
    });
    afterAll(async () => {
      await rt?.stop();
    });

    it('challenges unauthenticated clients towards the protected-resource metadata', async () => {
      const res = await call(rt.url, 'POST', '/mcp', { body: { jsonrpc: '2.0', id: 0, method: 'ping' } });
      expect(res.status).toBe(401);
      // No credential was sent, so nothing claims it was invalid (RFC 6750 §3.1).
      expect(res.body).toEqual({ error_description: 'Authorization header missing' });
      const challenge = res.headers.get('www-authenticate')!;
      expect(challenge).toMatch(/^Bearer realm="Runtime", resource_metadata=/);
      expect(challenge).not.toContain('error=');
      expect(challenge).toContain(`resource_metadata="${rt.url}/.well-known/oauth-protected-resource/mcp"`);
      const bad = await call(rt.url, 'POST', '/mcp', { token: 'bad', body: {} });
      expect(bad.body).toMatchObject({ error: 'invalid_token' });
      expect(bad.headers.get('www-authenticate')).toMatch(/^Bearer realm="Runtime", error="invalid_token", error_description="[^"]+", resource_metadata=/);
      // REST keeps its usual error body.
      expect((await call(rt.url, 'GET', '/config')).body).toEqual({ detail: 'Authorization header missing', error_code: 'UNAUTHENTICATED' });
    });

    it('serves the metadata publicly and reports oauth in /info', async () => {
      const meta = await call(rt.url, 'GET', '/.well-known/oauth-protected-resource/mcp');
      expect(meta).toMatchObject({
        status: 200,
        body: { resource: `${rt.url}/mcp`, authorization_servers: ['https://login.example.com'], bearer_methods_supported: ['header'] },
      });
      const info = (await call(rt.url, 'GET', '/info')).body;
      expect(info.mcp).toEqual({ enabled: true, path: '/mcp', oauth: { authorization_servers: ['https://login.example.com'], resource: null } });
      expect(info.auth_mode).toBe('jwt');
    });

    it('gates tools by scope even though REST RBAC is off', async () => {
      const client = await connect(rt.url, await jwt([], 'frank'));
      try {
        expect(errorText(await client.callTool({ name: 'get_agentos_config', arguments: {} }))).toMatch(/config:read/);
        const scoped = await connect(rt.url, await jwt(['config:read'], 'frank'));
        expect((await scoped.callTool({ name: 'get_agentos_config', arguments: {} })).isError).toBeFalsy();
        await scoped.close();
      } finally {
        await client.close();
      }
    });
  });

  describe.skipIf(!kind.available)(`MCP with the security key on ${kind.kind}`, () => {
    it('lets the key use every tool', async () => {
      const rt = await startRuntime(kind, { ...components(), mcp_server: true, env: { OS_SECURITY_KEY: 'mcp-key-0123456789' } });
      try {
        expect((await call(rt.url, 'POST', '/mcp', { body: {} })).body.detail).toBe('Authorization header required');
        const client = await connect(rt.url, 'mcp-key-0123456789');
        const config = (await client.callTool({ name: 'get_agentos_config', arguments: {} })).structuredContent as Json;
        expect(config.agents).toHaveLength(2);
        await client.close();
      } finally {
        await rt.stop();
      }
    });
  });
}
