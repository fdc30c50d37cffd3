/**
 * @module knowledge/readers/pdf
 * PDF: one Document per page (`meta_data.page`, 1-based), text extracted with unpdf (a
 * serverless build of PDF.js, pure JS). Line breaks inside a paragraph become spaces and blank
 * lines are kept, as agno's sanitising does. unpdf is imported on first use, so a runtime that
 * never reads a PDF does not load PDF.js.
 */
import { unprocessable } from '../errors.js';
import type { Document, ReaderInput } from '../types.js';
import { stem, type Reader } from './reader.js';

export class PdfReader implements Reader {
  readonly id = 'pdf';
  readonly name = 'PdfReader';
  readonly description = 'Reads PDF files, one document per page (text layer only, no OCR)';
  readonly chunkers = ['DocumentChunker', 'AgenticChunker', 'FixedSizeChunker', 'RecursiveChunker', 'SemanticChunker'] as const;
  readonly contentTypes = ['.pdf', 'application/pdf'] as const;
  /** Pages are chunked as one text; chunks carry page_start/page_end (and page on one page). */
  readonly pagedBy = 'page';

  async read(input: ReaderInput): Promise<Document[]> {
    if (typeof input.data === 'string') throw unprocessable(`pdf reader: "${input.name}" must be given as file bytes, not text`);
    if (input.data.length === 0) throw unprocessable(`pdf reader: "${input.name}" is empty`);
    const { extractText, getDocumentProxy } = await import('unpdf');
    let pages: string[];
    try {
      // PDF.js may transfer (detach) the buffer it is given, so it gets a copy; verbosity 0
      // keeps its recovery warnings ("Indexing all PDF objects") out of the runtime's output.
      const pdf = await getDocumentProxy(new Uint8Array(input.data), { verbosity: 0 });
      pages = (await extractText(pdf, { mergePages: false })).text;
    } catch (cause) {
      const reason = cause instanceof Error ? cause.message : String(cause);
      throw unprocessable(`pdf reader: "${input.name}" could not be read as PDF (${reason})`, cause);
    }
    const name = stem(input.name);
    const docs = pages
      .map((text, i) => ({ content: sanitize(text), name, id: `${name}_${i + 1}`, meta_data: { page: i + 1 } }))
      .filter((doc) => doc.content.length > 0);
    // A scanned PDF has pages but no text layer; storing nothing silently would hide that.
    if (docs.length === 0) throw unprocessable(`pdf reader: "${input.name}" has no extractable text (scanned PDFs need OCR, which is not available)`);
    return docs;
  }
}

function sanitize(text: string): string {
  return text
    .replace(/\n[ \t]*\n/g, '\u0000')
    .replace(/\s*\n\s*/g, ' ')
    .replaceAll('\u0000', '\n\n')
    .replace(/[ \t]+/g, ' ')
    .trim();
}
