/**
 * Knowledge under tenancy (issue 25, points 1-3 of the second pass), end to end on SQLite and
 * PostgreSQL (chunks in a SQLite file, or in PostgreSQL with HNSW, beside the runtime's own
 * database): the same `sub` (alice) in two tenants never finds the other's chunks through
 * `/knowledge/search` (keyword, vector, hybrid; `limit` exact), its filter keys, `/knowledge/config`,
 * an agent's search_knowledge_base tool or a workflow step; evaluations are the tenant's; both
 * tenants can upload the same bytes under the same name. A tenant admin manages its tenant only:
 * runtime-wide operations (a reindex) are refused (403), budgets are its tenant's, usage its
 * members'. `GET /auth/whoami` names the tenant.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent } from '../src/agent/agent.js';
import { Knowledge } from '../src/knowledge/knowledge.js';
import { PostgresVectorStore } from '../src/knowledge/vector-stores/postgres/store.js';
import { SqliteVectorStore } from '../src/knowledge/vector-stores/sqlite/store.js';
import type { VectorStore } from '../src/knowledge/vector-stores/vector-store.js';
import { OpenAIEmbedder } from '../src/providers/openai/embeddings.js';
import { OpenAIChatModel } from '../src/providers/openai/chat.js';
import { step } from '../src/workflow/steps.js';
import { Workflow } from '../src/workflow/workflow.js';
import { testDatabaseKinds } from './support/databases.js';
import { startFakeLlm, type FakeLlm } from './support/fake-llm.js';
import { call } from './support/http.js';
import { mcpAs, token, USER_SCOPES } from './support/isolation.js';
import { signingKey, type SigningKey } from './support/jwt.js';
import { startRuntime, type StartedRuntime } from './support/runtime.js';

type Json = Record<string, any>;

const budget = (id: string, scope: string, subject: string | null) => ({ id, scope, subject, metric: 'runs', window: 'day', limit: 100 });

const SAME_TEXT = 'The kettle policy: descale the kettle every week.';
const SCOPES = [...USER_SCOPES, 'workflows:run'];

let key: SigningKey;
let fake: FakeLlm;
let dir: string;

beforeAll(async () => {
  key = await signingKey('RS256', 'tenancy-knowledge');
  fake = await startFakeLlm();
  dir = mkdtempSync(join(tmpdir(), 'svc-tk-'));
});
afterAll(async () => {
  await fake?.close();
  rmSync(dir, { recursive: true, force: true });
});

for (const kind of testDatabaseKinds) {
  describe.runIf(kind.available)(`knowledge under tenancy on ${kind.kind}`, () => {
    let rt: StartedRuntime;
    const cleanups: (() => Promise<void>)[] = [];
    const bearer: Record<string, string> = {};
    const ids: Record<string, string> = {};

    /** Uploads text as this caller and waits for it to complete; answers its id. */
    async function put(who: string, name: string, text: string, metadata?: Json): Promise<string> {
      const res = await call(rt.url, 'POST', '/knowledge/content', { token: bearer[who], body: { name, text_content: text, ...(metadata ? { metadata: JSON.stringify(metadata) } : {}) } });
      expect(res.status, JSON.stringify(res.body)).toBe(202);
      for (let i = 0; i < 400; i++) {
        const status = await call(rt.url, 'GET', `/knowledge/content/${res.body.id}/status`, { token: bearer[who] });
        if (status.body.status === 'completed') return res.body.id as string;
        expect(status.body.status, JSON.stringify(status.body)).toBe('processing');
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      throw new Error(`${name} is still processing`);
    }
    const whoami = async (name: string): Promise<Json> => (await call(rt.url, 'GET', '/auth/whoami', { token: bearer[name] })).body as Json;
    const search = async (who: string, body: Json): Promise<string[]> => {
      const res = await call(rt.url, 'POST', '/knowledge/search', { token: bearer[who], body });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res.body.data.map((h: Json) => h.content_id as string);
    };

    beforeAll(async () => {
      const model = new OpenAIChatModel({ model: 'fake-model', baseURL: `${fake.url}/v1`, maxRetries: 0 });
      const embedder = new OpenAIEmbedder({ apiKey: 'sk-fake', baseURL: `${fake.url}/v1`, model: 'fake-embed', maxRetries: 0 });
      const storeDatabase = kind.kind === 'postgres' ? await kind.create() : undefined;
      const storeDb = storeDatabase?.open();
      const store: VectorStore = storeDb ? new PostgresVectorStore({ db: storeDb, table: 'tk', hnsw: {} }) : new SqliteVectorStore({ path: join(dir, `${kind.kind}.db`), table: 'tk' });
      cleanups.push(async () => {
        await store.close();
        await storeDb?.close();
        await storeDatabase?.cleanup();
      });
      const docs = new Knowledge({ id: 'docs', store, embedder });
      const helper = new Agent({ id: 'helper', model, instructions: 'Search the docs before answering.', knowledge: docs });
      // A function step searches as the run's user and tenant by passing the scope it is given.
      const lookup = new Workflow({
        id: 'lookup',
        steps: [
          step('find', async (input) => {
            const hits = await docs.search('kettle', {
              searchType: 'keyword',
              limit: 50,
              ...(input.scopedUserId !== undefined ? { userId: input.scopedUserId } : {}),
              ...(input.scopedTenantId !== undefined ? { tenantId: input.scopedTenantId } : {}),
            });
            return [...new Set(hits.map((h) => h.content_id))].sort().join(',');
          }),
        ],
      });
      rt = await startRuntime(kind, {
        agents: [helper],
        workflows: [lookup],
        knowledge: [docs],
        mcp_server: true,
        authorization: true,
        authorization_config: { verification_keys: [key.publicPem], tenant_claim: 'org_id' },
      });
      cleanups.unshift(() => rt.stop());
      bearer.aliceA = await token(key, { sub: 'alice', org_id: 'acme', scopes: SCOPES });
      bearer.aliceB = await token(key, { sub: 'alice', org_id: 'globex', scopes: SCOPES });
      bearer.bobA = await token(key, { sub: 'bob', org_id: 'acme', scopes: SCOPES });
      bearer.adminA = await token(key, { sub: 'ops', org_id: 'acme', scopes: ['tenant:admin'] });
      bearer.adminB = await token(key, { sub: 'ops', org_id: 'globex', scopes: ['tenant:admin'] });
      bearer.root = await token(key, { sub: 'root', scopes: ['agent_os:admin'] });
      // The same bytes under the same name in both tenants: two contents, no 409.
      ids.sameA = await put('aliceA', 'policy', SAME_TEXT);
      ids.sameB = await put('aliceB', 'policy', SAME_TEXT);
      for (let i = 1; i <= 3; i++) ids[`acme${i}`] = await put('aliceA', `acme-${i}`, `Acme kettle note ${i}: the acme kettle is blue.`);
      ids.globex1 = await put('aliceB', 'globex-1', 'Globex kettle note: the globex kettle is red.', { project: 'orion' });
      ids.bob1 = await put('bobA', 'bob-1', "Bob's kettle note: bob's kettle is green.");
    });
    afterAll(async () => {
      for (const cleanup of cleanups) await cleanup();
    });

    it('two tenants can upload the same bytes under the same name: two contents, each its own, neither a version of the other', async () => {
      expect(ids.sameA).not.toBe(ids.sameB);
      // alice of globex uploading "policy" after alice of acme did replaced nothing of acme's.
      expect((await call(rt.url, 'GET', `/knowledge/content/${ids.sameA}`, { token: bearer.aliceA })).body.status).toBe('completed');
      expect((await call(rt.url, 'GET', `/knowledge/content/${ids.sameB}`, { token: bearer.aliceB })).body.status).toBe('completed');
      expect((await call(rt.url, 'GET', `/knowledge/content/${ids.sameA}`, { token: bearer.aliceB })).status).toBe(404);
      expect((await call(rt.url, 'GET', `/knowledge/content/${ids.sameB}`, { token: bearer.aliceA })).status).toBe(404);
      // Uploading it again in the same tenant is the same content, kept as it is (200), not a third.
      const again = await call(rt.url, 'POST', '/knowledge/content', { token: bearer.aliceA, body: { name: 'policy', text_content: SAME_TEXT } });
      expect(again.status, JSON.stringify(again.body)).toBe(200);
      expect(again.body.id).toBe(ids.sameA);
    });

    it('/knowledge/search finds only the caller’s tenant’s chunks, with every search type, and `limit` stays exact', async () => {
      const acme = [ids.sameA, ids.acme1, ids.acme2, ids.acme3].sort();
      const globex = [ids.sameB, ids.globex1].sort();
      for (const searchType of ['keyword', 'vector', 'hybrid']) {
        expect([...new Set(await search('aliceA', { query: 'kettle', search_type: searchType, max_results: 50 }))].sort(), searchType).toEqual(acme);
        expect([...new Set(await search('aliceB', { query: 'kettle', search_type: searchType, max_results: 50 }))].sort(), searchType).toEqual(globex);
        // Five acme contents are visible to its admin (bob's included); a limit of 3 gives 3, all acme's.
        const page = await search('adminA', { query: 'kettle', search_type: searchType, max_results: 3 });
        expect(page, searchType).toHaveLength(3);
        for (const id of page) expect([...acme, ids.bob1], searchType).toContain(id);
      }
      // A global admin finds every tenant's.
      expect([...new Set(await search('root', { query: 'kettle', search_type: 'keyword', max_results: 50 }))].sort()).toEqual([...acme, ...globex, ids.bob1].sort());
    });

    it('filter keys are the tenant’s: another tenant’s key is unknown (422) and not listed in /knowledge/config', async () => {
      expect(await search('aliceB', { query: 'kettle', search_type: 'keyword', filters: { project: 'orion' } })).toEqual([ids.globex1]);
      const refused = await call(rt.url, 'POST', '/knowledge/search', { token: bearer.aliceA, body: { query: 'kettle', search_type: 'keyword', filters: { project: 'orion' } } });
      expect(refused.status).toBe(422);
      // It names the key asked for, and lists as valid only keys of the caller's tenant's content.
      expect(refused.body.detail).toMatch(/^Unknown filter key "project"; valid keys: /);
      expect(refused.body.detail.split('valid keys: ')[1]).not.toMatch(/project/);
      const configA = await call(rt.url, 'GET', '/knowledge/config', { token: bearer.aliceA });
      expect(configA.body.filters).not.toContain('project');
      expect((await call(rt.url, 'GET', '/knowledge/config', { token: bearer.aliceB })).body.filters).toContain('project');
    });

    it("an agent's knowledge search (started over REST or MCP) and a workflow step in a run search as the run's tenant", async () => {
      fake.setBehaviour({ toolArguments: { search_knowledge_base: { query: 'kettle', limit: 20 } } });
      try {
        const run = await call(rt.url, 'POST', '/agents/helper/runs', { token: bearer.aliceA, body: { message: 'What do the docs say?', stream: false } });
        expect(run.status, JSON.stringify(run.body)).toBe(200);
        const seen = fake.requests.at(-1)!.conversation.toolResults.join('\n');
        expect(seen).toContain('acme kettle is blue');
        expect(seen).not.toContain('globex');
        expect(seen).not.toContain("bob's kettle");
      } finally {
        fake.setBehaviour({ toolArguments: {} });
      }
      // Started over MCP (run_agent), the run is the caller's tenant's too.
      fake.setBehaviour({ toolArguments: { search_knowledge_base: { query: 'kettle', limit: 20 } } });
      const client = await mcpAs(rt.url, bearer.aliceB!);
      try {
        const result = await client.callTool({ name: 'run_agent', arguments: { agent_id: 'helper', message: 'What do the docs say?' } });
        expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
        const seen = fake.requests.at(-1)!.conversation.toolResults.join('\n');
        expect(seen).toContain('globex kettle is red');
        expect(seen).not.toContain('acme');
      } finally {
        await client.close();
        fake.setBehaviour({ toolArguments: {} });
      }
      const run = await call(rt.url, 'POST', '/workflows/lookup/runs', { token: bearer.aliceB, body: { message: 'look', stream: false } });
      expect(run.status, JSON.stringify(run.body)).toBe(200);
      expect((run.body.content as string).split(',')).toEqual([ids.sameB, ids.globex1].sort());
    });

    it('evaluations are the tenant’s: listed and read within it, and judged only against its contents', async () => {
      const started = await call(rt.url, 'POST', '/knowledge/evals', { token: bearer.aliceA, body: { name: 'acme eval', queries: [{ query: 'acme kettle', relevant: [ids.acme1!] }] } });
      expect(started.status, JSON.stringify(started.body)).toBe(202);
      const id = started.body.id as string;
      expect((await call(rt.url, 'GET', `/knowledge/evals/${id}`, { token: bearer.aliceA })).status).toBe(200);
      expect((await call(rt.url, 'GET', `/knowledge/evals/${id}`, { token: bearer.aliceB })).status).toBe(404);
      expect((await call(rt.url, 'GET', `/knowledge/evals/${id}`, { token: bearer.adminB })).status).toBe(404);
      expect((await call(rt.url, 'GET', '/knowledge/evals', { token: bearer.aliceB })).body.data).toEqual([]);
      expect((await call(rt.url, 'GET', '/knowledge/evals', { token: bearer.adminA })).body.data.map((e: Json) => e.id)).toEqual([id]);
      expect((await call(rt.url, 'GET', '/knowledge/evals', { token: bearer.root })).body.data.map((e: Json) => e.id)).toEqual([id]);
      // Judging another tenant's content, by id or by name, matches nothing.
      const foreign = await call(rt.url, 'POST', '/knowledge/evals', { token: bearer.aliceB, body: { queries: [{ query: 'acme kettle', relevant: [ids.acme1!] }] } });
      expect(foreign.status).toBe(422);
      const byName = await call(rt.url, 'POST', '/knowledge/evals', { token: bearer.aliceB, body: { queries: [{ query: 'acme kettle', relevant: ['acme-1'] }] } });
      expect(byName.status).toBe(422);
    });

    it('a tenant admin is refused runtime-wide operations (403, saying why); a global admin is not', async () => {
      for (const who of ['adminA', 'aliceA']) {
        const res = await call(rt.url, 'POST', '/knowledge/reindex', { token: bearer[who], body: {} });
        expect(res.status, who).toBe(403);
        expect(res.body.detail, who).toMatch(/runtime-wide operation.*global admin/);
      }
      const root = await call(rt.url, 'POST', '/knowledge/reindex', { token: bearer.root, body: {} });
      expect(root.status, JSON.stringify(root.body)).not.toBe(403);
      expect(root.status).toBeLessThan(500);
    });

    it("a tenant admin manages its own tenant's budgets only, and reads its members' usage, not another tenant's", async () => {
      const mine = await call(rt.url, 'POST', '/budgets', { token: bearer.adminA, body: budget('acme-runs', 'tenant', 'acme') });
      expect(mine.status, JSON.stringify(mine.body)).toBe(201);
      for (const [body, why] of [
        [budget('globex-runs', 'tenant', 'globex'), 'another tenant'],
        [budget('every-tenant', 'tenant', null), 'every tenant'],
        [budget('alice-runs', 'principal', 'alice'), 'a principal'],
        [budget('helper-runs', 'agent', 'helper'), 'an agent'],
      ] as const) {
        const res = await call(rt.url, 'POST', '/budgets', { token: bearer.adminA, body });
        expect(res.status, why).toBe(403);
        expect(res.body.detail, why).toMatch(/global admin/);
      }
      const theirs = await call(rt.url, 'POST', '/budgets', { token: bearer.root, body: budget('globex-runs', 'tenant', 'globex') });
      expect(theirs.status).toBe(201);
      expect((await call(rt.url, 'POST', '/budgets', { token: bearer.root, body: budget('alice-runs', 'principal', 'alice') })).status).toBe(201);
      // Listed and read within the tenant; another tenant's budget is not found, nor changed.
      expect((await call(rt.url, 'GET', '/budgets', { token: bearer.adminA })).body.data.map((b: Json) => b.id)).toEqual(['acme-runs']);
      expect((await call(rt.url, 'GET', '/budgets', { token: bearer.root })).body.data.map((b: Json) => b.id).sort()).toEqual(['acme-runs', 'alice-runs', 'globex-runs']);
      expect((await call(rt.url, 'GET', '/budgets/globex-runs', { token: bearer.adminA })).status).toBe(404);
      expect((await call(rt.url, 'PUT', '/budgets/globex-runs', { token: bearer.adminA, body: { scope: 'tenant', subject: 'globex', metric: 'runs', window: 'day', limit: 1 } })).status).toBe(404);
      expect((await call(rt.url, 'DELETE', '/budgets/globex-runs', { token: bearer.adminA })).status).toBe(404);
      expect((await call(rt.url, 'DELETE', '/budgets/alice-runs', { token: bearer.adminA })).status).toBe(404);
      // Its own: changed, but not moved to another tenant.
      const moved = await call(rt.url, 'PUT', '/budgets/acme-runs', { token: bearer.adminA, body: { scope: 'tenant', subject: 'globex', metric: 'runs', window: 'day', limit: 5 } });
      expect(moved.status).toBe(403);
      const raised = await call(rt.url, 'PUT', '/budgets/acme-runs', { token: bearer.adminA, body: { scope: 'tenant', subject: 'acme', metric: 'runs', window: 'day', limit: 200 } });
      expect(raised.status, JSON.stringify(raised.body)).toBe(200);
      expect(raised.body.limit).toBe(200);
      // A user is no budget manager at all.
      expect((await call(rt.url, 'GET', '/budgets', { token: bearer.aliceA })).status).toBe(403);
      // Usage: its tenant and its members (alice has sessions in acme), never another tenant's.
      const tenantUsage = await call(rt.url, 'GET', '/usage?tenant=acme', { token: bearer.adminA });
      expect(tenantUsage.status).toBe(200);
      expect(tenantUsage.body.budgets.map((l: Json) => l.budget.id)).toContain('acme-runs');
      expect((await call(rt.url, 'GET', '/usage?principal=alice', { token: bearer.adminA })).status).toBe(200);
      const other = await call(rt.url, 'GET', '/usage?tenant=globex', { token: bearer.adminA });
      expect(other.status).toBe(403);
      expect(other.body.detail).toMatch(/another tenant/);
      const stranger = await call(rt.url, 'GET', '/usage?principal=mallory', { token: bearer.adminA });
      expect(stranger.status).toBe(403);
      expect((await call(rt.url, 'GET', '/usage?tenant=globex', { token: bearer.root })).status).toBe(200);
      for (const id of ['acme-runs', 'globex-runs', 'alice-runs']) expect((await call(rt.url, 'DELETE', `/budgets/${id}`, { token: bearer.root })).status).toBe(204);
    });

    it('GET /auth/whoami names the tenant and whether the caller administers it', async () => {
      expect(await whoami('aliceA')).toMatchObject({ user_id: 'alice', tenant: 'acme', tenant_admin: false });
      expect(await whoami('aliceB')).toMatchObject({ user_id: 'alice', tenant: 'globex', tenant_admin: false });
      expect(await whoami('adminA')).toMatchObject({ user_id: 'ops', tenant: 'acme', tenant_admin: true });
      expect(await whoami('root')).toMatchObject({ user_id: 'root', tenant: null, tenant_admin: false });
    });
  });
}
