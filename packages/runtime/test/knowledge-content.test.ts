/**
 * The knowledge content API end to end, on SQLite and PostgreSQL: uploads (multipart and JSON)
 * answer 202 and are processed in the background, records are listed, read, edited and
 * deleted (with their chunks), search finds what was uploaded, failures end as `failed`
 * records or clean 4xx answers, and an upload interrupted by a restart is marked failed.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OpenAIEmbedder } from '../src/providers/openai/embeddings.js';
import { Knowledge } from '../src/knowledge/knowledge.js';
import { PostgresVectorStore } from '../src/knowledge/vector-stores/postgres/store.js';
import { SqliteVectorStore } from '../src/knowledge/vector-stores/sqlite/store.js';
import type { VectorStore } from '../src/knowledge/vector-stores/vector-store.js';
import { Runtime } from '../src/runtime.js';
import { silentLogger } from '../src/util/logger.js';
import type { Db } from '../src/storage/db.js';
import { sqliteTestDatabase, testDatabaseKinds, type TestDatabase, type TestDatabaseKind } from './support/databases.js';
import { startFakeEmbeddings, type FakeEmbeddings } from './support/fake-embeddings.js';
import { call } from './support/http.js';
import { sign, signingKey, type SigningKey } from './support/jwt.js';
import { settled, upload } from './support/knowledge-content.js';
import { eventually } from './support/eventually.js';
import { startRuntime, type StartedRuntime } from './support/runtime.js';

const GUIDE = `# Runtime guide

Intro to the runtime and what it hosts.

## Changing the port

Set PORT=8080 in the environment to change the listening port of the server.
`;

const MAX_BODY = 200_000;
const MAX_CONTENT = 50_000;

let dir: string;
let fakeEmbeddings: FakeEmbeddings;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'svc-kcontent-'));
  fakeEmbeddings = await startFakeEmbeddings({ apiKey: 'sk-emb' });
});
afterAll(async () => {
  await fakeEmbeddings?.close();
  rmSync(dir, { recursive: true, force: true });
});

const embedder = () => new OpenAIEmbedder({ apiKey: 'sk-emb', baseURL: `${fakeEmbeddings.url}/v1`, model: 'fake-embed', maxRetries: 0 });

function openStore(kind: TestDatabaseKind, db: Db | undefined, table: string): VectorStore {
  if (kind.kind === 'sqlite') return new SqliteVectorStore({ path: join(dir, `${table}.db`), table });
  return new PostgresVectorStore({ db: db!, table });
}

for (const kind of testDatabaseKinds) {
  describe.runIf(kind.available)(`knowledge content API on ${kind.kind}`, () => {
    let database: TestDatabase | undefined;
    let storeDb: Db | undefined;
    let stores: VectorStore[] = [];
    let rt: StartedRuntime;
    const q = '?knowledge_id=docs';

    beforeAll(async () => {
      if (kind.kind === 'postgres') {
        database = await kind.create();
        storeDb = database.open();
      }
      stores = [openStore(kind, storeDb, 'kc_docs'), openStore(kind, storeDb, 'kc_small')];
      const docs = new Knowledge({ id: 'docs', store: stores[0]!, embedder: embedder() });
      const small = new Knowledge({ id: 'small', store: stores[1]!, maxContentBytes: MAX_CONTENT });
      rt = await startRuntime(kind, { knowledge: [docs, small], max_body_bytes: MAX_BODY });
    });
    afterAll(async () => {
      await rt?.stop();
      for (const s of stores) await s.close();
      await storeDb?.close();
      await database?.cleanup();
    });

    it('ingests a multipart file and JSON text in the background, then finds them', async () => {
      const md = await upload(rt.url, `/knowledge/content${q}`, { name: 'Guide', description: 'The guide', metadata: '{"area":"setup"}', file: new Blob([GUIDE], { type: 'text/markdown' }) }, 'guide.md');
      expect(md.status).toBe(202);
      expect(md.body).toEqual({ id: expect.any(String), name: 'Guide', description: 'The guide', metadata: { area: 'setup' }, status: 'processing' });
      const text = await call(rt.url, 'POST', `/knowledge/content${q}`, { body: { name: 'note', text_content: 'Kettles are descaled with vinegar every month.', metadata: 'not json' } });
      expect(text.status).toBe(202);
      expect(text.body.metadata).toEqual({ value: 'not json' });

      expect(await settled(rt.url, md.body.id, q)).toEqual({ id: md.body.id, status: 'completed', status_message: null });
      expect((await settled(rt.url, text.body.id, q)).status).toBe('completed');

      const keyword = await call(rt.url, 'POST', '/knowledge/search', { body: { query: 'PORT listening', knowledge_id: 'docs', search_type: 'keyword' } });
      expect(keyword.status).toBe(200);
      expect(keyword.body.data[0]).toMatchObject({ content_id: md.body.id, content: expect.stringContaining('PORT=8080'), meta_data: { area: 'setup' } });
      // No max_results and no meta.limit: the knowledge base's maxResults (10), on one page.
      expect(keyword.body.meta).toMatchObject({ page: 1, limit: 10, total_count: keyword.body.data.length, search_time_ms: expect.any(Number) });
      for (const search_type of ['vector', 'hybrid']) {
        const r = await call(rt.url, 'POST', `/knowledge/search${q}`, { body: { query: 'descaled with vinegar', search_type, max_results: 5, meta: { limit: 1, page: 1 } } });
        expect(r.status, search_type).toBe(200);
        expect(r.body.data).toHaveLength(1);
        expect(r.body.data[0], search_type).toMatchObject({ content_id: text.body.id, content: 'Kettles are descaled with vinegar every month.' });
        expect(r.body.meta).toMatchObject({ page: 1, limit: 1, total_count: expect.any(Number) });
        expect(r.body.meta.total_pages).toBe(r.body.meta.total_count);
      }
      const filtered = await call(rt.url, 'POST', `/knowledge/search${q}`, { body: { query: 'PORT', search_type: 'keyword', filters: { area: 'nowhere' } } });
      expect(filtered.body.data).toEqual([]);
    });

    it('lists, reads, edits and deletes records, and deletion removes their chunks', async () => {
      // Text can come as a form field too.
      const a = await upload(rt.url, `/knowledge/content${q}`, { name: 'alpha', text_content: 'Zeppelins float on hydrogen.' });
      expect(a.status).toBe(202);
      const b = await call(rt.url, 'POST', `/knowledge/content${q}`, { body: { name: 'beta', text_content: 'Zeppelins are slow.' } });
      await settled(rt.url, a.body.id, q);
      await settled(rt.url, b.body.id, q);

      const page = await call(rt.url, 'GET', `/knowledge/content${q}&sort_by=name&sort_order=asc&limit=2`);
      expect(page.status).toBe(200);
      expect(page.body.meta).toEqual({ page: 1, limit: 2, total_count: 4, total_pages: 2, status_counts: { processing: 0, completed: 4, failed: 0 } });
      expect(page.body.data.map((r: { name: string }) => r.name)).toEqual(['Guide', 'alpha']);
      const second = await call(rt.url, 'GET', `/knowledge/content${q}&sort_by=name&sort_order=asc&limit=2&page=2`);
      expect(second.body.data.map((r: { name: string }) => r.name)).toEqual(['beta', 'note']);

      const got = await call(rt.url, 'GET', `/knowledge/content/${a.body.id}${q}`);
      expect(got.body).toMatchObject({ id: a.body.id, name: 'alpha', status: 'completed', type: 'text', size: 28 });
      const patched = await call(rt.url, 'PATCH', `/knowledge/content/${a.body.id}${q}`, { body: { name: 'alpha 2', metadata: { topic: 'air' } } });
      expect(patched.status).toBe(200);
      expect(patched.body).toMatchObject({ name: 'alpha 2', description: null, metadata: { topic: 'air' } });

      const zeppelins = async () =>
        (await call(rt.url, 'POST', `/knowledge/search${q}`, { body: { query: 'Zeppelins', search_type: 'keyword' } })).body.data.map((h: { content_id: string }) => h.content_id).sort();
      expect(await zeppelins()).toEqual([a.body.id, b.body.id].sort());
      expect((await call(rt.url, 'DELETE', `/knowledge/content/${a.body.id}${q}`)).status).toBe(204);
      expect(await zeppelins()).toEqual([b.body.id]);
      expect((await call(rt.url, 'GET', `/knowledge/content/${a.body.id}${q}`)).status).toBe(404);

      expect((await call(rt.url, 'DELETE', `/knowledge/content${q}`)).status).toBe(204);
      expect(await zeppelins()).toEqual([]);
      expect((await call(rt.url, 'GET', `/knowledge/content${q}`)).body).toEqual({
        data: [],
        meta: { page: 1, limit: 20, total_count: 0, total_pages: 0, status_counts: { processing: 0, completed: 0, failed: 0 } },
      });
    });

    it('answers refusals cleanly and records processing failures', async () => {
      const reader = await call(rt.url, 'POST', `/knowledge/content${q}`, { body: { text_content: 'x', reader_id: 'no_such_reader' } });
      expect([reader.status, reader.body.detail]).toEqual([400, expect.stringContaining('Unknown reader "no_such_reader"')]);
      const chunker = await call(rt.url, 'POST', `/knowledge/content${q}`, { body: { text_content: 'x', reader_id: 'csv', chunker: 'MarkdownChunker' } });
      expect(chunker.status).toBe(400);
      const url = await call(rt.url, 'POST', `/knowledge/content${q}`, { body: { url: 'http://169.254.169.254/latest' } });
      // The cloud metadata address is link-local: the fetch is refused (knowledge-url.test.ts covers URLs).
      expect(url.status).toBe(202);
      expect(await settled(rt.url, url.body.id, q)).toEqual({
        id: url.body.id,
        status: 'failed',
        status_message: 'URL host resolves to a link-local address (169.254.169.254); set allowPrivateHosts to ingest from internal hosts',
      });
      expect((await call(rt.url, 'POST', `/knowledge/content${q}`, { body: { name: 'nothing' } })).status).toBe(400);
      const both = await call(rt.url, 'POST', `/knowledge/content${q}`, { body: { text_content: 'x', url: 'https://example.com' } });
      expect(both.status).toBe(400);
      const plain = await fetch(`${rt.url}/knowledge/content${q}`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'hello' });
      expect([plain.status, ((await plain.json()) as { error_code: string }).error_code]).toEqual([415, 'UNSUPPORTED_MEDIA_TYPE']);
      expect((await call(rt.url, 'POST', `/knowledge/search${q}`, { body: { query: 'x', max_results: 1001 } })).status).toBe(422);
      const badKey = await call(rt.url, 'POST', `/knowledge/content${q}`, { body: { text_content: 'x', metadata: { 'bad key': 1 } } });
      expect(badKey.status).toBe(400);

      const csv = await upload(rt.url, `/knowledge/content${q}`, { file: new Blob(['a,b\n"unclosed,1\n'], { type: 'text/csv' }) }, 'broken.csv');
      expect(csv.status).toBe(202);
      const failed = await settled(rt.url, csv.body.id, q);
      expect(failed).toMatchObject({ status: 'failed', status_message: expect.stringContaining('is not valid CSV') });

      expect((await call(rt.url, 'GET', `/knowledge/content/no-such-id${q}`)).status).toBe(404);
      expect((await call(rt.url, 'GET', `/knowledge/content/no-such-id/status${q}`)).status).toBe(404);
      expect((await call(rt.url, 'DELETE', `/knowledge/content/no-such-id${q}`)).status).toBe(404);
      expect((await call(rt.url, 'GET', '/knowledge/content?knowledge_id=nope')).status).toBe(404);
      // Two knowledge bases are hosted, so the caller must say which.
      expect((await call(rt.url, 'GET', '/knowledge/content')).status).toBe(400);
      const vectorOnPlain = await call(rt.url, 'POST', '/knowledge/search', { body: { query: 'x', knowledge_id: 'small', search_type: 'vector' } });
      expect(vectorOnPlain.status).toBe(400);
    });

    it('refuses oversized content with 413, before and after the body limit', async () => {
      const overKnowledge = await upload(rt.url, '/knowledge/content?knowledge_id=small', { file: new Blob(['x'.repeat(MAX_CONTENT + 1)]) }, 'big.txt');
      expect([overKnowledge.status, overKnowledge.body.error_code]).toEqual([413, 'PAYLOAD_TOO_LARGE']);
      const overBody = await upload(rt.url, '/knowledge/content?knowledge_id=small', { file: new Blob(['x'.repeat(MAX_BODY + 1)]) }, 'huge.txt');
      expect(overBody.status).toBe(413);
      expect((await call(rt.url, 'GET', '/knowledge/content?knowledge_id=small')).body.meta.total_count).toBe(0);
    });

    it('hands an upload in progress back at shutdown, and the next start finishes it', async () => {
      const shared = await kind.create();
      const store = openStore(kind, storeDb, 'kc_shutdown');
      // An embedder that holds the upload mid-way until the test lets it go.
      let release!: () => void;
      const held = new Promise<void>((r) => (release = r));
      let embedding!: () => void;
      const started = new Promise<void>((r) => (embedding = r));
      const inner = embedder();
      const slow = {
        id: inner.id,
        provider: inner.provider,
        model: inner.model,
        embed: async (texts: readonly string[], signal?: AbortSignal) => {
          embedding();
          await held;
          return inner.embed(texts, signal);
        },
      };
      try {
        const knowledge = new Knowledge({ id: 'docs', store, embedder: slow });
        const runtime = new Runtime({ env: {}, knowledge: [knowledge], db: shared.open() }, { logger: silentLogger });
        const server = await runtime.serve({ port: 0, host: '127.0.0.1' });
        const accepted = await call(server.url, 'POST', '/knowledge/content', { body: { name: 'guide.md', text_content: GUIDE } });
        expect(accepted.status).toBe(202);
        await started;
        let closed = false;
        const closing = server.close().then(() => (closed = true));
        await new Promise((r) => setImmediate(r));
        expect(closed).toBe(false);
        release();
        await closing;

        // Shutdown cancelled the job and put it back in the queue, not left it `processing` for good.
        const reopened = new Runtime({ env: {}, knowledge: [knowledge], db: shared.open() }, { logger: silentLogger });
        await reopened.start();
        try {
          const status = await eventually(async () => {
            const res = await reopened.fetch(new Request(`http://runtime.test/knowledge/content/${accepted.body.id}/status`));
            const body = (await res.json()) as { status: string };
            return body.status === 'processing' ? undefined : body;
          }, 10_000, 'the handed-back upload to finish');
          expect(status).toEqual({ id: accepted.body.id, status: 'completed', status_message: null });
        } finally {
          await reopened.close();
        }
      } finally {
        await store.close();
        await shared.cleanup();
      }
    });

    it('marks a record left processing with no job to finish it as failed on start', async () => {
      const shared = await kind.create();
      const store = openStore(kind, storeDb, 'kc_restart');
      try {
        const knowledge = new Knowledge({ id: 'docs', store });
        const first = new Runtime({ env: {}, knowledge: [knowledge], db: shared.open() }, { logger: silentLogger });
        await first.start();
        // What a process killed mid-upload left behind before ingestion became durable jobs.
        await first.db.execute(
          `INSERT INTO svc_knowledge_contents (id, knowledge_id, name, status, created_at, updated_at) VALUES ('stuck', 'docs', 'stuck.md', 'processing', $1, $1)`,
          [Date.now() - 60_000],
        );
        await first.close();

        const second = new Runtime({ env: {}, knowledge: [knowledge], db: shared.open() }, { logger: silentLogger });
        await second.start();
        try {
          const res = await second.fetch(new Request('http://runtime.test/knowledge/content/stuck/status'));
          expect(res.status).toBe(200);
          expect(await res.json()).toEqual({ id: 'stuck', status: 'failed', status_message: 'interrupted: no job is left to finish it' });
        } finally {
          await second.close();
        }
      } finally {
        await store.close();
        await shared.cleanup();
      }
    });
  });
}

describe('knowledge content API without knowledge, and under authorization', () => {
  let key: SigningKey;
  let none: StartedRuntime;
  let authed: StartedRuntime;
  let store: VectorStore;

  beforeAll(async () => {
    key = await signingKey('RS256', 'kc');
    store = openStore(sqliteTestDatabase, undefined, 'kc_auth');
    none = await startRuntime(sqliteTestDatabase, {});
    authed = await startRuntime(sqliteTestDatabase, {
      knowledge: [new Knowledge({ id: 'docs', store })],
      authorization: true,
      authorization_config: { verification_keys: [key.publicPem], audience: 'kc' },
    });
  });
  afterAll(async () => {
    await none?.stop();
    await authed?.stop();
    await store?.close();
  });

  it('answers 404 when no knowledge base is hosted', async () => {
    expect((await call(none.url, 'GET', '/knowledge/content')).status).toBe(404);
    expect((await call(none.url, 'POST', '/knowledge/content', { body: { text_content: 'x' } })).status).toBe(404);
    expect((await call(none.url, 'POST', '/knowledge/search', { body: { query: 'x' } })).status).toBe(404);
  });

  it('needs credentials, and knowledge:write to upload', async () => {
    expect((await call(authed.url, 'POST', '/knowledge/content', { body: { text_content: 'x' } })).status).toBe(401);
    expect((await call(authed.url, 'GET', '/knowledge/content')).status).toBe(401);
    const reader = await sign(key, { claims: { aud: 'kc', scopes: ['knowledge:read'] } });
    expect((await call(authed.url, 'POST', '/knowledge/content', { token: reader, body: { text_content: 'x' } })).status).toBe(403);
    expect((await upload(authed.url, '/knowledge/content', { file: new Blob(['x']) }, 'x.txt', reader)).status).toBe(403);
    expect((await call(authed.url, 'DELETE', '/knowledge/content', { token: reader })).status).toBe(403);
    expect((await call(authed.url, 'GET', '/knowledge/content', { token: reader })).status).toBe(200);

    const writer = await sign(key, { claims: { aud: 'kc', scopes: ['knowledge:read', 'knowledge:write'] } });
    const accepted = await call(authed.url, 'POST', '/knowledge/content', { token: writer, body: { text_content: 'Owls hunt at night.' } });
    expect(accepted.status).toBe(202);
    let status = 'processing';
    for (let i = 0; i < 200 && status === 'processing'; i++) {
      status = (await call(authed.url, 'GET', `/knowledge/content/${accepted.body.id}/status`, { token: reader })).body.status;
      if (status === 'processing') await new Promise((resolve) => setTimeout(resolve, 25));
    }
    expect(status).toBe('completed');
    const hits = await call(authed.url, 'POST', '/knowledge/search', { token: reader, body: { query: 'owls' } });
    expect(hits.body.data.map((h: { content_id: string }) => h.content_id)).toEqual([accepted.body.id]);
  });
});

describe('knowledge content API beside a read-only knowledge base', () => {
  let store: VectorStore;
  let rt: StartedRuntime;
  // Searchable by agents, but no Knowledge: it takes no uploads (like the quickstart's bundled docs).
  const handbook = { id: 'handbook', name: 'Handbook', search: async () => [] };

  beforeAll(async () => {
    store = openStore(sqliteTestDatabase, undefined, 'kc_beside');
    rt = await startRuntime(sqliteTestDatabase, { knowledge: [handbook, new Knowledge({ id: 'uploads', store })] });
  });
  afterAll(async () => {
    await rt?.stop();
    await store?.close();
  });

  it('takes content without knowledge_id, since only one base takes content', async () => {
    const res = await upload(rt.url, '/knowledge/content', { file: new Blob([GUIDE]) }, 'guide.md');
    expect(res.status).toBe(202);
    expect(await settled(rt.url, res.body.id)).toMatchObject({ status: 'completed' });
    const found = await call(rt.url, 'POST', '/knowledge/search', { body: { query: 'listening port' } });
    expect(found.body.data[0]).toMatchObject({ content_id: res.body.id });
    expect((await call(rt.url, 'GET', '/knowledge/content?knowledge_id=uploads')).body.meta.total_count).toBe(1);
  });

  it('answers 400 naming the base that takes content when the read-only one is named', async () => {
    for (const [method, path, body] of [
      ['GET', '/knowledge/content?knowledge_id=handbook', undefined],
      ['POST', '/knowledge/content?knowledge_id=handbook', { text_content: 'x' }],
      ['POST', '/knowledge/search', { query: 'x', knowledge_id: 'handbook' }],
    ] as const) {
      const res = await call(rt.url, method, path, { body });
      expect([res.status, res.body.error_code], path).toEqual([400, 'BAD_REQUEST']);
      expect(res.body.detail).toBe('Knowledge base "handbook" is read-only: it takes no content and is not searched here. Use "uploads"');
    }
    // It is still described by /knowledge/config.
    expect((await call(rt.url, 'GET', '/knowledge/config?knowledge_id=handbook')).status).toBe(200);
  });
});
