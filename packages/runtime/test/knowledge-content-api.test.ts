/**
 * The content API as a user meets it, on SQLite and PostgreSQL: `max_results` is the number of
 * hits a search returns (meta.limit pages them only when given); hit ids are the content id and
 * the chunk's position, unique in a result list; records show the reader, chunker and chunker
 * settings that built them; listings filter by status and count every status; a labelled CSV
 * keeps a line per field; and JSON sent as text in a field meets the same depth guard as a JSON
 * body (422, not 500).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Knowledge } from '../src/knowledge/knowledge.js';
import { PostgresVectorStore } from '../src/knowledge/vector-stores/postgres/store.js';
import { SqliteVectorStore } from '../src/knowledge/vector-stores/sqlite/store.js';
import type { VectorStore } from '../src/knowledge/vector-stores/vector-store.js';
import type { Db } from '../src/storage/db.js';
import { testDatabaseKinds, type TestDatabase } from './support/databases.js';
import { call } from './support/http.js';
import { settled, upload } from './support/knowledge-content.js';
import { startRuntime, type StartedRuntime } from './support/runtime.js';

type Json = Record<string, any>;

/** 40 paragraphs, one chunk each under DocumentChunker with chunk_size 20. */
const ZEBRAS = Array.from({ length: 40 }, (_, i) => `Zebra fact ${i}.`).join('\n\n');
const DEEP = 10_000;

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'svc-kapi-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

for (const kind of testDatabaseKinds) {
  describe.runIf(kind.available)(`knowledge content API fixes on ${kind.kind}`, () => {
    let database: TestDatabase | undefined;
    let storeDb: Db | undefined;
    let store: VectorStore;
    let rt: StartedRuntime;
    let zebras: string;

    const search = async (body: Json) => {
      const res = await call(rt.url, 'POST', '/knowledge/search', { body: { search_type: 'keyword', ...body } });
      expect(res.status).toBe(200);
      return res.body as { data: Json[]; meta: Json };
    };
    const text = async (body: Json) => {
      const res = await call(rt.url, 'POST', '/knowledge/content', { body });
      expect(res.status).toBe(202);
      expect(await settled(rt.url, res.body.id)).toMatchObject({ status: 'completed' });
      return res.body.id as string;
    };

    beforeAll(async () => {
      if (kind.kind === 'postgres') {
        database = await kind.create();
        storeDb = database.open();
      }
      store = kind.kind === 'sqlite' ? new SqliteVectorStore({ path: join(dir, 'api.db'), table: 'k_api' }) : new PostgresVectorStore({ db: storeDb!, table: 'k_api' });
      rt = await startRuntime(kind, { knowledge: [new Knowledge({ id: 'docs', store })] });
      zebras = await text({ name: 'zebras.txt', text_content: ZEBRAS, chunker: 'DocumentChunker', chunk_size: 20 });
    });
    afterAll(async () => {
      await rt?.stop();
      await store?.close();
      await storeDb?.close();
      await database?.cleanup();
    });

    it('returns max_results hits on one page unless meta.limit pages them', async () => {
      const all = await search({ query: 'zebra', max_results: 25 });
      expect(all.data).toHaveLength(25);
      expect(all.meta).toMatchObject({ page: 1, limit: 25, total_pages: 1, total_count: 25 });
      const paged = await search({ query: 'zebra', max_results: 25, meta: { limit: 10, page: 3 } });
      expect(paged.data).toHaveLength(5);
      expect(paged.meta).toMatchObject({ page: 3, limit: 10, total_pages: 3, total_count: 25 });
      // Pages are cut from one result list: the three pages are its 25 hits in order.
      const pages = await Promise.all([1, 2, 3].map((page) => search({ query: 'zebra', max_results: 25, meta: { limit: 10, page } })));
      expect(pages.flatMap((p) => p.data.map((h) => h.id))).toEqual(all.data.map((h) => h.id));
      // Without either, the knowledge base's maxResults (10) on one page.
      const plain = await search({ query: 'zebra' });
      expect([plain.data.length, plain.meta.limit, plain.meta.total_pages]).toEqual([10, 10, 1]);
      const past = await search({ query: 'zebra', max_results: 25, meta: { page: 2 } });
      expect([past.data.length, past.meta.limit, past.meta.page]).toEqual([0, 25, 2]);
    });

    it('gives hits ids made of the content id and the chunk position: unique, and stable between searches', async () => {
      // Two contents whose documents share a name ("notes"): their chunker ids collide.
      const txt = await text({ name: 'notes.txt', text_content: 'The walrus sleeps on ice floes.' });
      const md = await text({ name: 'notes.md', text_content: '# Notes\n\nA walrus can weigh a tonne.' });
      const hits = (await search({ query: 'walrus', max_results: 10 })).data;
      expect(hits.map((h) => h.id).sort()).toEqual([`${txt}_1`, `${md}_1`].sort());
      expect(hits.map((h) => Object.keys(h).sort())).toEqual(hits.map(() => ['content', 'content_id', 'id', 'meta_data', 'name', 'score']));
      const zebraIds = (await search({ query: 'zebra', max_results: 40 })).data.map((h) => h.id);
      expect(new Set(zebraIds).size).toBe(40);
      expect(zebraIds.every((id) => /_\d+$/.test(id) && id.startsWith(`${zebras}_`))).toBe(true);
      expect((await search({ query: 'zebra', max_results: 40 })).data.map((h) => h.id)).toEqual(zebraIds);
    });

    it('shows the reader, chunker and chunker settings a record was built with, defaults included', async () => {
      const record = (await call(rt.url, 'GET', `/knowledge/content/${zebras}`)).body;
      expect(record).toMatchObject({ reader_id: 'text', chunker: 'DocumentChunker', chunker_settings: { chunk_size: 20, chunk_overlap: 0 } });
      const plain = await text({ name: 'plain.txt', text_content: 'Nothing chosen: every setting is a default.' });
      const defaults = (await call(rt.url, 'GET', `/knowledge/content/${plain}`)).body;
      expect(defaults).toMatchObject({ reader_id: 'text', chunker: 'FixedSizeChunker', chunker_settings: { chunk_size: 5000, chunk_overlap: 0 } });
      const listed = (await call(rt.url, 'GET', '/knowledge/content?limit=100')).body.data as Json[];
      expect(listed.find((r) => r.id === zebras)).toMatchObject({ chunker_settings: { chunk_size: 20, chunk_overlap: 0 } });
    });

    it('lists records by status, with counts of every status over the whole listing, not the page', async () => {
      const broken = await upload(rt.url, '/knowledge/content', { file: new Blob(['a,b\n"unclosed,1\n'], { type: 'text/csv' }) }, 'broken.csv');
      expect(await settled(rt.url, broken.body.id)).toMatchObject({ status: 'failed' });
      const page = (await call(rt.url, 'GET', '/knowledge/content?limit=1')).body;
      const total = page.meta.total_count as number;
      expect(page.data).toHaveLength(1);
      expect(page.meta.status_counts).toEqual({ processing: 0, completed: total - 1, failed: 1 });
      const failed = (await call(rt.url, 'GET', '/knowledge/content?status=failed')).body;
      expect(failed.data.map((r: Json) => r.id)).toEqual([broken.body.id]);
      expect(failed.meta).toEqual({ page: 1, limit: 20, total_pages: 1, total_count: 1, status_counts: { processing: 0, completed: 0, failed: 1 } });
      const completed = (await call(rt.url, 'GET', '/knowledge/content?status=completed&limit=2')).body;
      expect(completed.data.every((r: Json) => r.status === 'completed')).toBe(true);
      expect(completed.meta).toMatchObject({ total_count: total - 1, total_pages: Math.ceil((total - 1) / 2), status_counts: { completed: total - 1, failed: 0 } });
      expect((await call(rt.url, 'GET', '/knowledge/content?status=lost')).status).toBe(422);
    });

    it('keeps one "Label: value" per line for a labelled CSV record', async () => {
      const csv = await upload(rt.url, '/knowledge/content', { file: new Blob(['full_name,city\nOrla Brennan,Galway\n'], { type: 'text/csv' }), reader_id: 'field_labeled_csv' }, 'people.csv');
      expect(await settled(rt.url, csv.body.id)).toMatchObject({ status: 'completed' });
      const [hit] = (await search({ query: 'Galway' })).data;
      expect(hit).toMatchObject({ content_id: csv.body.id, content: 'Full Name: Orla Brennan\nCity: Galway' });
    });

    it('refuses JSON nested too deep in a form field or a JSON string with 422, as in a JSON body', async () => {
      const before = (await call(rt.url, 'GET', '/knowledge/content')).body.meta.total_count;
      const arrays = `${'['.repeat(DEEP)}${']'.repeat(DEEP)}`;
      const objects = `${'{"a":'.repeat(DEEP)}1${'}'.repeat(DEEP)}`;
      for (const [field, value] of [
        ['metadata', objects],
        ['metadata', arrays],
        ['reader_options', objects],
      ] as const) {
        const form = await upload(rt.url, '/knowledge/content', { text_content: 'deep', [field]: value });
        expect([form.status, form.body.error_code], field).toEqual([422, 'VALIDATION_ERROR']);
        // The guard's place names the field, then the path to the level it stopped at.
        expect(form.body.detail).toMatch(new RegExp(`^${field}[[.].* is nested deeper than 32 levels$`));
      }
      const json = await call(rt.url, 'POST', '/knowledge/content', { body: { text_content: 'deep', metadata: objects } });
      expect([json.status, json.body.error_code]).toEqual([422, 'VALIDATION_ERROR']);
      const patched = await call(rt.url, 'PATCH', `/knowledge/content/${zebras}`, { body: { metadata: arrays } });
      expect([patched.status, patched.body.error_code]).toEqual([422, 'VALIDATION_ERROR']);
      // Shallow JSON text still works, and text that is not JSON is kept as it is.
      const ok = await upload(rt.url, '/knowledge/content', { text_content: 'shallow', metadata: '{"team": {"name": "ops"}}' });
      expect([ok.status, ok.body.metadata]).toEqual([202, { team: { name: 'ops' } }]);
      const raw = await upload(rt.url, '/knowledge/content', { text_content: 'raw', metadata: '[[[not json' });
      expect([raw.status, raw.body.metadata]).toEqual([202, { value: '[[[not json' }]);
      expect((await call(rt.url, 'GET', '/knowledge/content')).body.meta.total_count).toBe(before + 2);
    });
  });
}
