/**
 * @module knowledge/readers/bytes/docx
 * Word .docx as one Document of markdown: mammoth converts the document to HTML (Word's
 * heading styles become h1-h6), and turndown writes it as markdown with our rules: headings as
 * `#`, lists as `-` / `1.`, and tables as markdown tables, one row per line with the first row
 * as the header:
 *
 * ```
 * | Region | Sales |
 * | --- | --- |
 * | North | 120 |
 * ```
 *
 * Emphasis is written as plain text, images are left out (mammoth would inline them as base64),
 * links inside the document (footnote references and their back-links) are reduced to their
 * text, and markdown characters in the text are not backslash-escaped: this is text to search
 * and quote, not markdown to round-trip.
 *
 * Legacy `.doc` (Word 97-2003, an OLE2 binary) is claimed, as in the spec's content-type map,
 * only to refuse it clearly with advice to save as .docx: mammoth cannot read it, and the one
 * pure-JS reader on npm (word-extractor 1.0.4) is unmaintained since 2021 and can loop forever
 * on a cyclic sector chain in a crafted file. A `.doc` that really is a .docx is read.
 * mammoth and turndown are imported on first use.
 *
 * mammoth reads the parts through our zip reader (zip-archive.ts), not its own JSZip: every
 * part it reads is inflated within the content limits (the XML part limit included, since
 * mammoth parses each part whole), and pictures are never inflated.
 */
import type TurndownService from 'turndown';
import { RuntimeError, unprocessable } from '../../../errors.js';
import { DEFAULT_CONTENT_LIMITS, type ContentLimits } from '../../../settings/content-limits.js';
import type { Document, ReaderInput } from '../../types.js';
import { encryptedRefusal, isEncryptedOoxml, isOle, isZip, openZip, requireBytes, type ZipArchive } from './office-zip.js';
import { sharedOffload, type Offload } from '../../../workers/offload.js';
import { readInWorker, type ReadPayload } from './offloaded.js';
import { requireContent, stem, type ReadOptions, type Reader } from '../reader.js';

export interface DocxReaderOptions {
  /** Where parsing runs; default the process's worker pool (see workers/offload). */
  offload?: Offload;
  /** Inflation budgets; default the built-in ones (the registry passes the environment's). */
  limits?: ContentLimits;
}

const DOCX_MIME = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';

export class DocxReader implements Reader {
  readonly id = 'docx';
  readonly name = 'DocxReader';
  readonly description = 'Reads Word .docx files as one markdown document with headings, lists and tables (.doc is refused: save it as .docx)';
  readonly chunkers = ['DocumentChunker', 'AgenticChunker', 'FixedSizeChunker', 'RecursiveChunker', 'SemanticChunker'] as const;
  readonly contentTypes = ['.docx', DOCX_MIME, '.doc', 'application/msword'] as const;
  private readonly offload: Offload | undefined;
  private readonly limits: ContentLimits;

  constructor(options: DocxReaderOptions = {}) {
    this.offload = options.offload;
    this.limits = options.limits ?? DEFAULT_CONTENT_LIMITS;
  }

  async read(input: ReaderInput, options?: ReadOptions): Promise<Document[]> {
    const where = this.offload ?? sharedOffload();
    if (where !== 'inline') return readInWorker(where, 'docx', input, options, { limits: this.limits });
    const data = requireBytes(input, this.id);
    if (isEncryptedOoxml(data)) throw encryptedRefusal(input, this.id);
    if (isOle(data)) {
      throw unprocessable(
        `docx reader: "${input.name}" is a Word 97-2003 document (.doc), which cannot be read (no maintained library reads that format); open it in Word or LibreOffice, save it as .docx and upload that`,
      );
    }
    if (!isZip(data)) throw unprocessable(`docx reader: "${input.name}" could not be read as DOCX: it is not a Word .docx file (not a zip archive)`);
    const zip = openZip(data, input, this.id, 'DOCX', this.limits);
    const [{ default: mammoth }, turndown] = await Promise.all([import('mammoth'), markdownWriter()]);
    let html: string;
    try {
      const result = await mammoth.convertToHtml(
        // mammoth opens `file` as it is (its own zip interface); the type only lists path and buffer.
        { file: mammothZip(zip) } as unknown as { buffer: Buffer },
        // No base64 copies of pictures in the text.
        { convertImage: mammoth.images.imgElement(() => Promise.resolve({ src: '' })) },
      );
      html = result.value;
    } catch (cause) {
      // A budget or a damaged part, already named by the zip reader.
      if (RuntimeError.isInstance(cause)) throw cause;
      const reason = cause instanceof Error ? cause.message : String(cause);
      throw unprocessable(`docx reader: "${input.name}" could not be read as DOCX (${reason})`, cause);
    }
    const content = turndown
      .turndown(html)
      .replace(/[ \t]+\n/g, '\n')
      .replace(/\n{3,}/g, '\n\n')
      .trim();
    requireContent(content, input, this.id);
    const name = stem(input.name);
    return [{ content, name, id: name, meta_data: {} }];
  }
}

/** mammoth's zip interface (its lib/zipfile.js) over our bounded reader: read-only, every part parsed whole. */
function mammothZip(zip: ZipArchive) {
  return {
    exists: (name: string) => zip.has(name),
    read: async (name: string, encoding?: string) => {
      const bytes = await zip.read(name, { xml: true });
      if (bytes === undefined) throw new Error(`the part ${name} is missing`);
      if (encoding === 'base64') return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
      return encoding ? new TextDecoder(encoding).decode(bytes) : bytes;
    },
    write: () => {
      throw new Error('the document is read-only');
    },
    toArrayBuffer: () => Promise.reject(new Error('the document is read-only')),
  };
}

let writer: Promise<TurndownService> | undefined;

/** One configured turndown, built on first use (its rules hold no state between documents). */
export function markdownWriter(): Promise<TurndownService> {
  writer ??= import('turndown').then(({ default: Turndown }) => {
    const service = new Turndown({ headingStyle: 'atx', bulletListMarker: '-', codeBlockStyle: 'fenced' });
    service.escape = (text: string) => text;
    service.addRule('plainEmphasis', { filter: ['strong', 'b', 'em', 'i', 'u'], replacement: (content) => content });
    service.addRule('internalLink', {
      filter: (node) => node.nodeName === 'A' && (node.getAttribute('href') ?? '').startsWith('#'),
      // A footnote's back-link is an arrow; a reference keeps its number.
      replacement: (content) => (content.trim() === '↑' ? '' : content),
    });
    service.addRule('tableSection', { filter: ['thead', 'tbody', 'tfoot'], replacement: (content) => content });
    service.addRule('tableCell', {
      filter: ['th', 'td'],
      replacement: (content, node) => {
        const text = content.replace(/\s+/g, ' ').trim().replaceAll('|', '\\|');
        const span = Number((node as unknown as DomNode).getAttribute?.('colspan') ?? '1');
        // A merged cell keeps the columns after it aligned.
        return ` ${text} |${' |'.repeat(Number.isInteger(span) && span > 1 ? Math.min(span, 64) - 1 : 0)}`;
      },
    });
    service.addRule('tableRow', {
      filter: 'tr',
      replacement: (content, node) => {
        const row = `|${content}\n`;
        if (node !== firstRow(node as unknown as DomNode)) return row;
        const columns = (content.match(/(?<!\\)\|/g) ?? []).length;
        return `${row}|${' --- |'.repeat(Math.max(columns, 1))}\n`;
      },
    });
    service.addRule('table', { filter: 'table', replacement: (content) => `\n\n${content.trim()}\n\n` });
    return service;
  });
  return writer;
}

/** What the rules use of turndown's DOM nodes (the runtime compiles without the DOM library). */
interface DomNode {
  nodeName: string;
  parentNode: DomNode | null;
  childNodes: ArrayLike<DomNode>;
  getAttribute?(name: string): string | null;
}

/** The first row of the table a row belongs to (its header row in the markdown). */
function firstRow(row: DomNode): DomNode | undefined {
  let table = row.parentNode;
  while (table && table.nodeName !== 'TABLE') table = table.parentNode;
  const find = (node: DomNode): DomNode | undefined => {
    for (const c of Array.from(node.childNodes)) {
      if (c.nodeName === 'TR') return c;
      // A nested table's rows are not this table's.
      if (c.nodeName !== 'TABLE') {
        const found = find(c);
        if (found) return found;
      }
    }
    return undefined;
  };
  return table ? find(table) : undefined;
}

/** The worker task (see offloaded.ts): this reader, inline, in a worker thread. */
export function readInline(payload: ReadPayload): Promise<Document[]> {
  return new DocxReader({ ...payload.options, offload: 'inline' }).read({ data: payload.data, name: payload.name });
}
