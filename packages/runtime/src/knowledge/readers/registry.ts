/**
 * @module knowledge/readers/registry
 * The readers this runtime provides, lookup by id or by file name, and the content-type map
 * `/knowledge/config` reports. Byte readers (text ... html) read file content; source readers
 * read a location or topic: `url` (one page, read by the reader its content type picks; `html`
 * for web pages), `website`, `crawler`, `video_site`, `web_search`, `preprint` and `bucket`.
 * The source readers are configured from the environment (see settings/sources); one whose
 * service is not configured is still offered, and an upload that needs it fails with a message
 * naming the setting to set.
 */
import { badRequest } from '../../errors.js';
import { BucketReader } from './sources/bucket.js';
import { ConverterReader } from './bytes/converter.js';
import { readConverterSettings } from '../../settings/converter.js';
import { readContentLimits } from '../../settings/content-limits.js';
import { CrawlerReader } from './sources/crawler.js';
import { CsvReader } from './bytes/csv.js';
import { DocxReader } from './bytes/docx.js';
import { ExcelReader } from './bytes/excel.js';
import { FieldLabeledCsvReader } from './bytes/field-labeled-csv.js';
import { HtmlReader } from './bytes/html.js';
import { JsonReader } from './bytes/json.js';
import { MarkdownReader } from './bytes/markdown.js';
import { PdfReader } from './bytes/pdf.js';
import { PptxReader } from './bytes/pptx.js';
import { PreprintReader } from './sources/preprint.js';
import { extension, type Reader } from './reader.js';
import { isSourceReader } from './sources/source-reader.js';
import { readSourceSettings } from '../../settings/sources.js';
import type { Environment } from '../../settings/environment.js';
import { readWorkerSettings } from '../../settings/workers.js';
import { TextReader } from './bytes/text.js';
import { UrlReader } from './sources/url.js';
import { VideoSiteReader } from './sources/video-site.js';
import { WebSearchReader } from './sources/web-search.js';
import { WebsiteReader } from './sources/website.js';

/**
 * Every reader, the source readers and the converter configured from `env` (process.env by
 * default). The order is the order of `readersForType`: `url` lists url, website, crawler,
 * video_site, web_search, bucket; `.csv` lists csv, field_labeled_csv, converter.
 */
export function defaultReaders(env: Environment = process.env): Reader[] {
  const settings = readSourceSettings(env);
  // The conversion pool is shared by the process and configured from process.env on first use;
  // a malformed KNOWLEDGE_WORKER* value still fails here, at startup.
  readWorkerSettings(env);
  const limits = readContentLimits(env);
  return [
    new TextReader(),
    new MarkdownReader(),
    new JsonReader(),
    new CsvReader(),
    new FieldLabeledCsvReader(),
    new PdfReader({ limits }),
    new DocxReader({ limits }),
    new ExcelReader({ limits }),
    new PptxReader({ limits }),
    new HtmlReader(),
    // After every byte reader whose types it shares, so each list names the format's own reader
    // first (`.pptx`: pptx, converter; `.html`: html, converter), as knowledge-spec.ts documents.
    new ConverterReader({ settings: readConverterSettings(env) }),
    new UrlReader(),
    new WebsiteReader(settings.website),
    new CrawlerReader(settings.firecrawl),
    new VideoSiteReader(settings.video),
    new WebSearchReader(settings.webSearch),
    new PreprintReader(settings.arxiv),
    new BucketReader(settings.s3),
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

  /**
   * By extension, then MIME type; anything unrecognised is read as text (agno's rule). A
   * format's own reader comes before a `fallback` one (the converter), whatever the order.
   */
  forFile(name: string, mimeType?: string): Reader {
    const ext = extension(name);
    // `.tar.gz` is one extension for the content-type map.
    const double = /\.tar\.gz$/i.test(name) ? ['.tar.gz'] : [];
    const keys = [...double, ext, mimeType?.split(';')[0]?.trim().toLowerCase()].filter((k): k is string => Boolean(k));
    for (const key of keys) {
      const reader = this.claiming(key);
      if (reader) return reader;
    }
    return this.get('text');
  }

  /** By MIME type alone (a fetched URL's content type); undefined when no reader claims it. */
  forMimeType(mimeType: string | undefined): Reader | undefined {
    const key = mimeType?.split(';')[0]?.trim().toLowerCase();
    if (!key) return undefined;
    return this.claiming(key);
  }

  private claiming(key: string): Reader | undefined {
    const readers = this.byteReaders();
    const claims = (r: Reader) => r.contentTypes.includes(key) || (r.alsoReads?.includes(key) ?? false);
    return readers.find((r) => !r.fallback && claims(r)) ?? readers.find((r) => r.fallback && claims(r));
  }

  /** The readers of file content; source readers are picked by name only. */
  private byteReaders(): Reader[] {
    return this.list().filter((r) => !isSourceReader(r));
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
