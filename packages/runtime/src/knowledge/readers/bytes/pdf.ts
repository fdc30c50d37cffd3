/**
 * @module knowledge/readers/bytes/pdf
 * PDF: one Document per page (`meta_data.page`, 1-based), text extracted with unpdf (a
 * serverless build of PDF.js, pure JS). Line breaks inside a paragraph become spaces and blank
 * lines are kept, as agno's sanitising does. unpdf is imported on first use, so a runtime that
 * never reads a PDF does not load PDF.js.
 *
 * Before PDF.js sees the file its streams are measured (pdf-scan.ts): a stream that decodes past
 * `KNOWLEDGE_MAX_PART_MB`, or streams past `KNOWLEDGE_MAX_INFLATED_MB` in all, refuse the file,
 * since PDF.js would decode them whole.
 */
import { RuntimeError, unprocessable } from '../../../errors.js';
import { DEFAULT_CONTENT_LIMITS, type ContentLimits } from '../../../settings/content-limits.js';
import type { Document, ReaderInput } from '../../types.js';
import { scanPdf, type PdfImage } from './pdf-scan.js';
import { sharedOffload, type Offload } from '../../../workers/offload.js';
import { readInWorker, type ReadPayload } from './offloaded.js';
import { stem, type ReadOptions, type Reader } from '../reader.js';

export interface PdfReaderOptions {
  /** Where parsing runs; default the process's worker pool (see workers/offload). */
  offload?: Offload;
  /** Decoding budgets; default the built-in ones (the registry passes the environment's). */
  limits?: ContentLimits;
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
  private readonly limits: ContentLimits;

  constructor(options: PdfReaderOptions = {}) {
    this.offload = options.offload;
    this.limits = options.limits ?? DEFAULT_CONTENT_LIMITS;
  }

  async read(input: ReaderInput, options?: ReadOptions): Promise<Document[]> {
    const where = this.offload ?? sharedOffload();
    if (where !== 'inline') return readInWorker(where, 'pdf', input, options, { limits: this.limits });
    if (typeof input.data === 'string') throw unprocessable(`pdf reader: "${input.name}" must be given as file bytes, not text`);
    if (input.data.length === 0) throw unprocessable(`pdf reader: "${input.name}" is empty`);
    const { pdf, pages } = await pdfTextPages(input.data, input.name, this.id, this.limits);
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

/** An open PDF.js document. */
export type PdfDocument = Awaited<ReturnType<typeof import('unpdf').getDocumentProxy>>;

/**
 * Measures the PDF's streams within `limits`, opens it and extracts each page's text layer,
 * sanitised (empty for a page without one). The document stays open for callers that render
 * pages (the converter's OCR), with the file's image XObjects and their declared sizes;
 * `maxImagePixels` makes PDF.js leave out, undecoded, any image whose dictionary declares more.
 */
export async function pdfTextPages(
  data: Uint8Array,
  fileName: string,
  readerId: string,
  limits: ContentLimits,
  maxImagePixels?: number,
): Promise<{ pdf: PdfDocument; pages: string[]; images: PdfImage[] }> {
  const { extractText, getDocumentProxy } = await import('unpdf');
  const { images } = await scanPdf(data, limits, `${readerId} reader: "${fileName}"`);
  try {
    // PDF.js may transfer (detach) the buffer it is given, so it gets a copy; verbosity 0
    // keeps its recovery warnings ("Indexing all PDF objects") out of the runtime's output.
    const pdf = await getDocumentProxy(new Uint8Array(data), { verbosity: 0, ...(maxImagePixels === undefined ? {} : { maxImageSize: maxImagePixels }) });
    const pages = (await extractText(pdf, { mergePages: false })).text.map(sanitize);
    return { pdf, pages, images };
  } catch (cause) {
    if (RuntimeError.isInstance(cause)) throw cause;
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
  return new PdfReader({ ...payload.options, offload: 'inline' }).read({ data: payload.data, name: payload.name });
}
