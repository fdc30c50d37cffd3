/**
 * Office formats end to end, on SQLite and PostgreSQL: real .xlsx, .pptx, .docx and multi-page
 * PDF files (written by exceljs, pptxgenjs, docx and pdfkit) and a CSV read as labelled records
 * are uploaded through POST /knowledge/content, processed in the background, and found again
 * through POST /knowledge/search; a broken file of each format ends `failed` with a message
 * that names the file and says what was wrong.
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
import { docxDocument, pdfDocument, pptxDeck, xlsxWorkbook } from './support/office-generators.js';
import { startRuntime, type StartedRuntime } from './support/runtime.js';

const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
const PPTX = 'application/vnd.openxmlformats-officedocument.presentationml.presentation';
const DOCX = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'svc-koffice-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const blob = (data: Uint8Array | string, type: string) => new Blob([typeof data === 'string' ? data : Buffer.from(data)], { type });

for (const kind of testDatabaseKinds) {
  describe.runIf(kind.available)(`office formats through the content API on ${kind.kind}`, () => {
    let database: TestDatabase | undefined;
    let storeDb: Db | undefined;
    let store: VectorStore;
    let rt: StartedRuntime;
    const q = '?knowledge_id=office';

    beforeAll(async () => {
      if (kind.kind === 'postgres') {
        database = await kind.create();
        storeDb = database.open();
      }
      store = kind.kind === 'sqlite' ? new SqliteVectorStore({ path: join(dir, 'office.db'), table: 'k_office' }) : new PostgresVectorStore({ db: storeDb!, table: 'k_office' });
      rt = await startRuntime(kind, { knowledge: [new Knowledge({ id: 'office', store })] });
    });
    afterAll(async () => {
      await rt?.stop();
      await store?.close();
      await storeDb?.close();
      await database?.cleanup();
    });

    /** Uploads, waits for the background job, and returns the record id and its final status. */
    async function ingest(file: Blob, fileName: string, fields: Record<string, string> = {}) {
      const res = await upload(rt.url, `/knowledge/content${q}`, { ...fields, file }, fileName);
      expect(res.status, JSON.stringify(res.body)).toBe(202);
      return { id: res.body.id as string, ...(await settled(rt.url, res.body.id, q)) };
    }

    async function search(query: string) {
      const res = await call(rt.url, 'POST', `/knowledge/search${q}`, { body: { query, search_type: 'keyword', max_results: 5 } });
      expect(res.status).toBe(200);
      return res.body.data as { id: string; content_id: string; content: string; meta_data: Record<string, unknown> }[];
    }

    it('ingests an .xlsx: each row is a chunk with its sheet', async () => {
      const xlsx = await xlsxWorkbook((wb) => {
        const sheet = wb.addWorksheet('Inventory');
        sheet.addRow(['item', 'warehouse', 'count']);
        sheet.addRow(['Zirconium kettle', 'Rotterdam', 42]);
        sheet.addRow(['Copper teapot', 'Lisbon', 7]);
      });
      const done = await ingest(blob(xlsx, XLSX), 'inventory.xlsx');
      expect(done.status).toBe('completed');
      const [hit] = await search('zirconium');
      expect(hit).toMatchObject({ content_id: done.id, content: 'Zirconium kettle, Rotterdam, 42', meta_data: { sheet: 'Inventory', sheet_index: 1, row_number: 2 } });
      const record = await call(rt.url, 'GET', `/knowledge/content/${done.id}${q}`);
      expect(record.body).toMatchObject({ status: 'completed', type: 'excel' });
    });

    it('ingests a .pptx: slide text and speaker notes, with the slides each chunk covers', async () => {
      const deck = await pptxDeck([
        { title: 'Roadmap', bullets: ['Launch the quasar dashboard'] },
        { title: 'Risks', table: [['Risk', 'Owner'], ['Supplier delay', 'Mireille']], notes: 'Escalate the heliotrope contract early.' },
      ]);
      const done = await ingest(blob(deck, PPTX), 'roadmap.pptx');
      expect(done.status).toBe('completed');
      const [notes] = await search('heliotrope contract');
      expect(notes?.content_id).toBe(done.id);
      // DocumentChunker keeps the notes on their own line.
      expect(notes?.content).toContain('Speaker notes:\nEscalate the heliotrope contract early.');
      expect(notes?.content).toContain('Supplier delay | Mireille');
      expect(notes?.meta_data).toMatchObject({ slide_start: 1, slide_end: 2 });
    });

    it('ingests a .docx with a table: the table comes out as rows', async () => {
      const docx = await docxDocument([
        { heading: 'Office hours' },
        { table: [['Site', 'Opens'], ['Grenoble', '07:30'], ['Tromsø', '09:00']] },
      ]);
      const done = await ingest(blob(docx, DOCX), 'hours.docx');
      expect(done.status).toBe('completed');
      const [hit] = await search('Grenoble');
      expect(hit?.content_id).toBe(done.id);
      // DocumentChunker keeps line breaks, so the markdown table keeps a row per line.
      expect(hit?.content).toBe('# Office hours\n\n| Site | Opens |\n| --- | --- |\n| Grenoble | 07:30 |\n| Tromsø | 09:00 |');
    });

    it('ingests a CSV as labelled records with reader_id field_labeled_csv', async () => {
      const csv = 'full_name,city\nOrla Brennan,Galway\nTeodor Vass,Szeged\n';
      const done = await ingest(blob(csv, 'text/csv'), 'people.csv', { reader_id: 'field_labeled_csv' });
      expect(done.status).toBe('completed');
      const [hit] = await search('Szeged');
      // One "Label: value" per line, as the reader wrote the record.
      expect(hit).toMatchObject({ content_id: done.id, content: 'Full Name: Teodor Vass\nCity: Szeged', meta_data: { row_index: 1, source: 'field_labeled_csv_reader' } });
    });

    it('ingests a multi-page PDF: a chunk spanning pages says which', async () => {
      const pdf = await pdfDocument([['The obsidian gasket is replaced yearly.'], ['Torque the flange bolts to 40 Nm.'], ['Appendix on lubrication.']]);
      const done = await ingest(blob(pdf, 'application/pdf'), 'manual.pdf');
      expect(done.status).toBe('completed');
      const [hit] = await search('obsidian gasket');
      // A hit's id is its content's id and the chunk's position in it.
      expect(hit).toMatchObject({ content_id: done.id, id: `${done.id}_1`, meta_data: { page_start: 1, page_end: 3 } });
      expect(hit?.content).toBe('The obsidian gasket is replaced yearly.\n\nTorque the flange bolts to 40 Nm.\n\nAppendix on lubrication.');
    });

    it('fails each broken office file with a message saying what was wrong', async () => {
      const xlsx = await xlsxWorkbook((wb) => void wb.addWorksheet('S').addRow(['x']));
      const cases: [Blob, string, string][] = [
        [blob(xlsx.slice(0, xlsx.length - 100), XLSX), 'cut.xlsx', 'excel reader: "cut.xlsx" could not be read as XLSX: it is not a valid zip archive'],
        [blob(new Uint8Array([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1, 1, 2, 3]), 'application/vnd.ms-excel'), 'old.xls', 'excel reader: "old.xls" is an Excel 97-2003 workbook (.xls), which cannot be read'],
        [blob('not a deck', PPTX), 'junk.pptx', 'pptx reader: "junk.pptx" is not a PowerPoint .pptx file (it is not a zip archive)'],
        [blob(new Uint8Array(), PPTX), 'empty.pptx', 'pptx reader: "empty.pptx" is empty (0 bytes)'],
        [blob(new Uint8Array(), DOCX), 'empty.docx', 'docx reader: "empty.docx" is empty (0 bytes)'],
        [blob(new Uint8Array([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1, 9]), 'application/msword'), 'memo.doc', 'docx reader: "memo.doc" is a Word 97-2003 document (.doc), which cannot be read'],
        [blob('%PDF-1.4 garbage', 'application/pdf'), 'broken.pdf', 'pdf reader: "broken.pdf" could not be read as PDF'],
        [blob('full_name\n', 'text/csv'), 'header-only.csv', 'field_labeled_csv reader: "header-only.csv" has a header but no data rows'],
      ];
      for (const [file, name, message] of cases) {
        const done = await ingest(file, name, name.endsWith('.csv') ? { reader_id: 'field_labeled_csv' } : {});
        expect(done, name).toMatchObject({ status: 'failed', status_message: expect.stringContaining(message) });
      }
    });
  });
}
