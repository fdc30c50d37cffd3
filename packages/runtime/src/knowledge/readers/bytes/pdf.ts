/**
 * @module knowledge/readers/bytes/pdf
 * PDF: one Document per page (`meta_data.page`, 1-based), text extracted with unpdf (a
 * serverless build of PDF.js, pure JS). Line breaks inside a paragraph become spaces and blank
 * lines are kept, as agno's sanitising does. unpdf is imported on first use, so a runtime that
 * never reads a PDF does not load PDF.js.
 */
import { unprocessable } from '../../../errors.js';
import type { Document, ReaderInput } from '../../types.js';
import { sharedOffload, type Offload } from '../../../workers/offload.js';
import { readInWorker, type ReadPayload } from './offloaded.js';
import { stem, type ReadOptions, type Reader } from '../reader.js';

export interface PdfReaderOptions {
  /** Where parsing runs; default the process's worker pool (see workers/offload). */
  offload?: Offload;
}

export class PdfReader implements Reader {
  readonly id = 'pdf';
  readonly name = 'PdfReader';
  readonly description = 'Reads PDF files, one document per page (text layer only; the converter OCRs scanned pages)';
  readonly chunkers = ['DocumentChunker', 'AgenticChunker', 'FixedSizeChunker', 'RecursiveChunker', 'SemanticChunker'] as const;
  readonly contentTypes = ['.pdf', 'application/pdf'] as const;
  /** Pages are chunked as one text; chunks carry page_start/page_end (and page on one page). */
  readonly pagedBy = 'page';
  private readonly offload: Offload | undefined;

  constructor(options: PdfReaderOptions = {}) {
    this.offload = options.offload;
  }

  async read(input: ReaderInput, options?: ReadOptions): Promise<Document[]> {
    const where = this.offload ?? sharedOffload();
    if (where !== 'inline') return readInWorker(where, 'pdf', input, options);
    if (typeof input.data === 'string') throw unprocessable(`pdf reader: "${input.name}" must be given as file bytes, not text`);
    if (input.data.length === 0) throw unprocessable(`pdf reader: "${input.name}" is empty`);
    const { pdf, pages } = await pdfTextPages(input.data, input.name, this.id);
    await pdf.destroy().catch(() => undefined);
    const name = stem(input.name);
    const docs = pages
      .map((content, i) => ({ content, name, id: `${name}_${i + 1}`, meta_data: { page: i + 1 } }))
      .filter((doc) => doc.content.length > 0);
    // A scanned PDF has pages but no text layer; storing nothing silently would hide that.
    if (docs.length === 0) throw unprocessable(`pdf reader: "${input.name}" has no extractable text (a scanned PDF needs OCR: upload it with reader_id converter)`);
    return docs;
  }
}

/**
 * Opens a PDF and extracts each page's text layer, sanitised (empty for a page without one).
 * The document stays open for callers that render pages (the converter's OCR).
 */
/** An open PDF.js document. */
export type PdfDocument = Awaited<ReturnType<typeof import('unpdf').getDocumentProxy>>;

export async function pdfTextPages(data: Uint8Array, fileName: string, readerId: string): Promise<{ pdf: PdfDocument; pages: string[] }> {
  const { extractText, getDocumentProxy } = await import('unpdf');
  try {
    // PDF.js may transfer (detach) the buffer it is given, so it gets a copy; verbosity 0
    // keeps its recovery warnings ("Indexing all PDF objects") out of the runtime's output.
    const pdf = await getDocumentProxy(new Uint8Array(data), { verbosity: 0 });
    const pages = (await extractText(pdf, { mergePages: false })).text.map(sanitize);
    return { pdf, pages };
  } catch (cause) {
    const reason = cause instanceof Error ? cause.message : String(cause);
    throw unprocessable(`${readerId} reader: "${fileName}" could not be read as PDF (${reason})`, cause);
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

/** The worker task (see offloaded.ts): this reader, inline, in a worker thread. */
export function readInline(payload: ReadPayload): Promise<Document[]> {
  return new PdfReader({ offload: 'inline' }).read({ data: payload.data, name: payload.name });
}
