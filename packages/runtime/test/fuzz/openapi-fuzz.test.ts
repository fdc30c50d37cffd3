/**
 * Every route and method of /openapi.json (plus the raw routes: docs assets, /mcp) gets
 * generated bad input on SQLite and PostgreSQL. Nothing may answer 5xx or drop the connection;
 * every REST error is the JSON envelope with `detail` and `error_code` (JSON-RPC errors on
 * /mcp); the server stays healthy with bounded memory. Fixed seed and count in CI; set
 * FUZZ_RUNS (requests per operation) and FUZZ_SEED for a longer or different run.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Knowledge } from '../../src/knowledge/knowledge.js';
import { PostgresVectorStore } from '../../src/knowledge/vector-stores/postgres/store.js';
import { SqliteVectorStore } from '../../src/knowledge/vector-stores/sqlite/store.js';
import { OpenAIChatModel } from '../../src/providers/openai/chat.js';
import type { Db } from '../../src/storage/db.js';
import { testComponents } from '../support/components.js';
import { testDatabaseKinds } from '../support/databases.js';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm.js';
import { startRuntime, type StartedRuntime } from '../support/runtime.js';
import { badRequestsFor, badString, deepJson, operations, type BadRequest } from './bad-requests.js';
import { sendAll, summary } from './send.js';

type Json = Record<string, any>;

const KEY = 'fuzz-security-key-0123456789';
const RUNS = Number(process.env.FUZZ_RUNS ?? 30);
const SEED = Number(process.env.FUZZ_SEED ?? 20261124);

for (const kind of testDatabaseKinds) {
  describe.skipIf(!kind.available)(`fuzzing every route on ${kind.kind}`, () => {
    let fake: FakeLlm;
    let rt: StartedRuntime;
    let dir: string;
    let storeDb: Db | undefined;
    let doc: Json;
    const auth = `Bearer ${KEY}`;

    beforeAll(async () => {
      fake = await startFakeLlm();
      dir = mkdtempSync(join(tmpdir(), 'svc-fuzz-'));
      const model = new OpenAIChatModel({ model: 'fake-model', baseURL: `${fake.url}/v1`, maxRetries: 0 });
      const { agents, teams, workflows } = testComponents(model);
      const database = kind.kind === 'postgres' ? await kind.create() : undefined;
      storeDb = database?.open();
      const store = storeDb ? new PostgresVectorStore({ db: storeDb, table: 'fuzz_docs' }) : new SqliteVectorStore({ path: join(dir, 'k.db'), table: 'fuzz_docs' });
      const knowledge = new Knowledge({ id: 'docs', store });
      rt = await startRuntime(kind, { agents, teams, workflows, knowledge: [knowledge], mcp_server: true, env: { OS_SECURITY_KEY: KEY, AUTH_FAILURE_LIMIT: '1000000' } });
      doc = (await (await fetch(`${rt.url}/openapi.json`)).json()) as Json;
    });
    afterAll(async () => {
      await rt?.stop();
      await storeDb?.close();
      await fake?.close();
      rmSync(dir, { recursive: true, force: true });
    });

    it(`${RUNS} generated bad requests per operation: no 5xx, the JSON envelope on every error`, async () => {
      const requests = operations(doc).flatMap((op, i) => fc.sample(badRequestsFor(doc, op, auth), { seed: SEED + i, numRuns: RUNS }));
      expect(requests.length).toBeGreaterThan(40 * RUNS);
      // The budget routes are among them (admin CRUD and the caller's usage).
      const paths = new Set(operations(doc).map((op) => `${op.method.toUpperCase()} ${op.path}`));
      for (const route of ['GET /budgets', 'POST /budgets', 'GET /budgets/{budget_id}', 'PUT /budgets/{budget_id}', 'DELETE /budgets/{budget_id}', 'GET /usage']) expect(paths).toContain(route);
      const findings = await sendAll(rt.url, requests);
      expect(summary(findings)).toEqual([]);
    }, 300_000);

    it('fixed hard cases: docs asset names, oversized bodies, headers and URLs, bad MCP messages', async () => {
      const requests: BadRequest[] = [];
      const add = (method: string, path: string, headers: Record<string, string>, body: string | undefined, label: string) =>
        requests.push({ method, path, headers, ...(body !== undefined ? { body } : {}), label });
      for (const name of ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf', '..%2F..%2Fpackage.json', '%00', 'x'.repeat(5000)]) {
        add('GET', `/docs/assets/${name}`, {}, undefined, `docs asset ${name.slice(0, 20)}`);
      }
      const huge = JSON.stringify({ message: 'x'.repeat(11 * 1024 * 1024) });
      for (const op of operations(doc).filter((o) => o.jsonBody)) add(op.method, op.path.replace(/\{[^}]+\}/g, 'x'), { authorization: auth, 'content-type': 'application/json' }, huge, 'an 11 MB body');
      const deepMetadata = `{"text_content":"hello","metadata":${deepJson(10_000, 'object')}}`;
      add('POST', '/knowledge/content', { authorization: auth, 'content-type': 'application/json' }, deepMetadata, 'knowledge metadata nested 10,000 deep');
      add('PATCH', '/knowledge/content/x', { authorization: auth, 'content-type': 'application/json' }, `{"metadata":${deepJson(10_000, 'object')}}`, 'metadata patch nested 10,000 deep');
      add('POST', '/knowledge/search', { authorization: auth, 'content-type': 'application/json' }, `{"query":"q","filters":${deepJson(10_000, 'object')}}`, 'search filters nested 10,000 deep');
      add('GET', `/knowledge/content?knowledge_id=${'k'.repeat(9_000)}`, { authorization: auth }, undefined, 'a 9 KB knowledge_id');
      const json = { authorization: auth, 'content-type': 'application/json' };
      add('POST', '/memories', json, JSON.stringify({ memory: 'm', user_id: 'u', topics: Array(10_000).fill('t') }), 'a memory with 10,000 topics');
      add('POST', '/memories', json, `{"memory":"m","user_id":"u","topics":${deepJson(10_000, 'array')}}`, 'memory topics nested 10,000 deep');
      add('POST', '/memories', json, JSON.stringify({ memory: 'nul \u0000 inside', user_id: 'u\u0000' }), 'a memory with NUL characters');
      add('GET', `/memories?topic=${encodeURIComponent('%_|\\')}&text=${encodeURIComponent('%_\\')}`, { authorization: auth }, undefined, 'memory filters of LIKE metacharacters');
      add('PATCH', '/memories/x', json, JSON.stringify({ version: 1e300 }), 'a memory version of 1e300');
      add('GET', '/config', { authorization: `Bearer ${'z'.repeat(100_000)}` }, undefined, 'a 100 KB bearer token');
      add('GET', `/agents/${'a'.repeat(40_000)}`, { authorization: auth }, undefined, 'a 40 KB URL');
      add('GET', '/config', { 'x-filler': 'f'.repeat(20_000), authorization: auth }, undefined, 'a 20 KB header');
      const mcp = { authorization: auth, 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
      for (const body of ['{', '[]', '{}', 'null', '{"jsonrpc":"2.0"}', '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"run_agent","arguments":{"agent_id":"\\u0000","message":"x"}}}', '[{"jsonrpc":"1.0"}]']) {
        add('POST', '/mcp', mcp, body, `mcp ${body.slice(0, 30)}`);
      }
      add('GET', '/mcp', { authorization: auth }, undefined, 'mcp GET');
      add('PUT', '/mcp', mcp, '{}', 'mcp PUT');
      for (const s of fc.sample(badString, { seed: SEED, numRuns: 20 })) {
        add('POST', '/mcp', mcp, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_session_runs', arguments: { session_id: s } } }), 'mcp tool argument');
        add('POST', '/mcp', mcp, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'add_memory', arguments: { memory: s, user_id: s, topics: [s] } } }), 'mcp memory argument');
      }
      const findings = await sendAll(rt.url, requests);
      expect(summary(findings)).toEqual([]);
    }, 300_000);

    it('is still healthy afterwards, with bounded memory', async () => {
      expect((await fetch(`${rt.url}/health`)).status).toBe(200);
      expect((await fetch(`${rt.url}/config`, { headers: { authorization: auth } })).status).toBe(200);
      expect(process.memoryUsage().rss).toBeLessThan(2 * 1024 ** 3);
    });
  });
}
