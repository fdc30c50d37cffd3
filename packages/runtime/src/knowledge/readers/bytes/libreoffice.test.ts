/**
 * The office readers against files written by LibreOffice, when it is installed (Debian's
 * libreoffice-{writer,calc,impress}-nogui): its OOXML differs from the JS writers' (other
 * namespaces in use, formulas stored as TRUE()/FALSE()), and it is the one way here to make real
 * Office 97-2003 files (.doc, .xls, .ppt), which must be refused with a clear message.
 * Skipped when `soffice` is not on the PATH, except under CI=true, where .ci/run installs it and
 * its absence fails the suite rather than passing it silently.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { docxDocument, pptxDeck, xlsxWorkbook } from '../../../../test/support/office-generators.js';
import { RuntimeError } from '../../../errors.js';
import { DocxReader } from './docx.js';
import { ExcelReader } from './excel.js';
import { PptxReader } from './pptx.js';

const hasSoffice = spawnSync('soffice', ['--version'], { stdio: 'ignore' }).status === 0;
const required = process.env.CI === 'true';

let dir: string;

/** Converts the named files in `dir` to `format`, writing into `dir/<format>/`. */
function convert(format: string, files: string[]): void {
  execFileSync('soffice', [`-env:UserInstallation=${pathToFileURL(join(dir, 'profile')).href}`, '--headless', '--convert-to', format, '--outdir', join(dir, format), ...files.map((f) => join(dir, f))], {
    stdio: 'ignore',
    timeout: 120_000,
  });
}

const bytes = (path: string) => new Uint8Array(readFileSync(join(dir, path)));

async function refusal(p: Promise<unknown>): Promise<RuntimeError> {
  const error = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!RuntimeError.isInstance(error)) throw new Error(`expected a RuntimeError, got ${String(error)}`);
  return error;
}

describe.runIf(hasSoffice || required)('office readers on LibreOffice files', () => {
  beforeAll(async () => {
    if (!hasSoffice) throw new Error('CI=true and `soffice` is not on the PATH: .ci/run installs libreoffice-{writer,calc,impress}-nogui');
    dir = mkdtempSync(join(tmpdir(), 'svc-soffice-'));
    writeFileSync(join(dir, 'memo.docx'), await docxDocument([{ heading: 'Memo' }, { table: [['Site', 'Opens'], ['Grenoble', '07:30']] }]));
    writeFileSync(
      join(dir, 'stock.xlsx'),
      await xlsxWorkbook((wb) => {
        const sheet = wb.addWorksheet('Stock');
        sheet.addRow(['item', 'count', 'ok']);
        sheet.addRow(['kettle', 3, { formula: 'B2>5', result: false }]);
      }),
    );
    writeFileSync(join(dir, 'talk.pptx'), await pptxDeck([{ title: 'Agenda', bullets: ['Budget'], notes: 'Keep it short.' }, { title: 'Close' }]));
    // Office 97-2003 files, and the same documents re-saved as LibreOffice's own OOXML.
    // (Not OOXML made back from the 97-2003 files: LibreOffice's .doc export drops a table
    // written without column widths, which would test LibreOffice rather than the reader.)
    convert('doc', ['memo.docx']);
    convert('xls', ['stock.xlsx']);
    convert('ppt', ['talk.pptx']);
    convert('docx', ['memo.docx']);
    convert('xlsx', ['stock.xlsx']);
    convert('pptx', ['talk.pptx']);
  }, 180_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('refuses real .doc, .xls and .ppt files, saying to save them in the new format', async () => {
    const doc = await refusal(new DocxReader().read({ data: bytes('doc/memo.doc'), name: 'memo.doc' }));
    expect([doc.code, doc.message]).toEqual(['VALIDATION_ERROR', expect.stringContaining('"memo.doc" is a Word 97-2003 document (.doc), which cannot be read')]);
    expect(doc.message).toContain('save it as .docx');
    const xls = await refusal(new ExcelReader().read({ data: bytes('xls/stock.xls'), name: 'stock.xls' }));
    expect(xls.message).toContain('"stock.xls" is an Excel 97-2003 workbook (.xls), which cannot be read');
    const ppt = await refusal(new PptxReader().read({ data: bytes('ppt/talk.ppt'), name: 'talk.pptx' }));
    expect(ppt.message).toContain('is a PowerPoint 97-2003 (.ppt) file, which cannot be read; save it as .pptx');
  });

  it("reads LibreOffice's .docx, .xlsx and .pptx", async () => {
    const [doc] = await new DocxReader().read({ data: bytes('docx/memo.docx'), name: 'memo.docx' });
    expect(doc!.content).toBe('# Memo\n\n| Site | Opens |\n| --- | --- |\n| Grenoble | 07:30 |');
    const [sheet] = await new ExcelReader().read({ data: bytes('xlsx/stock.xlsx'), name: 'stock.xlsx' });
    // LibreOffice recalculates and stores the result as a FALSE() formula; FALSE still shows.
    expect(sheet).toMatchObject({ content: 'item, count, ok\nkettle, 3, FALSE', meta_data: { sheet: 'Stock', sheet_index: 1 } });
    const slides = await new PptxReader().read({ data: bytes('pptx/talk.pptx'), name: 'talk.pptx' });
    expect(slides.map((s) => s.content)).toEqual(['Slide 1: Agenda\n\nBudget\n\nSpeaker notes:\nKeep it short.', 'Slide 2: Close']);
  });
});
