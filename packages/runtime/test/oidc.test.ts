/**
 * Tokens from a real OpenID provider: the runtime verifies the provider's RS256 access tokens
 * against the JWKS the provider publishes (saved to a file, as JWT_JWKS_FILE expects), reads
 * the standard space-separated `scope` claim, and checks the audience.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testComponents } from './support/components.js';
import { testDatabaseKinds } from './support/databases.js';
import { call } from './support/http.js';
import { startOidcProvider, type OidcServer } from './support/oidc.js';
import { startRuntime, type StartedRuntime } from './support/runtime.js';

const AUDIENCE = 'urn:svc:runtime';

let oidc: OidcServer;
let jwksFile: string;

beforeAll(async () => {
  oidc = await startOidcProvider({ audience: AUDIENCE, scopes: ['config:read', 'agents:read', 'agents:writer:run'] });
  jwksFile = join(mkdtempSync(join(tmpdir(), 'svc-oidc-')), 'jwks.json');
  writeFileSync(jwksFile, JSON.stringify(await oidc.jwks()));
});
afterAll(async () => {
  await oidc?.close();
});

for (const kind of testDatabaseKinds) {
  describe.skipIf(!kind.available)(`tokens from an OpenID provider on ${kind.kind}`, () => {
    let rt: StartedRuntime;
    beforeAll(async () => {
      const c = testComponents(undefined);
      rt = await startRuntime(kind, {
        agents: c.agents,
        authorization: true,
        authorization_config: { audience: AUDIENCE },
        mcp_server: { oauth: { authorization_servers: [oidc.issuer] } },
        env: { JWT_JWKS_FILE: jwksFile },
      });
    });
    afterAll(async () => {
      await rt?.stop();
    });

    it('accepts the access token and enforces the scopes it was granted', async () => {
      const token = await oidc.token('config:read agents:read');
      expect(token.split('.')).toHaveLength(3);
      expect((await call(rt.url, 'GET', '/config', { token })).status).toBe(200);
      expect((await call(rt.url, 'GET', '/agents', { token })).body).toHaveLength(2);
      const denied = await call(rt.url, 'GET', '/sessions', { token });
      expect(denied).toMatchObject({ status: 403, body: { detail: 'Insufficient permissions. Required scope(s): sessions:read' } });
      const narrower = await oidc.token('agents:read');
      expect((await call(rt.url, 'GET', '/config', { token: narrower })).status).toBe(403);
    });

    it('rejects a tampered token', async () => {
      const token = await oidc.token('config:read');
      const [header, payload, signature] = token.split('.');
      const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString());
      const forged = `${header}.${Buffer.from(JSON.stringify({ ...claims, scope: 'agent_os:admin' })).toString('base64url')}.${signature}`;
      expect((await call(rt.url, 'GET', '/sessions', { token: forged })).status).toBe(401);
    });

    it('lets an MCP client use the provider token, advertising the provider in the challenge metadata', async () => {
      const meta = await call(rt.url, 'GET', '/.well-known/oauth-protected-resource/mcp');
      expect(meta.body.authorization_servers).toEqual([oidc.issuer]);
      const token = await oidc.token('config:read agents:read');
      const client = new Client({ name: 'oidc-test', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(`${rt.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
      try {
        const config = (await client.callTool({ name: 'get_agentos_config', arguments: {} })).structuredContent as Record<string, any>;
        expect(config.agents.map((a: any) => a.id)).toEqual(['weather', 'writer']);
        const run = await client.callTool({ name: 'run_agent', arguments: { agent_id: 'writer', message: 'x' } });
        expect(run.isError).toBe(true);
        expect((run.content as any[])[0].text).toBe('Insufficient permissions. Required scope(s): agents:writer:run');
      } finally {
        await client.close();
      }
    });
  });
}
