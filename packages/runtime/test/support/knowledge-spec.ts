/**
 * The specification's tables for `GET /knowledge/config` (ConfigResponse: Reader, readersForType,
 * Chunker), written out as data, plus the few places where this runtime deliberately reports more
 * than the spec's example, each with its reason. `configDifferences` compares a response with
 * them and lists every difference as one readable line, so a failing test says exactly what is
 * missing or extra.
 *
 * The `converter` reader (ConverterReader) is developed on its own branch; until it is
 * registered, `CONVERTER_PENDING` is exactly what the comparison reports as missing.
 */
import type { KnowledgeConfig } from '../../src/knowledge/config.js';

/** The spec's S5: the strategies every text-producing reader supports. */
export const S5 = ['AgenticChunker', 'DocumentChunker', 'FixedSizeChunker', 'RecursiveChunker', 'SemanticChunker'] as const;

export interface ReaderExpectation {
  name: string;
  /** Compared as sets: the spec says the order of a reader's chunkers is not significant. */
  chunkers: readonly string[];
}

/** The spec's Reader table: id -> name and supported chunkers. */
export const SPEC_READERS: Readonly<Record<string, ReaderExpectation>> = {
  website: { name: 'WebsiteReader', chunkers: S5 },
  crawler: { name: 'CrawlerReader', chunkers: S5 },
  video_site: { name: 'VideoSiteReader', chunkers: S5 },
  web_search: { name: 'WebSearchReader', chunkers: S5 },
  preprint: { name: 'PreprintReader', chunkers: S5 },
  csv: { name: 'CsvReader', chunkers: [...S5, 'RowChunker'] },
  converter: { name: 'ConverterReader', chunkers: [...S5, 'CodeChunker'] },
  docx: { name: 'DocxReader', chunkers: S5 },
  bucket: { name: 'BucketReader', chunkers: S5 },
  json: { name: 'JsonReader', chunkers: S5 },
  markdown: { name: 'MarkdownReader', chunkers: [...S5, 'MarkdownChunker'] },
  pdf: { name: 'PdfReader', chunkers: S5 },
  text: { name: 'TextReader', chunkers: [...S5, 'CodeChunker'] },
};

/** The extensions the spec maps to the converter alone. */
export const CONVERTER_ONLY_TYPES = [
  '.dotx', '.docm', '.dotm', '.potx', '.ppsx', '.pptm', '.ppsm', '.potm',
  '.html', '.htm', '.xhtml', '.xml', '.nxml', '.xbrl', '.adoc', '.asciidoc', '.asc', '.xlsm', '.tex', '.latex', '.tar.gz', '.vtt',
  '.png', '.jpeg', '.jpg', '.tiff', '.tif', '.bmp', '.webp',
  '.wav', '.mp3', '.m4a', '.aac', '.ogg', '.flac', '.mp4', '.avi', '.mov',
] as const;

const XLSX_MIME = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
const DOCX_MIME = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';
const PPTX_MIME = 'application/vnd.openxmlformats-officedocument.presentationml.presentation';

/** The spec's content-type mapping, every key, lists in the spec's order. */
export const SPEC_READERS_FOR_TYPE: Readonly<Record<string, readonly string[]>> = {
  url: ['url', 'website', 'crawler', 'video_site', 'web_search', 'bucket'],
  youtube: ['video_site'],
  text: ['web_search'],
  topic: ['preprint'],
  file: ['csv', 'bucket'],
  '.csv': ['csv', 'field_labeled_csv', 'converter'],
  '.xlsx': ['excel', 'converter'],
  '.xls': ['excel'],
  [XLSX_MIME]: ['excel'],
  'application/vnd.ms-excel': ['excel'],
  '.docx': ['docx', 'converter'],
  '.doc': ['docx'],
  '.pptx': ['converter', 'pptx'],
  '.json': ['json'],
  '.md': ['markdown', 'converter'],
  '.pdf': ['pdf', 'converter'],
  '.txt': ['text'],
  ...Object.fromEntries(CONVERTER_ONLY_TYPES.map((type) => [type, ['converter']])),
};

/** The spec's Chunker table: key -> default metadata. */
export const SPEC_CHUNKERS: Readonly<Record<string, Record<string, number>>> = {
  AgenticChunker: { chunk_size: 5000 },
  CodeChunker: { chunk_size: 2048 },
  DocumentChunker: { chunk_size: 5000, chunk_overlap: 0 },
  FixedSizeChunker: { chunk_size: 5000, chunk_overlap: 0 },
  MarkdownChunker: { chunk_size: 5000, chunk_overlap: 0 },
  RecursiveChunker: { chunk_size: 5000, chunk_overlap: 0 },
  RowChunker: {},
  SemanticChunker: { chunk_size: 5000 },
};

/**
 * Where this runtime reports more than the spec's example, and why. Nothing the spec lists is
 * removed or renamed; these only add.
 */
export const BEYOND_SPEC = {
  /**
   * Readers the spec's `readersForType` names (excel, pptx, field_labeled_csv, url) although its
   * `readers` example has no entry for them, and `html` (web pages as markdown, which the `url`
   * reader hands HTML to). Listing them lets a client look up the chunkers of every id the map
   * names.
   */
  readers: {
    excel: { name: 'ExcelReader', chunkers: [...S5, 'RowChunker'] },
    pptx: { name: 'PptxReader', chunkers: S5 },
    field_labeled_csv: { name: 'FieldLabeledCsvReader', chunkers: S5 },
    url: { name: 'UrlReader', chunkers: [...S5, 'MarkdownChunker'] },
    html: { name: 'HtmlReader', chunkers: [...S5, 'MarkdownChunker'] },
  } as Readonly<Record<string, ReaderExpectation>>,
  /**
   * Extension aliases and MIME types the readers are chosen by (an upload's content type, a
   * fetched URL's Content-Type), reported because they are real entries of the same lookup.
   */
  types: {
    'text/csv': ['csv'],
    '.markdown': ['markdown'],
    'text/markdown': ['markdown'],
    '.text': ['text'],
    'text/plain': ['text'],
    'application/pdf': ['pdf'],
    'application/json': ['json'],
    [DOCX_MIME]: ['docx'],
    'application/msword': ['docx'],
    [PPTX_MIME]: ['pptx'],
    'text/html': ['html'],
    'application/xhtml+xml': ['html'],
  } as Readonly<Record<string, readonly string[]>>,
  /**
   * Lists whose order differs from the spec's. A list is in the order readers are tried for a
   * file, so its first reader is the default: `.pptx` stays with the pptx reader (slides, tables,
   * notes), and web pages with the html reader (pure JS, main content only); the converter
   * follows as the alternative.
   */
  lists: {
    '.pptx': ['pptx', 'converter'],
    '.html': ['html', 'converter'],
    '.htm': ['html', 'converter'],
    '.xhtml': ['html', 'converter'],
  } as Readonly<Record<string, readonly string[]>>,
};

export interface ConfigExpectation {
  readers: Readonly<Record<string, ReaderExpectation>>;
  readersForType: Readonly<Record<string, readonly string[]>>;
  chunkers: Readonly<Record<string, Record<string, number>>>;
}

/** What this runtime reports when it hosts the full set: the spec's tables plus BEYOND_SPEC. */
export const EXPECTED_CONFIG: ConfigExpectation = {
  readers: { ...SPEC_READERS, ...BEYOND_SPEC.readers },
  readersForType: { ...SPEC_READERS_FOR_TYPE, ...BEYOND_SPEC.types, ...BEYOND_SPEC.lists },
  chunkers: SPEC_CHUNKERS,
};

const list = (ids: readonly string[] | null | undefined) => `[${(ids ?? []).join(', ')}]`;
const sameSet = (a: readonly string[], b: readonly string[]) => a.length === b.length && [...a].sort().join('\n') === [...b].sort().join('\n');
const sameList = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((v, i) => v === b[i]);

/**
 * Every difference between a response and an expectation, one line each: readers (id, name,
 * chunker set), the whole readersForType map (keys and ordered lists) and the chunkers' keys and
 * default metadata. An empty list means they match exactly.
 */
export function configDifferences(config: KnowledgeConfig, expected: ConfigExpectation = EXPECTED_CONFIG): string[] {
  const out: string[] = [];
  const readers = config.readers ?? {};
  for (const [id, want] of Object.entries(expected.readers)) {
    const got = readers[id];
    if (!got) {
      out.push(`readers.${id}: missing`);
      continue;
    }
    if (got.id !== id) out.push(`readers.${id}.id: ${got.id}`);
    if (got.name !== want.name) out.push(`readers.${id}.name: ${String(got.name)}, expected ${want.name}`);
    if (!sameSet(got.chunkers ?? [], want.chunkers)) out.push(`readers.${id}.chunkers: ${list(got.chunkers)}, expected ${list(want.chunkers)} (any order)`);
  }
  for (const id of Object.keys(readers)) if (!Object.hasOwn(expected.readers, id)) out.push(`readers.${id}: not expected`);

  const types = config.readersForType ?? {};
  for (const [key, want] of Object.entries(expected.readersForType)) {
    const got = types[key];
    if (!got) out.push(`readersForType["${key}"]: missing, expected ${list(want)}`);
    else if (!sameList(got, want)) {
      const withoutConverter = want.filter((id) => id !== 'converter');
      out.push(sameList(got, withoutConverter) ? `readersForType["${key}"]: ${list(got)} lacks converter` : `readersForType["${key}"]: ${list(got)}, expected ${list(want)}`);
    }
  }
  for (const key of Object.keys(types)) if (!Object.hasOwn(expected.readersForType, key)) out.push(`readersForType["${key}"]: ${list(types[key])} not expected`);

  const chunkers = config.chunkers ?? {};
  for (const [key, metadata] of Object.entries(expected.chunkers)) {
    const got = chunkers[key];
    if (!got) out.push(`chunkers.${key}: missing`);
    else if (got.key !== key || JSON.stringify(sortKeys(got.metadata ?? null)) !== JSON.stringify(sortKeys(metadata))) {
      out.push(`chunkers.${key}: key ${got.key}, metadata ${JSON.stringify(got.metadata)}, expected ${JSON.stringify(metadata)}`);
    }
  }
  for (const key of Object.keys(chunkers)) if (!Object.hasOwn(expected.chunkers, key)) out.push(`chunkers.${key}: not expected`);
  return out;
}

function sortKeys(value: Record<string, unknown> | null): Record<string, unknown> | null {
  return value === null ? null : Object.fromEntries(Object.entries(value).sort(([a], [b]) => a.localeCompare(b)));
}

/**
 * What `configDifferences` reports against EXPECTED_CONFIG while the converter is not
 * registered: its reader entry, and its place in every readersForType list that names it.
 */
export const CONVERTER_PENDING: readonly string[] = [
  'readers.converter: missing',
  ...Object.entries(EXPECTED_CONFIG.readersForType)
    .filter(([, ids]) => ids.includes('converter'))
    .map(([key, ids]) => {
      const rest = ids.filter((id) => id !== 'converter');
      return rest.length === 0 ? `readersForType["${key}"]: missing, expected [converter]` : `readersForType["${key}"]: ${list(rest)} lacks converter`;
    }),
];
