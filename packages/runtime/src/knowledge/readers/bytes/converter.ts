/**
 * @module knowledge/readers/bytes/converter
 * `converter` (ConverterReader): one entry point for every format the spec's content-type map
 * sends to it, each converted to markdown documents with `meta_data.format` (the format found
 * in the bytes) and, where known, `page`, `slide`, `sheet`, `chapter` or `member`:
 *
 * | family | formats | how |
 * | --- | --- | --- |
 * | Word | docx dotx docm dotm | the docx reader (mammoth + turndown) |
 * | PowerPoint | pptx potx ppsx pptm ppsm potm | the pptx reader, a `## Slide N` heading per slide |
 * | Excel | xlsx xlsm (and templates) | the excel reader's cells, a markdown table per sheet |
 * | CSV, markdown, text | csv md txt | a markdown table; as is |
 * | PDF | pdf | the pdf reader's text layer; OCR of pages without one (rendered with PDF.js on @napi-rs/canvas) |
 * | HTML | html htm xhtml | the html reader (Readability + turndown) |
 * | XML | xml nxml xbrl | JATS papers, XBRL facts, or an outline of any XML (converter/xml.ts) |
 * | AsciiDoc | adoc asciidoc asc | Asciidoctor.js in secure mode, then turndown |
 * | LaTeX | tex latex | our own converter (converter/latex.ts) |
 * | captions | vtt | timestamped lines |
 * | archives | tar.gz | each member by its own format, bounded (converter/tar.ts) |
 * | books | epub | chapters in spine order |
 * | images | png jpeg jpg tiff tif bmp webp | OCR with tesseract.js, English data from npm |
 * | audio, video | wav mp3 m4a aac ogg flac mp4 avi mov | an OpenAI-compatible transcription API (TRANSCRIPTION_*) |
 *
 * The real format comes from the bytes (converter/sniff.ts), not the name. All conversion runs
 * in a worker process of the conversion pool (workers/pool.ts), off the event loop and out of the
 * runtime's process, with its time, memory and stack limits; audio and video are sent to the transcription service from the main thread, as
 * is media found in an archive. What an archive or book left out is reported as notes, which
 * end up on the content record.
 */
import { unprocessable } from '../../../errors.js';
import type { Document, ReaderInput } from '../../types.js';
import { sharedOffload, type Offload } from '../../../workers/offload.js';
import { convertFile, type ConvertPayload, type ConvertResult } from './converter/convert.js';
import { readConverterSettings, type ConverterSettings } from '../../../settings/converter.js';
import { MEDIA_FORMATS, sniffSignature } from './converter/sniff.js';
import { noTranscriptionService, transcribe } from './converter/transcribe.js';
import type { ReadOptions, Reader } from '../reader.js';
import type { ChunkerType } from '../../chunkers/list.js';
import { defineWorkerTask } from '../../../workers/task.js';

// Untrusted bytes of every format: in a worker process, whose memory the pool bounds.
const CONVERT = defineWorkerTask('convert', import.meta.url, './converter/convert.js', 'convertTask', { isolation: 'process' });

/** The extensions of the spec's map that list `converter`, in the map's order. */
export const CONVERTER_EXTENSIONS = [
  '.csv', '.xlsx', '.docx', '.pptx', '.md', '.pdf',
  '.dotx', '.docm', '.dotm', '.potx', '.ppsx', '.pptm', '.ppsm', '.potm', '.html', '.htm', '.xhtml', '.xml', '.nxml', '.xbrl', '.adoc', '.asciidoc', '.asc', '.xlsm', '.tex', '.latex', '.tar.gz', '.vtt',
  '.png', '.jpeg', '.jpg', '.tiff', '.tif', '.bmp', '.webp', '.wav', '.mp3', '.m4a', '.aac', '.ogg', '.flac', '.mp4', '.avi', '.mov',
] as const;

/** Also read when picked by name or MIME type, though the spec's map does not list them. */
const ALSO_READS = [
  '.epub', 'application/epub+zip', '.tgz', '.tar', '.markdown', '.xltx', '.xltm',
  'image/png', 'image/jpeg', 'image/tiff', 'image/bmp', 'image/webp',
  'audio/wav', 'audio/x-wav', 'audio/wave', 'audio/mpeg', 'audio/mp4', 'audio/x-m4a', 'audio/aac', 'audio/ogg', 'audio/flac', 'audio/x-flac', 'video/mp4', 'video/quicktime', 'video/x-msvideo',
  'text/vtt', 'text/x-tex', 'application/x-tex', 'application/x-latex', 'text/asciidoc', 'text/x-asciidoc', 'application/xml', 'text/xml', 'application/gzip', 'application/x-gzip', 'application/x-tar',
] as const;

export interface ConverterReaderOptions {
  /** Default: from the environment (see converter/settings). */
  settings?: ConverterSettings;
  /** Where conversion runs; default the process's worker pool. `inline` runs it on the calling thread. */
  offload?: Offload;
  /** Time limit of one conversion in the pool; default the pool's. */
  timeoutMs?: number;
}

export class ConverterReader implements Reader {
  readonly id = 'converter';
  readonly name = 'ConverterReader';
  readonly description =
    'Converts many document, image and other formats to markdown: Office, PDF (with OCR of scanned pages), HTML, XML, AsciiDoc, LaTeX, WebVTT, EPUB, .tar.gz archives, images (OCR) and audio/video (transcription)';
  readonly chunkers: readonly ChunkerType[] = ['DocumentChunker', 'AgenticChunker', 'CodeChunker', 'FixedSizeChunker', 'RecursiveChunker', 'SemanticChunker'];
  readonly contentTypes = CONVERTER_EXTENSIONS;
  readonly alsoReads = ALSO_READS;
  readonly fallback = true;
  /** A PDF's pages are chunked as one text; other documents one by one. */
  readonly pagedBy = 'page';
  private readonly settings: ConverterSettings;
  private readonly offload: Offload | undefined;
  private readonly timeoutMs: number | undefined;

  constructor(options: ConverterReaderOptions = {}) {
    this.settings = options.settings ?? readConverterSettings();
    this.offload = options.offload;
    this.timeoutMs = options.timeoutMs;
  }

  async read(input: ReaderInput, options: ReadOptions = {}): Promise<Document[]> {
    const data = typeof input.data === 'string' ? new TextEncoder().encode(input.data) : input.data;
    if (data.byteLength === 0) throw unprocessable(`converter reader: "${input.name}" is empty (0 bytes)`);
    const signature = sniffSignature(data, input.name);
    if (signature && MEDIA_FORMATS.has(signature)) {
      const doc = await transcribe(this.settings.transcription, { fileName: input.name, format: signature, data }, options.signal);
      return [{ ...doc, meta_data: { format: signature, ...doc.meta_data } }];
    }
    const result = await this.convert(data, input.name, options.signal);
    options.notes?.push(...result.notes);
    const documents = [...result.documents];
    for (const item of result.media) {
      if (!this.settings.transcription.baseUrl) {
        options.notes?.push(noTranscriptionService(item.path, item.format).message.replace(/^converter reader: /, ''));
        continue;
      }
      try {
        const doc = await transcribe(this.settings.transcription, { fileName: item.path, format: item.format, data: item.data }, options.signal);
        const id = item.path.replace(/\.[^./]+$/, '');
        documents.push({ ...doc, id, meta_data: { format: item.format, ...doc.meta_data, member: item.path } });
      } catch (error) {
        if (options.signal?.aborted) throw error;
        options.notes?.push((error instanceof Error ? error.message : String(error)).replace(/^converter reader: /, ''));
      }
    }
    if (documents.length === 0) {
      const why = result.notes.length > 0 ? ` (${result.notes.slice(0, 5).join('; ')})` : '';
      throw unprocessable(`converter reader: "${input.name}" gave no text${why}`);
    }
    return documents;
  }

  private convert(data: Uint8Array, name: string, signal: AbortSignal | undefined): Promise<ConvertResult> {
    const where = this.offload ?? sharedOffload();
    if (where === 'inline') return convertFile(data, name, this.settings.limits, undefined);
    // A copy the worker can own (moving a view would move, or clone, its whole backing buffer).
    // Not data.slice(): on a Buffer that is a view, and moving it would empty the caller's Buffer.
    const own = new Uint8Array(data);
    const payload: ConvertPayload = { name, data: own, limits: this.settings.limits };
    return where.run<ConvertResult>(CONVERT, payload, { signal, label: `converter reader: "${name}"`, transfer: [own.buffer as ArrayBuffer], timeoutMs: this.timeoutMs });
  }
}
