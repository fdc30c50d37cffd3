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

    it('keeps one "Label: value" per line for a labelled CSV record', async () => {
      const csv = await upload(rt.url, '/knowledge/content', { file: new Blob(['full_name,city\nOrla Brennan,Galway\n'], { type: 'text/csv' }), reader_id: 'field_labeled_csv' }, 'people.csv');
      expect(await settled(rt.url, csv.body.id)).toMatchObject({ status: 'completed' });
      const [hit] = (await search({ query: 'Galway' })).data;
      expect(hit).toMatchObject({ content_id: csv.body.id, content: 'Full Name: Orla Brennan\nCity: Galway' });
    });
  });
}
