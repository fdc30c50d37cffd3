/**
 * An OAuth-protected MCP server reached with client credentials: the second runtime's `/mcp`
 * requires OAuth (a real OpenID provider, oidc-provider, issues its JWT access tokens), and the
 * first runtime's agent signs in through the SDK's client-credentials provider, discovering the
 * authorization server from the 401. Without credentials, the model is told the server demands
 * a sign-in the runtime cannot do.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent } from '../src/agent/agent.js';
import { mcpServer } from '../src/mcp-client/mcp-server.js';
import { OpenAIChatModel } from '../src/providers/openai/chat.js';
import { testComponents } from './support/components.js';
import { sqliteTestDatabase } from './support/databases.js';
import { startFakeLlm, type FakeLlm } from './support/fake-llm.js';
import { call } from './support/http.js';
import { CLIENT_ID, CLIENT_SECRET, startOidcProvider, type OidcServer } from './support/oidc.js';
import { startRuntime, type StartedRuntime } from './support/runtime.js';

type Json = Record<string, any>;
const AUDIENCE = 'https://runtime-b.example/mcp';

describe('an OAuth-protected MCP server', () => {
  let fake: FakeLlm;
  let oidc: OidcServer;
  let folder: string;
  let protectedRuntime: StartedRuntime;
  let caller: StartedRuntime;

  beforeAll(async () => {
    fake = await startFakeLlm();
    const model = new OpenAIChatModel({ model: 'fake-model', baseURL: `${fake.url}/v1`, maxRetries: 0 });
    oidc = await startOidcProvider({ audience: AUDIENCE, scopes: ['config:read', 'agents:read', 'agents:run'] });
    folder = mkdtempSync(join(tmpdir(), 'mcp-oauth-'));
    writeFileSync(join(folder, 'jwks.json'), JSON.stringify(await oidc.jwks()));
    protectedRuntime = await startRuntime(sqliteTestDatabase, {
      agents: testComponents(model).agents,
      authorization: true,
      authorization_config: { audience: AUDIENCE },
      mcp_server: { oauth: { authorization_servers: [oidc.issuer] } },
      env: { JWT_JWKS_FILE: join(folder, 'jwks.json') },
    });
    const common = { url: `${protectedRuntime.url}/mcp`, allowPrivateHosts: ['127.0.0.1'], include: ['run_agent'] };
    const signedIn = mcpServer({
      id: 'protected',
      ...common,
      oauth: { clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, scope: 'agents:read agents:run', expectedIssuer: oidc.issuer },
    });
    const anonymous = mcpServer({ id: 'protected-anonymous', ...common });
    caller = await startRuntime(sqliteTestDatabase, {
      agents: [new Agent({ id: 'with-credentials', tools: [signedIn], model }), new Agent({ id: 'without', tools: [anonymous], model })],
    });
  }, 60_000);
  afterAll(async () => {
    await caller?.stop();
    await protectedRuntime?.stop();
    await oidc?.close();
    await fake?.close();
    rmSync(folder, { recursive: true, force: true });
  });

  it('signs in with client credentials and calls the server’s tool', async () => {
    const before = fake.requests.length;
    fake.script(
      { kind: 'tool-call', name: 'run_agent', arguments: { agent_id: 'writer', message: 'Write it' } },
      { kind: 'text', text: 'Written remotely' },
      { kind: 'text', text: 'Done.' },
    );
    const run = await call(caller.url, 'POST', '/agents/with-credentials/runs', { body: { message: 'go', stream: false } });
    expect(run.body.status).toBe('COMPLETED');
    const answer = JSON.parse(fake.requests[before + 2]!.conversation.toolResults.at(-1)!) as Json;
    expect(answer).toMatchObject({ status: 'COMPLETED', content: 'Written remotely' });
  });

  it('tells why a server without credentials cannot be used, naming it', async () => {
    fake.script({ kind: 'text', text: 'No tools.' });
    const run = await call(caller.url, 'POST', '/agents/without/runs', { body: { message: 'go', stream: false } });
    expect(run.body.status).toBe('COMPLETED');
    const listed = (await call(caller.url, 'GET', '/mcp-servers')).body.data as Json[];
    expect(listed.find((s) => s.id === 'protected-anonymous')!.error).toMatch(/^MCP server "protected-anonymous" demands a sign-in the runtime cannot do/);
    expect(listed.find((s) => s.id === 'protected')).toMatchObject({ status: 'connected' });
    expect(listed.find((s) => s.id === 'protected')).not.toHaveProperty('error');
    expect(JSON.stringify(listed)).not.toContain(CLIENT_SECRET);
  });
});
