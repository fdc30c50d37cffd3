/**
 * Regression tests for each finding of the bad-input sweep, on SQLite and PostgreSQL: every one
 * used to be a 500, a reset connection, an empty body or an input echoed whole.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Knowledge } from '../src/knowledge/knowledge.js';
import { SqliteVectorStore } from '../src/knowledge/vector-stores/sqlite/store.js';
import { OpenAIChatModel } from '../src/providers/openai/chat.js';
import { testComponents } from './support/components.js';
import { testDatabaseKinds } from './support/databases.js';
import { startFakeLlm, type FakeLlm } from './support/fake-llm.js';
import { call } from './support/http.js';
import { startRuntime, type StartedRuntime } from './support/runtime.js';

type Json = Record<string, any>;

const KEY = 'hardening-security-key-0123456789';

/** A raw request on its own connection (fetch refuses some of what clients do send). */
function raw(url: string, headers: Record<string, string>): Promise<{ status: number; body: string; type: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { headers, agent: false }, (res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, type: String(res.headers['content-type'] ?? '') }));
    });
    req.on('error', reject);
    req.end();
  });
}

for (const kind of testDatabaseKinds) {
  describe.skipIf(!kind.available)(`bad input answered with clear 4xx on ${kind.kind}`, () => {
    let fake: FakeLlm;
    let rt: StartedRuntime;
    const auth = { token: KEY };

    beforeAll(async () => {
      fake = await startFakeLlm();
      const model = new OpenAIChatModel({ model: 'fake-model', baseURL: `${fake.url}/v1`, maxRetries: 0 });
      const { agents } = testComponents(model);
      const knowledge = new Knowledge({ id: 'docs', store: new SqliteVectorStore({ path: ':memory:', table: 'hard_docs' }) });
      rt = await startRuntime(kind, { agents, knowledge: [knowledge], mcp_server: true, env: { OS_SECURITY_KEY: KEY } });
    });
    afterAll(async () => {
      await rt?.stop();
      await fake?.close();
    });

    it('docs asset names of Object.prototype are 404, not 500', async () => {
      for (const name of ['constructor', '__proto__', 'toString', 'hasOwnProperty']) {
        const res = await call(rt.url, 'GET', `/docs/assets/${name}`);
        expect(res.status, name).toBe(404);
        expect(res.body).toEqual({ detail: 'Not Found', error_code: 'NOT_FOUND' });
      }
    });

    it('a NUL character anywhere is a 422 naming where, the same on both stores', async () => {
      const cases: [string, string, unknown, RegExp][] = [
        ['POST', '/agents/writer/runs', { message: 'hi\u0000there', stream: false }, /body\.message contains a NUL character/],
        ['POST', '/agents/writer/runs', { message: 'hi', session_id: 's\u0000', stream: false }, /body\.session_id contains a NUL/],
        ['GET', '/sessions/a%00b', undefined, /Path parameter session_id contains a NUL/],
        ['GET', '/sessions?component_id=a%00b', undefined, /Query parameter component_id contains a NUL/],
        ['POST', '/sessions/x/rename', { session_name: 'a\u0000' }, /body\.session_name contains a NUL/],
        ['DELETE', '/service-accounts/a%00b', undefined, /Path parameter service_account_id contains a NUL/],
        ['POST', '/knowledge/content', { text_content: 'x', metadata: { 'k\u0000': 1 } }, /a key contains a NUL/],
      ];
      for (const [method, path, body, message] of cases) {
        const res = await call(rt.url, method, path, { ...auth, ...(body !== undefined ? { body } : {}) });
        expect(res.status, `${method} ${path}`).toBe(422);
        expect(res.body).toMatchObject({ error_code: 'VALIDATION_ERROR', detail: expect.stringMatching(message) });
      }
    });

    it('text that is not valid Unicode is a 422 too', async () => {
      const res = await call(rt.url, 'POST', '/agents/writer/runs', { ...auth, body: { message: 'bad \ud800 text', stream: false } });
      expect(res.status).toBe(422);
      expect(res.body.detail).toMatch(/body\.message is not valid Unicode text/);
    });

    it('metadata nested 10,000 deep is a 422 with the limit, not a stack overflow', async () => {
      const deep = `${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}`;
      for (const [method, path] of [['POST', '/knowledge/content'], ['PATCH', '/knowledge/content/x']] as const) {
        const res = await fetch(`${rt.url}${path}`, {
          method,
          headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
          body: `{"text_content":"hello","metadata":${deep}}`,
        });
        expect(res.status, path).toBe(422);
        expect(((await res.json()) as Json).detail).toMatch(/nested deeper than 32 levels/);
      }
    });

    it('a huge id is refused with its limit, and no error echoes more than a short prefix', async () => {
      const longId = await call(rt.url, 'GET', `/sessions/${'s'.repeat(300)}`, auth);
      expect(longId.status).toBe(422);
      expect(longId.body.detail).toBe('Path parameter session_id is longer than 256 characters');
      const hugeQuery = await call(rt.url, 'GET', `/knowledge/content?knowledge_id=${'k'.repeat(9_000)}`, auth);
      expect(hugeQuery.status).toBe(404);
      expect(hugeQuery.body.detail.length).toBeLessThanOrEqual(301);
    });

    it('headers and URLs over the limit get the JSON envelope (431), not a reset or an empty body', async () => {
      const oversized: Record<string, string>[] = [{ authorization: `Bearer ${'z'.repeat(100_000)}` }, { 'x-filler': 'f'.repeat(20_000) }];
      for (const headers of oversized) {
        const res = await raw(`${rt.url}/config`, headers);
        expect(res.status).toBe(431);
        expect(res.type).toBe('application/json');
        expect(JSON.parse(res.body)).toMatchObject({ error_code: 'REQUEST_HEADER_FIELDS_TOO_LARGE' });
      }
      const longUrl = await raw(`${rt.url}/agents/${'a'.repeat(40_000)}`, { authorization: `Bearer ${KEY}` });
      expect(longUrl.status).toBe(431);
    });

    it('a malformed form body is a 400, not a 500', async () => {
      const res = await fetch(`${rt.url}/agents/writer/runs`, {
        method: 'POST',
        headers: { authorization: `Bearer ${KEY}`, 'content-type': 'multipart/form-data; boundary=x' },
        body: 'not multipart at all',
      });
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ error_code: 'BAD_REQUEST', detail: expect.stringContaining('form body could not be read') });
    });

    it('MCP tool arguments with a NUL are a tool error saying so, not an internal error', async () => {
      const client = new Client({ name: 'hardening', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(`${rt.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${KEY}` } } }));
      const result = await client.callTool({ name: 'get_session_runs', arguments: { session_id: 'a\u0000b' } });
      expect(result).toMatchObject({ isError: true, content: [{ text: 'Text values may not contain a NUL character' }] });
      await client.close();
    });
  });
}
