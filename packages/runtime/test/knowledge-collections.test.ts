/**
 * Collections as parent and child records, on SQLite and PostgreSQL, through the HTTP API: a
 * bucket prefix on a loopback S3 (s3rver) is one record owning a child per object. A bad object
 * fails only its own child; a refresh re-reads (and re-embeds) only the objects whose ETag
 * changed, adds new ones and drops removed ones; deleting the parent deletes the children and
 * every chunk; and a runtime killed with SIGKILL in the middle of a prefix is finished by the
 * next one with every object stored once and nothing embedded twice that was already done.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultReaders } from '../src/knowledge/readers/registry.js';
import { freePort, startChildRuntime } from './support/child-runtime.js';
import { testKnowledge } from './support/components.js';
import { testDatabaseKinds, type TestDatabase } from './support/databases.js';
import { eventually } from './support/eventually.js';
import { startFakeEmbeddings, type FakeEmbeddings } from './support/fake-embeddings.js';
import { startFakeS3, S3_KEY, type FakeS3 } from './support/fake-s3.js';
import { call } from './support/http.js';
import { sign, signingKey } from './support/jwt.js';
import { settled } from './support/knowledge-content.js';
import { startRuntimeOn, type StartedRuntime } from './support/runtime.js';

type Json = Record<string, any>;

const BUCKET = 'field-notes';
/** Objects the kill test spreads its work over: enough that the kill lands mid-prefix. */
const MANY = 24;

const note = (i: number) => `# Station ${i}\n\nObserver ${i} logged marker${i}x at the weir.\n`;

for (const kind of testDatabaseKinds) {
  describe.skipIf(!kind.available)(`collections as parent and child records on ${kind.kind}`, () => {
    let embeddings: FakeEmbeddings;
    let s3: FakeS3;
    let database: TestDatabase;
    let dir: string;
    let knowledgePath: string | undefined;
    let rt: StartedRuntime;
    const stops: (() => Promise<void>)[] = [];

    const s3Env = () => ({ S3_ENDPOINT: s3.endpoint, S3_ACCESS_KEY_ID: S3_KEY, S3_SECRET_ACCESS_KEY: S3_KEY });
    const runtime = async (internals: { runLeaseMs?: number } = {}): Promise<StartedRuntime> => {
      const knowledge = testKnowledge(embeddings.url, knowledgePath, database.url, { readers: defaultReaders(s3Env()) });
      const started = await startRuntimeOn(database, { knowledge: [knowledge] }, internals);
      stops.push(() => started.stop());
      return started;
    };
    const ingest = async (url: string, base = rt.url): Promise<{ id: string; status: Json; record: Json }> => {
      const res = await call(base, 'POST', '/knowledge/content', { body: { url, reader_id: 'bucket' } });
      expect(res.status, JSON.stringify(res.body)).toBe(202);
      const status = await settled(base, res.body.id);
      return { id: res.body.id, status, record: (await call(base, 'GET', `/knowledge/content/${res.body.id}`)).body };
    };
    const childrenOf = async (parentId: string, base = rt.url): Promise<Json[]> => {
      const res = await call(base, 'GET', `/knowledge/content?parent_id=${parentId}&limit=100`);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return (res.body.data as Json[]).toSorted((a, b) => (a.source < b.source ? -1 : 1));
    };
    const search = async (query: string, base = rt.url): Promise<Json[]> =>
      (await call(base, 'POST', '/knowledge/search', { body: { query, search_type: 'keyword', max_results: 1000, meta: { limit: 1000 } } })).body.data;

    beforeAll(async () => {
      embeddings = await startFakeEmbeddings();
      s3 = await startFakeS3(BUCKET, {
        'river/alpha.md': { body: '# Alpha\n\nThe alpha gauge reads otterbank levels every hour.\n', type: 'text/markdown' },
        'river/beta.md': { body: '# Beta\n\nBeta station counts kingfisher nests along the bend.\n', type: 'text/markdown' },
        'river/gamma.txt': { body: 'Gamma keeps the sluice gate diary.', type: 'text/plain' },
        'river/broken.json': { body: '{"levels": [1, 2', type: 'application/json' },
        ...Object.fromEntries(Array.from({ length: MANY }, (_, i) => [`many/station-${String(i).padStart(2, '0')}.md`, { body: note(i), type: 'text/markdown' }])),
      });
      database = await kind.create();
      dir = mkdtempSync(join(tmpdir(), 'svc-kcol-'));
      knowledgePath = kind.kind === 'sqlite' ? join(dir, 'knowledge.db') : undefined;
      rt = await runtime();
    });
    afterAll(async () => {
      for (const stop of stops.toReversed()) await stop().catch(() => undefined);
      await s3?.close();
      await embeddings?.close();
      await database?.cleanup();
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    it('a prefix is one record with a child per object; a bad object fails only itself and its siblings are searchable', async () => {
      const { id, status, record } = await ingest(`s3://${BUCKET}/river/`);
      expect(status).toEqual({ id, status: 'completed', status_message: 'completed: 4 item(s): 3 read, 1 failed' });
      expect(record).toMatchObject({ name: `s3://${BUCKET}/river/`, type: 'bucket', parent_id: null, children: { processing: 0, completed: 3, failed: 1 } });
      const children = await childrenOf(id);
      expect(children.map((c) => [c.name, c.status, c.parent_id])).toEqual([
        ['river/alpha.md', 'completed', id],
        ['river/beta.md', 'completed', id],
        ['river/broken.json', 'failed', id],
        ['river/gamma.txt', 'completed', id],
      ]);
      expect(children[2]).toMatchObject({ content_hash: null, chunks: null });
      expect(children[2]!.status_message).toContain('broken.json');
      for (const child of children.filter((c) => c.status === 'completed')) {
        expect(child.content_hash).toMatch(/^[0-9a-f]{64}$/);
        expect(child.chunks).toBe(1);
      }
      expect(record.chunks).toBe(3);
      // Top-level listings show the collection, not its children.
      const top = (await call(rt.url, 'GET', '/knowledge/content?limit=100')).body.data as Json[];
      expect(top.map((r) => r.id)).toEqual([id]);
      // ... with its children's counts, as the record itself carries them.
      expect(top[0]!.children).toEqual({ processing: 0, completed: 3, failed: 1 });
      for (const [query, name] of [['otterbank', 'river/alpha.md'], ['kingfisher', 'river/beta.md'], ['sluice', 'river/gamma.txt']] as const) {
        const hits = await search(query);
        expect(hits.map((h) => h.content_id)).toEqual([children.find((c) => c.name === name)!.id]);
      }
      // A child is a record like any other.
      const one = await call(rt.url, 'GET', `/knowledge/content/${children[0]!.id}`);
      expect(one.body).toMatchObject({ id: children[0]!.id, parent_id: id, source: `s3://${BUCKET}/river/alpha.md` });
      expect(one.body.children).toBeUndefined();
      expect((await call(rt.url, 'GET', '/knowledge/content?parent_id=no-such-record')).status).toBe(404);
    });

    it('a refresh re-reads only the objects whose bytes changed, adds new ones and drops removed ones', async () => {
      const first = await ingest(`s3://${BUCKET}/river/`);
      const before = await childrenOf(first.id);
      await s3.put('river/beta.md', '# Beta\n\nBeta station now counts heron nests along the bend.\n', 'text/markdown');
      await s3.remove('river/gamma.txt');
      await s3.put('river/delta.md', '# Delta\n\nDelta watches the eel pass at dusk.\n', 'text/markdown');
      const from = embeddings.requests.length;

      const again = await ingest(`s3://${BUCKET}/river/`);
      expect(again.id).toBe(first.id);
      expect(again.status.status_message).toBe('completed: 4 item(s): 2 read, 1 unchanged, 1 failed');
      const after = await childrenOf(first.id);
      expect(after.map((c) => [c.name, c.status])).toEqual([
        ['river/alpha.md', 'completed'],
        ['river/beta.md', 'completed'],
        ['river/broken.json', 'failed'],
        ['river/delta.md', 'completed'],
      ]);
      // The unchanged object kept its record as it was; the changed one has a new digest.
      expect(named(after, 'river/alpha.md')).toEqual(named(before, 'river/alpha.md'));
      expect(named(after, 'river/beta.md').content_hash).not.toBe(named(before, 'river/beta.md').content_hash);
      // Only what changed went to the embedder.
      const texts = embeddedBy(embeddings, from).join('\n');
      expect(texts).toContain('heron');
      expect(texts).toContain('eel pass');
      expect(texts).not.toContain('otterbank');
      // Search sees the new version only, and nothing of the removed object.
      expect(await search('kingfisher')).toEqual([]);
      expect((await search('heron')).map((h) => h.content_id)).toEqual([named(after, 'river/beta.md').id]);
      expect(await search('sluice')).toEqual([]);
      expect((await search('eel')).map((h) => h.content_id)).toEqual([after[3]!.id]);
    });

    it('deleting the parent deletes its children and all their chunks', async () => {
      const { id } = await ingest(`s3://${BUCKET}/river/`);
      const children = await childrenOf(id);
      expect(children.length).toBe(4);
      expect((await search('otterbank')).length).toBe(1);
      expect((await call(rt.url, 'DELETE', `/knowledge/content/${id}`)).status).toBe(204);
      expect((await call(rt.url, 'GET', `/knowledge/content/${id}`)).status).toBe(404);
      for (const child of children) expect((await call(rt.url, 'GET', `/knowledge/content/${child.id}`)).status).toBe(404);
      for (const query of ['otterbank', 'heron', 'eel']) expect(await search(query)).toEqual([]);
      const db = database.open();
      try {
        expect(await db.query('SELECT id FROM svc_knowledge_contents WHERE parent_id = $1', [id])).toEqual([]);
      } finally {
        await db.close();
      }
    });

    it('under user isolation a collection and its children belong to the uploader: others see none of it', async () => {
      const key = await signingKey('RS256', 'collections');
      const knowledge = testKnowledge(embeddings.url, knowledgePath, database.url, { readers: defaultReaders(s3Env()) });
      const isolated = await startRuntimeOn(database, {
        knowledge: [knowledge],
        authorization: true,
        authorization_config: { verification_keys: [key.publicPem], user_isolation: true },
      });
      try {
        const scopes = ['knowledge:read', 'knowledge:write', 'knowledge:delete'];
        const alice = await sign(key, { claims: { sub: 'alice', scopes } });
        const bob = await sign(key, { claims: { sub: 'bob', scopes } });
        const res = await call(isolated.url, 'POST', '/knowledge/content', { token: alice, body: { url: `s3://${BUCKET}/river/`, reader_id: 'bucket', chunk_size: 300 } });
        expect(res.status, JSON.stringify(res.body)).toBe(202);
        const status = await eventually(async () => {
          const s = (await call(isolated.url, 'GET', `/knowledge/content/${res.body.id}/status`, { token: alice })).body as Json;
          return s.status === 'processing' ? undefined : s;
        }, 20_000, 'the prefix to be read');
        expect(status.status).toBe('completed');
        const children = (await call(isolated.url, 'GET', `/knowledge/content?parent_id=${res.body.id}&limit=100`, { token: alice })).body.data as Json[];
        expect(children.length).toBe(4);
        expect(children.every((c) => c.user_id === 'alice')).toBe(true);
        const searchAs = async (token: string, query: string) =>
          (await call(isolated.url, 'POST', '/knowledge/search', { token: token, body: { query, search_type: 'keyword' } })).body.data as Json[];
        expect((await searchAs(alice, 'otterbank')).map((h) => h.content_id)).toEqual([children.find((c) => c.name === 'river/alpha.md')!.id]);
        // Bob sees neither the collection, nor its children, nor their chunks.
        expect(await searchAs(bob, 'otterbank')).toEqual([]);
        expect((await call(isolated.url, 'GET', `/knowledge/content?parent_id=${res.body.id}`, { token: bob })).status).toBe(404);
        expect((await call(isolated.url, 'GET', `/knowledge/content/${children[0]!.id}`, { token: bob })).status).toBe(404);
        const bobsList = (await call(isolated.url, 'GET', '/knowledge/content?limit=100', { token: bob })).body.data as Json[];
        expect(bobsList.map((r) => r.id)).not.toContain(res.body.id);
        expect((await call(isolated.url, 'DELETE', `/knowledge/content/${res.body.id}`, { token: bob })).status).toBe(404);
        // Alice's delete takes the children and their chunks with it.
        expect((await call(isolated.url, 'DELETE', `/knowledge/content/${res.body.id}`, { token: alice })).status).toBe(204);
        expect(await searchAs(alice, 'otterbank')).toEqual([]);
        for (const child of children) expect((await call(isolated.url, 'GET', `/knowledge/content/${child.id}`, { token: alice })).status).toBe(404);
      } finally {
        await isolated.stop();
      }
    });

    it('kill -9 in the middle of a prefix: the next runtime finishes it, every object stored once, finished ones not redone', async () => {
      // Only the runtime about to be killed may take the job.
      await rt.stop();
      const slow = await startFakeEmbeddings({ delayMs: 200 });
      stops.push(() => slow.close());
      const child = await startChildRuntime({
        DATABASE_URL: database.url,
        EMBEDDINGS_URL: slow.url,
        ...(knowledgePath ? { KNOWLEDGE_PATH: knowledgePath } : {}),
        ...s3Env(),
        FAKE_LLM_URL: 'http://127.0.0.1:9',
        RUN_LEASE_SECONDS: '2',
        PORT: String(await freePort()),
      });
      stops.push(child.kill);
      const accepted = await call(child.url, 'POST', '/knowledge/content', { body: { url: `s3://${BUCKET}/many/`, reader_id: 'bucket' } });
      expect(accepted.status).toBe(202);
      const parentId = accepted.body.id as string;
      // Killed once a few objects are done and others are in flight.
      const doneBefore = await eventually(async () => {
        const done = (await childrenOf(parentId, child.url)).filter((c) => c.status === 'completed');
        return done.length >= 4 ? done : undefined;
      }, 20_000, 'some objects to be stored');
      await child.kill();
      const killedAt = slow.requests.length;

      // The same embedder for the survivor, so what it embeds is counted in one place.
      const survivorKnowledge = testKnowledge(slow.url, knowledgePath, database.url, { readers: defaultReaders(s3Env()) });
      const survivor = await startRuntimeOn(database, { knowledge: [survivorKnowledge] }, { runLeaseMs: 1000 });
      stops.push(() => survivor.stop());
      const status = await eventually(async () => {
        const s = (await call(survivor.url, 'GET', `/knowledge/content/${parentId}/status`)).body as Json;
        return s.status === 'processing' ? undefined : s;
      }, 40_000, 'the survivor to finish the prefix');
      expect(status.status).toBe('completed');
      expect(status.status_message).toMatch(new RegExp(`^completed: ${MANY} item\\(s\\): \\d+ read, \\d+ unchanged$`));

      const children = await childrenOf(parentId, survivor.url);
      expect(children.length).toBe(MANY);
      expect(new Set(children.map((c) => c.source)).size).toBe(MANY);
      expect(children.every((c) => c.status === 'completed' && c.chunks === 1)).toBe(true);
      // Every object's chunk is there once: no leftovers of the killed attempt, no duplicates.
      const hits = await search('weir', survivor.url);
      expect(hits.length).toBe(MANY);
      expect(new Set(hits.map((h) => h.content_id)).size).toBe(MANY);
      for (let i = 0; i < MANY; i++) expect((await search(`marker${i}x`, survivor.url)).length).toBe(1);
      // What was finished before the kill was not embedded again.
      const redone = embeddedBy(slow, killedAt);
      for (const done of doneBefore) {
        const marker = `marker${Number(/station-(\d+)/.exec(done.name as string)![1])}x`;
        expect(redone.some((t) => t.includes(marker)), marker).toBe(false);
      }
      const db = database.open();
      try {
        expect(await db.query("SELECT status FROM svc_jobs WHERE status <> 'failed'")).toEqual([]);
      } finally {
        await db.close();
      }
    });
  });
}

function named(records: Json[], name: string): Json {
  return records.find((c) => c.name === name)!;
}

/** Every text sent to a fake embedder since request number `from`. */
function embeddedBy(fake: FakeEmbeddings, from: number): string[] {
  return fake.requests.slice(from).flatMap((r) => (r.body as { input: string | string[] }).input);
}
