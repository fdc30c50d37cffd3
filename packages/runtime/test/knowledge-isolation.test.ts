/**
 * User isolation for knowledge content, end to end on SQLite and PostgreSQL: two JWT users, an
 * admin and a service account against a runtime with `user_isolation` on and one with it off.
 * Content records and chunks carry their uploader; with isolation on each user lists, reads,
 * edits, deletes and searches (over HTTP and through an agent's search_knowledge_base tool)
 * only shared content and their own, another user's ids answer 404, shared content is the
 * admins' to change; with it off users see each other's content as before, while a service
 * account stays confined to its own as in the reference. With the security key (and
 * USER_ISOLATION=true) the key is unconfined, but a run it starts for a `user_id` searches as
 * that user; an admin's runs search everything.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent } from '../src/agent/agent.js';
import { ContentStore } from '../src/knowledge/content/content-store.js';
import { OpenAIEmbedder } from '../src/providers/openai/embeddings.js';
import { Knowledge } from '../src/knowledge/knowledge.js';
import { PostgresVectorStore } from '../src/knowledge/vector-stores/postgres/store.js';
import { SqliteVectorStore } from '../src/knowledge/vector-stores/sqlite/store.js';
import type { VectorStore } from '../src/knowledge/vector-stores/vector-store.js';
import { OpenAIChatModel } from '../src/providers/openai/chat.js';
import { step } from '../src/workflow/steps.js';
import { Workflow } from '../src/workflow/workflow.js';
import { testDatabaseKinds } from './support/databases.js';
import { startFakeLlm, type FakeLlm } from './support/fake-llm.js';
import { call, type Reply } from './support/http.js';
import { sign, signingKey, type SigningKey } from './support/jwt.js';
import { startRuntime, type StartedRuntime } from './support/runtime.js';

type Json = Record<string, any>;

const USER_SCOPES = ['knowledge:read', 'knowledge:write', 'knowledge:delete', 'agents:run', 'workflows:run'];
const SECURITY_KEY = 'isolation-test-security-key';
const SHARED_TEXT = 'Shared handbook: the office kettle is descaled every Friday.';

let key: SigningKey;
let fake: FakeLlm;
let dir: string;

beforeAll(async () => {
  key = await signingKey('RS256', 'iso');
  fake = await startFakeLlm();
  dir = mkdtempSync(join(tmpdir(), 'svc-kiso-'));
});
afterAll(async () => {
  await fake?.close();
  rmSync(dir, { recursive: true, force: true });
});

interface Setup {
  rt: StartedRuntime;
  docs: Knowledge;
  tokens: { alice: string; bob: string; admin: string; sa: string; noSub: string };
  /** The id of the shared record, made as content from before owners were recorded. */
  sharedId: string;
}

/** Uploads text and waits for it to be searchable; answers the record. */
async function put(s: Setup, token: string, name: string, text: string, extra: Json = {}): Promise<Json> {
  const res = await call(s.rt.url, 'POST', '/knowledge/content', { token, body: { name, text_content: text, ...extra } });
  expect(res.status, JSON.stringify(res.body)).toBe(202);
  for (let i = 0; i < 400; i++) {
    const status = await call(s.rt.url, 'GET', `/knowledge/content/${res.body.id}/status`, { token });
    expect(status.status).toBe(200);
    if (status.body.status === 'completed') return (await call(s.rt.url, 'GET', `/knowledge/content/${res.body.id}`, { token })).body;
    expect(status.body.status).toBe('processing');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`${name} is still processing`);
}

const listed = async (s: Setup, token: string): Promise<{ names: string[]; total: number }> => {
  const res = await call(s.rt.url, 'GET', '/knowledge/content?sort_by=name&sort_order=asc&limit=100', { token });
  expect(res.status).toBe(200);
  return { names: res.body.data.map((r: Json) => r.name), total: res.body.meta.total_count };
};
const search = (s: Setup, token: string, body: Json): Promise<Reply> => call(s.rt.url, 'POST', '/knowledge/search', { token, body: { search_type: 'keyword', ...body } });
const found = async (s: Setup, token: string, query: string, limit = 20): Promise<string[]> => {
  const res = await search(s, token, { query, max_results: limit });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data.map((h: Json) => h.content_id);
};
/** What the agent's search_knowledge_base tool returned in a run by this token's user. */
const agentSees = async (s: Setup, token: string, query: string): Promise<string> => {
  fake.setBehaviour({ toolArguments: { search_knowledge_base: { query, limit: 20 } } });
  try {
    const run = await call(s.rt.url, 'POST', '/agents/helper/runs', { token, body: { message: 'What do the docs say?', stream: false } });
    expect(run.status, JSON.stringify(run.body)).toBe(200);
    expect(run.body.status).toBe('COMPLETED');
    return fake.requests.at(-1)!.conversation.toolResults.join('\n');
  } finally {
    fake.setBehaviour({ toolArguments: {} });
  }
};

/** The content ids the `lookup` workflow's function step found in a run by this token's user. */
async function workflowSees(s: Setup, token: string, userId?: string): Promise<string[]> {
  const run = await call(s.rt.url, 'POST', '/workflows/lookup/runs', { token, body: { message: 'look', stream: false, ...(userId ? { user_id: userId } : {}) } });
  expect(run.status, JSON.stringify(run.body)).toBe(200);
  expect(run.body.status).toBe('COMPLETED');
  return (run.body.content as string).split(',').filter((id) => id !== '');
}

for (const kind of testDatabaseKinds) {
  describe.runIf(kind.available)(`knowledge user isolation on ${kind.kind}`, () => {
    const cleanups: (() => Promise<void>)[] = [];

    /** `on`/`off`: JWT users with user_isolation on or off; `key`: the security key, USER_ISOLATION=true. */
    async function start(mode: 'on' | 'off' | 'key', table: string): Promise<Setup> {
      const model = new OpenAIChatModel({ model: 'fake-model', baseURL: `${fake.url}/v1`, maxRetries: 0 });
      const embedder = new OpenAIEmbedder({ apiKey: 'sk-fake', baseURL: `${fake.url}/v1`, model: 'fake-embed', maxRetries: 0 });
      // Chunks go to a database of their own (a file on SQLite, a schema on PostgreSQL).
      const storeDatabase = kind.kind === 'postgres' ? await kind.create() : undefined;
      const storeDb = storeDatabase?.open();
      const store: VectorStore = storeDb ? new PostgresVectorStore({ db: storeDb, table }) : new SqliteVectorStore({ path: join(dir, `${table}.db`), table });
      cleanups.push(async () => {
        await store.close();
        await storeDb?.close();
        await storeDatabase?.cleanup();
      });
      const docs = new Knowledge({ id: 'docs', store, embedder });
      const helper = new Agent({ id: 'helper', model, instructions: 'Search the docs before answering.', knowledge: docs });
      // A function step searches as the run's user by passing the scope it is given.
      const lookup = new Workflow({
        id: 'lookup',
        steps: [
          step('find', async (input) => {
            const hits = await docs.search('kettle', { searchType: 'keyword', limit: 20, ...(input.scopedUserId !== undefined ? { userId: input.scopedUserId } : {}) });
            return [...new Set(hits.map((h) => h.content_id))].sort().join(',');
          }),
        ],
      });
      const rt = await startRuntime(kind, {
        agents: [helper],
        workflows: [lookup],
        knowledge: [docs],
        ...(mode === 'key'
          ? { env: { OS_SECURITY_KEY: SECURITY_KEY, USER_ISOLATION: 'true' } }
          : { authorization: true, authorization_config: { verification_keys: [key.publicPem], user_isolation: mode === 'on' } }),
      });
      cleanups.unshift(() => rt.stop());
      const jwt = (sub: string | undefined, scopes: string[]) => sign(key, { claims: { sub, scopes } });
      const admin = mode === 'key' ? SECURITY_KEY : await jwt('root', ['agent_os:admin']);
      const minted = await call(rt.url, 'POST', '/service-accounts', {
        token: admin,
        body: { name: 'ci', scopes: ['knowledge:read', 'knowledge:write', 'knowledge:delete'].map((scope) => ({ scope })), allow_privileged_scopes: true },
      });
      expect(minted.status).toBe(201);
      // Shared content, as records and chunks from before owners were recorded have it.
      const sharedId = 'shared-handbook';
      await docs.insert({ text: SHARED_TEXT, name: 'handbook', contentId: sharedId, metadata: { audience: 'everyone' } });
      await new ContentStore(rt.runtime.db).create({
        id: sharedId,
        knowledge_id: 'docs',
        name: 'handbook',
        description: null,
        metadata: { audience: 'everyone' },
        file_type: 'text',
        size: SHARED_TEXT.length,
        reader_id: null,
        chunker: null,
        status: 'completed',
        status_message: null,
      });
      return {
        rt,
        docs,
        sharedId,
        tokens: {
          alice: await jwt('alice', USER_SCOPES),
          bob: await jwt('bob', USER_SCOPES),
          admin,
          sa: minted.body.token as string,
          noSub: await jwt(undefined, USER_SCOPES),
        },
      };
    }

    afterAll(async () => {
      for (const cleanup of cleanups) await cleanup();
    });

    describe('with user_isolation on', () => {
      let s: Setup;
      let alice: Json;
      let bob: Json;
      let ci: Json;
      let root: Json;

      beforeAll(async () => {
        s = await start('on', 'kiso_on');
        // The body's user_id is not the caller's to choose: it is ignored.
        alice = await put(s, s.tokens.alice, 'alice-plan', 'Alice plans the apollo launch checklist for the kettle rollout.', {
          user_id: 'bob',
          metadata: { project: 'apollo' },
        });
        bob = await put(s, s.tokens.bob, 'bob-budget', 'Bob drafts the zephyr budget for the kettle rollout.', { metadata: { project: 'zephyr', zephyr_only: true } });
        ci = await put(s, s.tokens.sa, 'ci-notes', 'CI notes: the kettle rollout build passed.');
        root = await put(s, s.tokens.admin, 'root-memo', 'Root memo: the kettle rollout is approved.');
      });

      it('records the uploader as owner, whatever the request says', () => {
        expect(alice.user_id).toBe('alice');
        expect(bob.user_id).toBe('bob');
        expect(ci.user_id).toBe('sa:ci');
        expect(root.user_id).toBe('root');
      });

      it('the same bytes from two users are two contents', async () => {
        const text = 'Identical words about the kettle rollout.';
        const a = await put(s, s.tokens.alice, 'same-a', text);
        const b = await put(s, s.tokens.bob, 'same-b', text);
        expect(a.id).not.toBe(b.id);
        for (const [token, id] of [
          [s.tokens.alice, a.id],
          [s.tokens.bob, b.id],
        ] as const) {
          expect((await call(s.rt.url, 'DELETE', `/knowledge/content/${id}`, { token })).status).toBe(204);
        }
      });

      it('lists shared content and the caller’s own; admins list everything', async () => {
        expect(await listed(s, s.tokens.alice)).toEqual({ names: ['alice-plan', 'handbook'], total: 2 });
        expect(await listed(s, s.tokens.bob)).toEqual({ names: ['bob-budget', 'handbook'], total: 2 });
        expect(await listed(s, s.tokens.sa)).toEqual({ names: ['ci-notes', 'handbook'], total: 2 });
        expect(await listed(s, s.tokens.admin)).toEqual({ names: ['alice-plan', 'bob-budget', 'ci-notes', 'handbook', 'root-memo'], total: 5 });
      });

      it('answers 404 for another user’s content on get, status, patch and delete', async () => {
        for (const [method, path, body] of [
          ['GET', `/knowledge/content/${bob.id}`, undefined],
          ['GET', `/knowledge/content/${bob.id}/status`, undefined],
          ['PATCH', `/knowledge/content/${bob.id}`, { name: 'taken' }],
          ['DELETE', `/knowledge/content/${bob.id}`, undefined],
        ] as const) {
          const res = await call(s.rt.url, method, path, { token: s.tokens.alice, ...(body ? { body } : {}) });
          expect(res.status, `${method} ${path}`).toBe(404);
          expect(res.body).toMatchObject({ error_code: 'NOT_FOUND', detail: `Content with id '${bob.id}' not found` });
        }
        expect((await call(s.rt.url, 'GET', `/knowledge/content/${root.id}`, { token: s.tokens.sa })).status).toBe(404);
        // Untouched: bob still has it, under its name.
        expect((await call(s.rt.url, 'GET', `/knowledge/content/${bob.id}`, { token: s.tokens.bob })).body).toMatchObject({ name: 'bob-budget', user_id: 'bob' });
      });

      it('reads shared content, but only an admin changes it', async () => {
        const got = await call(s.rt.url, 'GET', `/knowledge/content/${s.sharedId}`, { token: s.tokens.alice });
        expect(got.status).toBe(200);
        expect(got.body).toMatchObject({ name: 'handbook', user_id: null });
        for (const [method, body] of [
          ['PATCH', { name: 'mine now' }],
          ['DELETE', undefined],
        ] as const) {
          const res = await call(s.rt.url, method, `/knowledge/content/${s.sharedId}`, { token: s.tokens.alice, ...(body ? { body } : {}) });
          expect(res.status, method).toBe(403);
          expect(res.body.error_code).toBe('FORBIDDEN');
        }
        const renamed = await call(s.rt.url, 'PATCH', `/knowledge/content/${s.sharedId}`, { token: s.tokens.admin, body: { description: 'for everyone' } });
        expect(renamed.status).toBe(200);
        const own = await call(s.rt.url, 'PATCH', `/knowledge/content/${alice.id}`, { token: s.tokens.alice, body: { description: 'mine' } });
        expect(own.body).toMatchObject({ description: 'mine', user_id: 'alice' });
      });

      it('searches shared content and the caller’s own, still filling the limit', async () => {
        const all = [s.sharedId, alice.id, bob.id, ci.id, root.id].sort();
        expect((await found(s, s.tokens.alice, 'kettle')).sort()).toEqual([s.sharedId, alice.id].sort());
        expect((await found(s, s.tokens.bob, 'kettle')).sort()).toEqual([s.sharedId, bob.id].sort());
        expect((await found(s, s.tokens.sa, 'kettle')).sort()).toEqual([s.sharedId, ci.id].sort());
        expect((await found(s, s.tokens.admin, 'kettle')).sort()).toEqual(all);
        // Other users' chunks match best ("zephyr budget rollout kettle"), yet alice gets two hits.
        expect(await found(s, s.tokens.admin, 'zephyr budget rollout kettle', 1)).toEqual([bob.id]);
        expect((await found(s, s.tokens.alice, 'zephyr budget rollout kettle', 2)).sort()).toEqual([s.sharedId, alice.id].sort());
        for (const searchType of ['vector', 'hybrid']) {
          const res = await search(s, s.tokens.alice, { query: 'zephyr budget', search_type: searchType, max_results: 2 });
          expect(res.body.data.map((h: Json) => h.content_id).sort(), searchType).toEqual([s.sharedId, alice.id].sort());
        }
      });

      it('filter keys are those of content the caller may see', async () => {
        const refused = await search(s, s.tokens.alice, { query: 'kettle', filters: { project: 'zephyr', zephyr_only: true } });
        expect(refused.status).toBe(422);
        expect(refused.body.detail).toContain('"zephyr_only"');
        expect(refused.body.detail).not.toMatch(/valid keys:.*zephyr_only/);
        expect(await found(s, s.tokens.bob, 'kettle')).toContain(bob.id);
        const bobs = await search(s, s.tokens.bob, { query: 'kettle', filters: { zephyr_only: true } });
        expect(bobs.body.data.map((h: Json) => h.content_id)).toEqual([bob.id]);
        // A filter matching another user's content finds nothing of it.
        const matched = await search(s, s.tokens.alice, { query: 'kettle', filters: { project: 'zephyr' } });
        expect(matched.status).toBe(200);
        expect(matched.body.data).toEqual([]);
        const config = async (token: string) => (await call(s.rt.url, 'GET', '/knowledge/config', { token })).body.filters as string[];
        expect(await config(s.tokens.alice)).not.toContain('zephyr_only');
        expect(await config(s.tokens.alice)).toEqual(expect.arrayContaining(['audience', 'project']));
        expect(await config(s.tokens.admin)).toContain('zephyr_only');
      });

      it('an agent run searches as its user', async () => {
        const forAlice = await agentSees(s, s.tokens.alice, 'kettle rollout');
        expect(forAlice).toContain('apollo launch checklist');
        expect(forAlice).toContain('descaled every Friday');
        expect(forAlice).not.toContain('zephyr budget');
        expect(forAlice).not.toContain('Root memo');
        const forBob = await agentSees(s, s.tokens.bob, 'kettle rollout');
        expect(forBob).toContain('zephyr budget');
        expect(forBob).not.toContain('apollo launch checklist');
      });

      it('a workflow’s function step is given the run’s scope', async () => {
        expect(await workflowSees(s, s.tokens.alice)).toEqual([s.sharedId, alice.id].sort());
        expect(await workflowSees(s, s.tokens.admin)).toEqual([s.sharedId, alice.id, bob.id, ci.id, root.id].sort());
      });

      it('refuses a token without a user id rather than leave it unconfined', async () => {
        const res = await call(s.rt.url, 'GET', '/knowledge/content', { token: s.tokens.noSub });
        expect(res.status).toBe(403);
        expect(res.body.error_code).toBe('FORBIDDEN');
        expect((await search(s, s.tokens.noSub, { query: 'kettle' })).status).toBe(403);
      });

      it('delete all removes only the caller’s own content and chunks', async () => {
        const extra = await put(s, s.tokens.alice, 'alice-extra', 'Alice keeps a second kettle rollout note.');
        expect((await call(s.rt.url, 'DELETE', '/knowledge/content', { token: s.tokens.alice })).status).toBe(204);
        expect(await listed(s, s.tokens.alice)).toEqual({ names: ['handbook'], total: 1 });
        expect(await listed(s, s.tokens.bob)).toEqual({ names: ['bob-budget', 'handbook'], total: 2 });
        expect((await listed(s, s.tokens.admin)).names).toEqual(['bob-budget', 'ci-notes', 'handbook', 'root-memo']);
        const everything = await found(s, s.tokens.admin, 'kettle');
        expect(everything).not.toContain(alice.id);
        expect(everything).not.toContain(extra.id);
        expect(everything.sort()).toEqual([s.sharedId, bob.id, ci.id, root.id].sort());
        // An admin is not confined: it deletes another user's content.
        expect((await call(s.rt.url, 'DELETE', `/knowledge/content/${ci.id}`, { token: s.tokens.admin })).status).toBe(204);
        expect(await listed(s, s.tokens.sa)).toEqual({ names: ['handbook'], total: 1 });
      });
    });

    describe('with user_isolation off', () => {
      let s: Setup;
      let alice: Json;
      let bob: Json;
      let ci: Json;

      beforeAll(async () => {
        s = await start('off', 'kiso_off');
        alice = await put(s, s.tokens.alice, 'alice-plan', 'Alice plans the apollo launch checklist for the kettle rollout.');
        bob = await put(s, s.tokens.bob, 'bob-budget', 'Bob drafts the zephyr budget for the kettle rollout.');
        ci = await put(s, s.tokens.sa, 'ci-notes', 'CI notes: the kettle rollout build passed.');
      });

      it('still records the owner', () => {
        expect([alice.user_id, bob.user_id, ci.user_id]).toEqual(['alice', 'bob', 'sa:ci']);
      });

      it('users list, read, search and change each other’s content as before', async () => {
        expect(await listed(s, s.tokens.alice)).toEqual({ names: ['alice-plan', 'bob-budget', 'ci-notes', 'handbook'], total: 4 });
        expect((await call(s.rt.url, 'GET', `/knowledge/content/${bob.id}`, { token: s.tokens.alice })).status).toBe(200);
        expect((await call(s.rt.url, 'GET', `/knowledge/content/${bob.id}/status`, { token: s.tokens.alice })).status).toBe(200);
        expect((await found(s, s.tokens.alice, 'kettle')).sort()).toEqual([s.sharedId, alice.id, bob.id, ci.id].sort());
        expect((await call(s.rt.url, 'PATCH', `/knowledge/content/${s.sharedId}`, { token: s.tokens.alice, body: { description: 'edited' } })).status).toBe(200);
        const forAlice = await agentSees(s, s.tokens.alice, 'kettle rollout');
        expect(forAlice).toContain('zephyr budget');
        expect(await workflowSees(s, s.tokens.alice)).toEqual([s.sharedId, alice.id, bob.id, ci.id].sort());
      });

      it('a service account is confined to its own content whatever the setting', async () => {
        expect(await listed(s, s.tokens.sa)).toEqual({ names: ['ci-notes', 'handbook'], total: 2 });
        expect((await call(s.rt.url, 'GET', `/knowledge/content/${alice.id}`, { token: s.tokens.sa })).status).toBe(404);
        expect((await found(s, s.tokens.sa, 'kettle')).sort()).toEqual([s.sharedId, ci.id].sort());
      });

      it('delete all by a user deletes everything, as before', async () => {
        expect((await call(s.rt.url, 'DELETE', '/knowledge/content', { token: s.tokens.bob })).status).toBe(204);
        expect(await listed(s, s.tokens.admin)).toEqual({ names: [], total: 0 });
        expect(await found(s, s.tokens.admin, 'kettle')).toEqual([]);
      });
    });

    describe('with the security key and USER_ISOLATION=true', () => {
      let s: Setup;
      let shared: Json;
      let ann: string;

      beforeAll(async () => {
        s = await start('key', 'kiso_key');
        // The key has no user: its uploads are shared and it sees everything.
        shared = await put(s, SECURITY_KEY, 'key-upload', 'Key upload: kettle rollout for everyone.');
        // A backend's SDK content for one of its users.
        ann = (await s.docs.insert({ text: 'Ann keeps her own kettle rollout diary.', userId: 'ann' })).content_id;
      });

      it('the key is not confined, and its uploads are shared', async () => {
        expect(shared.user_id).toBeNull();
        expect(await listed(s, SECURITY_KEY)).toEqual({ names: ['handbook', 'key-upload'], total: 2 });
        expect((await found(s, SECURITY_KEY, 'kettle')).sort()).toEqual([s.sharedId, shared.id, ann].sort());
      });

      it('a run the key starts for a user searches as that user', async () => {
        expect(await workflowSees(s, SECURITY_KEY, 'ann')).toEqual([s.sharedId, shared.id, ann].sort());
        expect(await workflowSees(s, SECURITY_KEY, 'ben')).toEqual([s.sharedId, shared.id].sort());
        expect(await workflowSees(s, SECURITY_KEY)).toEqual([s.sharedId, shared.id, ann].sort());
      });

      it('a service account is confined to its own content and shared content', async () => {
        expect(await listed(s, s.tokens.sa)).toEqual({ names: ['handbook', 'key-upload'], total: 2 });
        expect((await found(s, s.tokens.sa, 'kettle')).sort()).toEqual([s.sharedId, shared.id].sort());
      });
    });
  });
}

for (const kind of testDatabaseKinds) {
  describe.runIf(kind.available)(`Knowledge SDK owners on ${kind.kind}`, () => {
    const cleanups: (() => Promise<void>)[] = [];
    afterAll(async () => {
      for (const cleanup of cleanups) await cleanup();
    });

    async function knowledge(table: string): Promise<Knowledge> {
      const database = kind.kind === 'postgres' ? await kind.create() : undefined;
      const db = database?.open();
      const store: VectorStore = db ? new PostgresVectorStore({ db, table }) : new SqliteVectorStore({ path: join(dir, `${table}.db`), table });
      cleanups.push(async () => {
        await store.close();
        await db?.close();
        await database?.cleanup();
      });
      return new Knowledge({ id: 'sdk', store });
    }

    it('insert({ userId }) owns content; search, remove and filter keys take the user', async () => {
      const docs = await knowledge('kiso_sdk');
      const text = 'The kettle rollout is planned for spring.';
      const shared = await docs.insert({ text, metadata: { area: 'ops' } });
      const mine = await docs.insert({ text, userId: 'alice', metadata: { area: 'ops', alice_only: 1 } });
      const theirs = await docs.insert({ text, userId: 'bob', metadata: { area: 'ops', bob_only: 1 } });
      // The owner is part of the identity: the same text is three contents.
      expect(new Set([shared.content_id, mine.content_id, theirs.content_id]).size).toBe(3);
      const ids = async (userId?: string) =>
        (await docs.search('kettle', { searchType: 'keyword', limit: 10, ...(userId !== undefined ? { userId } : {}) })).map((h) => h.content_id).sort();
      expect(await ids('alice')).toEqual([shared.content_id, mine.content_id].sort());
      expect(await ids('bob')).toEqual([shared.content_id, theirs.content_id].sort());
      expect(await ids()).toEqual([shared.content_id, mine.content_id, theirs.content_id].sort());
      expect(await docs.filterKeys({ userId: 'alice' })).toEqual(['alice_only', 'area']);
      // Another user's keys are unknown to alice, and the refusal does not list them.
      const refused = await docs.search('kettle', { searchType: 'keyword', userId: 'alice', filters: { bob_only: 1 } }).catch((e: unknown) => e as Error);
      expect(refused).toMatchObject({ message: expect.stringContaining('"bob_only"') });
      expect((refused as Error).message).not.toMatch(/valid keys:.*bob_only/);
      expect((await docs.search('kettle', { searchType: 'keyword', userId: 'bob', filters: { bob_only: 1 } })).map((h) => h.content_id)).toEqual([theirs.content_id]);
      // A later upload's keys are known to its owner at once.
      const later = await docs.insert({ text: 'Another kettle note.', userId: 'alice', metadata: { fresh: true } });
      expect((await docs.search('kettle', { searchType: 'keyword', userId: 'alice', filters: { fresh: true } })).map((h) => h.content_id)).toEqual([later.content_id]);
      expect(await docs.remove(theirs.content_id, { userId: 'alice' })).toBe(false);
      expect(await docs.remove(shared.content_id, { userId: 'alice' })).toBe(false);
      expect(await docs.remove(mine.content_id, { userId: 'alice' })).toBe(true);
      expect(await ids('bob')).toEqual([shared.content_id, theirs.content_id].sort());
    });

    it('refuses an empty or oversized user id', async () => {
      const docs = await knowledge('kiso_sdk_bad');
      for (const userId of ['', 'x'.repeat(257)]) {
        await expect(docs.insert({ text: 'x', userId })).rejects.toMatchObject({ code: 'BAD_REQUEST' });
        await expect(docs.search('x', { userId })).rejects.toMatchObject({ code: 'BAD_REQUEST' });
      }
    });
  });
}
