/**
 * @module knowledge/readers/registry
 * The readers this runtime provides, lookup by id or by file name, and the content-type map
 * `/knowledge/config` reports. Only readers that need no third-party service are registered;
 * the crawling and search readers (website, search, video...) are not offered rather than
 * offered and failing. A single URL is fetched by the Knowledge (`insert({ url })`) and read
 * by the reader its content type picks; `html` is the default for web pages.
 */
import { badRequest } from '../errors.js';
import { CsvReader } from './csv.js';
import { DocxReader } from './docx.js';
import { ExcelReader } from './excel.js';
import { FieldLabeledCsvReader } from './field-labeled-csv.js';
import { HtmlReader } from './html.js';
import { JsonReader } from './json.js';
import { MarkdownReader } from './markdown.js';
import { PdfReader } from './pdf.js';
import { PptxReader } from './pptx.js';
import { extension, type Reader } from './reader.js';
import { TextReader } from './text.js';

export function defaultReaders(): Reader[] {
  // Order matters where readers share a type: the first is the default (`.csv` -> csv).
  return [
    new TextReader(),
    new MarkdownReader(),
    new JsonReader(),
    new CsvReader(),
    new FieldLabeledCsvReader(),
    new PdfReader(),
    new DocxReader(),
    new ExcelReader(),
    new PptxReader(),
    new HtmlReader(),
  ];
}

/** `CSV`, `csv_reader`, `CsvReader` and `csv-reader` all name the `csv` reader. */
export function normalizeReaderId(id: string): string {
  const snake = id
    .trim()
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toLowerCase()
    .replace(/[\s-]+/g, '_');
  return snake.replace(/_?reader$/, '') || snake;
}

export class ReaderRegistry {
  private readonly byId = new Map<string, Reader>();

  constructor(readers: readonly Reader[] = defaultReaders()) {
    for (const reader of readers) this.byId.set(reader.id, reader);
  }

  list(): Reader[] {
    return [...this.byId.values()];
  }

  get(id: string): Reader {
    const reader = this.byId.get(id) ?? this.byId.get(normalizeReaderId(id));
    if (!reader) throw badRequest(`Unknown reader "${id}"; available: ${[...this.byId.keys()].join(', ')}`);
    return reader;
  }

  /** By extension, then MIME type; anything unrecognised is read as text (agno's rule). */
  forFile(name: string, mimeType?: string): Reader {
    const ext = extension(name);
    const keys = [ext, mimeType?.split(';')[0]?.trim().toLowerCase()].filter((k): k is string => Boolean(k));
    for (const key of keys) {
      const reader = this.list().find((r) => r.contentTypes.includes(key));
      if (reader) return reader;
    }
    return this.get('text');
  }

  /** By MIME type alone (a fetched URL's content type); undefined when no reader claims it. */
  forMimeType(mimeType: string | undefined): Reader | undefined {
    const key = mimeType?.split(';')[0]?.trim().toLowerCase();
    if (!key) return undefined;
    return this.list().find((r) => r.contentTypes.includes(key));
  }

  /** Content kind, extension or MIME type -> ids of the readers that handle it, in order. */
  readersForType(): Record<string, string[]> {
    const map: Record<string, string[]> = {};
    for (const reader of this.list()) {
      for (const type of reader.contentTypes) (map[type] ??= []).push(reader.id);
    }
    return map;
  }
}
