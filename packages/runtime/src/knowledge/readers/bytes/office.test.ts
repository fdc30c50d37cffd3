import { describe, expect, it } from 'vitest';
import { docxWithParagraphs, pdfWithPages, zip } from '../../../../test/support/office-fixtures.js';
import { RuntimeError } from '../../../errors.js';
import { DocxReader } from './docx.js';
import { PdfReader } from './pdf.js';

async function refusal(p: Promise<unknown>): Promise<RuntimeError> {
  const error = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!RuntimeError.isInstance(error)) throw new Error(`expected a RuntimeError, got ${String(error)}`);
  return error;
}

describe('PdfReader', () => {
  it('reads one document per page, joining the lines of a paragraph', async () => {
    const data = pdfWithPages([['Vector search', 'in PostgreSQL (pgvector).'], ['Second page text.']]);
    const docs = await new PdfReader().read({ data, name: 'papers/guide.pdf' });
    expect(docs.map((d) => [d.id, d.meta_data.page])).toEqual([
      ['guide_1', 1],
      ['guide_2', 2],
    ]);
    expect(docs[0]!.content).toBe('Vector search in PostgreSQL (pgvector).');
    expect(docs[1]!.content).toBe('Second page text.');
  });

  it('refuses text input, empty bytes, non-PDF bytes and PDFs without text', async () => {
    expect((await refusal(new PdfReader().read({ data: 'hello', name: 'a.pdf' }))).code).toBe('VALIDATION_ERROR');
    expect((await refusal(new PdfReader().read({ data: new Uint8Array(), name: 'a.pdf' }))).code).toBe('VALIDATION_ERROR');
    const garbage = await refusal(new PdfReader().read({ data: new TextEncoder().encode('not a pdf at all'), name: 'b.pdf' }));
    expect([garbage.code, garbage.message]).toEqual(['VALIDATION_ERROR', expect.stringContaining('could not be read as PDF')]);
    const blank = await refusal(new PdfReader().read({ data: pdfWithPages([[]]), name: 'scan.pdf' }));
    expect(blank.message).toContain('no extractable text');
  });
});

describe('DocxReader', () => {
  it('reads the paragraphs as one document', async () => {
    const docs = await new DocxReader().read({ data: docxWithParagraphs(['Title & intro', 'Second paragraph.']), name: 'report.docx' });
    expect(docs).toEqual([{ content: 'Title & intro\n\nSecond paragraph.', name: 'report', id: 'report', meta_data: {} }]);
  });

  it('refuses non-DOCX bytes, a zip without a document, and an empty document', async () => {
    expect((await refusal(new DocxReader().read({ data: new TextEncoder().encode('plain'), name: 'x.docx' }))).message).toContain('could not be read as DOCX');
    expect((await refusal(new DocxReader().read({ data: zip({ 'a.txt': 'x' }), name: 'y.docx' }))).code).toBe('VALIDATION_ERROR');
    expect((await refusal(new DocxReader().read({ data: docxWithParagraphs([]), name: 'z.docx' }))).code).toBe('VALIDATION_ERROR');
  });
});
