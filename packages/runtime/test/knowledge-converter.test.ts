/**
 * The converter end to end, on SQLite and PostgreSQL: a file of each family is uploaded through
 * POST /knowledge/content with reader_id converter, converted in the worker pool (transcribed by
 * a loopback fake for audio) in the background job, and found again with POST /knowledge/search;
 * bad files end `failed` with a status_message naming the file and what was wrong.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Knowledge } from '../src/knowledge/knowledge.js';
import { defaultReaders } from '../src/knowledge/readers/registry.js';
import { PostgresVectorStore } from '../src/knowledge/vector-stores/postgres/store.js';
import { SqliteVectorStore } from '../src/knowledge/vector-stores/sqlite/store.js';
import type { VectorStore } from '../src/knowledge/vector-stores/vector-store.js';
import type { Db } from '../src/storage/db.js';
import { epubBook, scannedPdf, tarArchive, textImage, wavAudio } from './support/converter-fixtures.js';
import { testDatabaseKinds, type TestDatabase } from './support/databases.js';
import { startFakeTranscription, type FakeTranscription } from './support/fake-transcription.js';
import { call } from './support/http.js';
import { upload } from './support/knowledge-content.js';
import { docxDocument } from './support/office-generators.js';
import { startRuntime, type StartedRuntime } from './support/runtime.js';

let dir: string;
let fake: FakeTranscription;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'svc-kconv-'));
  fake = await startFakeTranscription();
});
afterAll(async () => {
  await fake?.close();
  rmSync(dir, { recursive: true, force: true });
});

const blob = (data: Uint8Array | string, type = 'application/octet-stream') => new Blob([typeof data === 'string' ? data : Buffer.from(data)], { type });

for (const kind of testDatabaseKinds) {
  describe.runIf(kind.available)(`the converter through the content API on ${kind.kind}`, () => {
    let database: TestDatabase | undefined;
    let storeDb: Db | undefined;
    let store: VectorStore;
    let rt: StartedRuntime;
    const q = '?knowledge_id=conv';

    beforeAll(async () => {
      if (kind.kind === 'postgres') {
        database = await kind.create();
        storeDb = database.open();
      }
      store = kind.kind === 'sqlite' ? new SqliteVectorStore({ path: join(dir, 'conv.db'), table: 'k_conv' }) : new PostgresVectorStore({ db: storeDb!, table: 'k_conv' });
      const readers = defaultReaders({ TRANSCRIPTION_BASE_URL: fake.baseUrl, TRANSCRIPTION_MODEL: 'whisper-1' });
      rt = await startRuntime(kind, { knowledge: [new Knowledge({ id: 'conv', store, readers })] });
    });
    afterAll(async () => {
      await rt?.stop();
      await store?.close();
      await storeDb?.close();
      await database?.cleanup();
    });

    /** Uploads with reader_id converter and waits (OCR and worker start-up take a few seconds) for the job to end. */
    async function ingest(file: Blob, fileName: string) {
      const res = await upload(rt.url, `/knowledge/content${q}`, { reader_id: 'converter', file }, fileName);
      expect(res.status, JSON.stringify(res.body)).toBe(202);
      const id = res.body.id as string;
      for (let i = 0; i < 600; i++) {
        const r = await call(rt.url, 'GET', `/knowledge/content/${id}/status${q}`);
        expect(r.status).toBe(200);
        if (r.body.status !== 'processing') return { id, status: r.body.status as string, status_message: r.body.status_message as string | null };
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      throw new Error(`${fileName} is still processing`);
    }

    async function search(query: string) {
      const res = await call(rt.url, 'POST', `/knowledge/search${q}`, { body: { query, search_type: 'keyword', max_results: 5 } });
      expect(res.status).toBe(200);
      return res.body.data as { id: string; content_id: string; content: string; meta_data: Record<string, unknown> }[];
    }

    it('ingests a file of each family and finds a phrase from each', async () => {
      const files: [Blob, string, string, Record<string, unknown>][] = [
        // Named .dotx, but its bytes are a .docx: the chunks say what it really is.
        [blob(await docxDocument([{ heading: 'Supplier memo' }, { paragraph: 'The quillwort contract renews in March.' }])), 'memo.dotx', 'quillwort contract', { format: 'docx' }],
        [blob(await scannedPdf([['Scanned ledger of wolframite sales']])), 'ledger.pdf', 'wolframite', { format: 'pdf', ocr: true, page: 1 }],
        [blob(textImage(['Whiteboard photo mentions ptarmigan'], 'png')), 'board.png', 'ptarmigan', { format: 'png', ocr: true }],
        [blob('<html><body><article><h1>Care</h1><p>Oil the marquetry panels every spring, and keep them out of direct sunlight.</p></article></body></html>'), 'care.html', 'marquetry', { format: 'html' }],
        [blob('<?xml version="1.0"?><inventory><part><name>gimbal bearing</name><stock>14</stock></part></inventory>'), 'parts.xml', 'gimbal', { format: 'xml' }],
        [blob('= Handbook\n\n== Onboarding\n\nEvery hire receives a sextant.\n'), 'handbook.adoc', 'sextant', { format: 'asciidoc' }],
        [blob('\\documentclass{article}\\begin{document}\\section{Results}The \\textbf{heliograph} signal held.\\end{document}'), 'paper.tex', 'heliograph', { format: 'latex' }],
        [blob('WEBVTT\n\n00:00:01.000 --> 00:00:03.000\n<v Ines>The astrolabe arrives tomorrow.\n'), 'call.vtt', 'astrolabe', { format: 'vtt' }],
        [blob(await epubBook('Voyages', [{ file: 'c1.xhtml', title: 'Departure', body: '<p>The barquentine left Valparaíso at dawn.</p>' }])), 'voyages.epub', 'barquentine', { format: 'epub', chapter: 1 }],
        [blob(tarArchive([{ path: 'notes/plan.md', data: '# Plan\n\nOrder more orrery gears.' }])), 'bundle.tar.gz', 'orrery', { format: 'markdown', member: 'notes/plan.md' }],
        [blob(wavAudio()), 'workshop.wav', 'samovar', { format: 'wav', transcribed: true }],
      ];
      for (const [file, name, phrase, meta] of files) {
        const done = await ingest(file, name);
        expect(done, name).toMatchObject({ status: 'completed' });
        const hits = await search(phrase);
        const hit = hits.find((h) => h.content_id === done.id);
        expect(hit, `${name}: "${phrase}"`).toBeDefined();
        expect(hit!.meta_data, name).toMatchObject(meta);
        const record = await call(rt.url, 'GET', `/knowledge/content/${done.id}${q}`);
        expect(record.body, name).toMatchObject({ status: 'completed', type: 'converter' });
      }
      expect(fake.requests.at(-1)).toMatchObject({ fileName: 'workshop.wav', model: 'whisper-1' });
    });

    it('keeps what an archive skipped on the completed record', async () => {
      const done = await ingest(blob(tarArchive([{ path: 'ok.md', data: '# Ok\n\nThe tamarind crate is here.' }, { path: '../evil.md', data: 'nope' }])), 'mixed.tar.gz');
      expect(done).toMatchObject({ status: 'completed', status_message: 'completed; skipped: ../evil.md: unsafe path (absolute or outside the archive)' });
    });

    it('fails bad files with a message naming the file and what was wrong', async () => {
      const cases: [Blob, string, string][] = [
        [blob('not a pdf at all'), 'fake.pdf', 'converter reader: "fake.pdf" is named as a PDF, but its content is not one (it is plain text)'],
        [blob(new Uint8Array([0, 1, 2, 3, 200, 201])), 'blob.png', 'converter reader: "blob.png" is named as an image, but its content is not one (no known file signature)'],
        [blob('<a><b></a>'), 'bad.xml', 'converter reader: "bad.xml" is not well-formed XML'],
        [blob('00:01.000 --> 00:02.000\nhi'), 'cues.vtt', 'converter reader: "cues.vtt" is not WebVTT'],
        [blob(new Uint8Array([0x1f, 0x8b, 8, 0, 1, 2, 3])), 'cut.tar.gz', 'converter reader: "cut.tar.gz" is not a valid gzip file'],
        [blob(textImage(['x'], 'png').slice(0, 50)), 'cut.png', 'converter reader: "cut.png" could not be read as an image'],
      ];
      for (const [file, name, message] of cases) {
        const done = await ingest(file, name);
        expect(done, name).toMatchObject({ status: 'failed', status_message: expect.stringContaining(message) });
      }
    });
  });
}
