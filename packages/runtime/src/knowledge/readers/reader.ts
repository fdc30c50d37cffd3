/**
 * @module knowledge/readers/reader
 * A reader turns one input into Documents. Unlike agno, readers do not chunk: the Knowledge
 * applies the chunker, so chunking is one step with one place to validate its options.
 *
 * Most readers read bytes (`read`); source readers (sources/source-reader.ts) read a location or
 * a topic and fetch what they read themselves.
 */
import type { ChunkerType } from '../chunkers/list.js';
import { unprocessable } from '../../errors.js';
import type { ReadLimits } from '../limits.js';
import type { Document, ReaderInput } from '../types.js';

export interface Reader {
  /** Registry key, e.g. `csv`; what callers pass as `reader`. */
  readonly id: string;
  /** Class-style display name, e.g. `CsvReader`. */
  readonly name: string;
  readonly description: string;
  /** Chunkers this reader's output suits; the first is the default. */
  readonly chunkers: readonly ChunkerType[];
  /** Extensions (with the dot), MIME types and content kinds this reader handles. */
  readonly contentTypes: readonly string[];
  /**
   * Set when the documents are consecutive parts of one source (the pages of a PDF, the slides
   * of a deck), each numbered 1-based in `meta_data[pagedBy]`. The Knowledge then chunks their
   * joined text once, so a chunk can span parts, and stamps each chunk with the parts it covers.
   */
  readonly pagedBy?: string;
  /**
   * Read only when picked by file name and no other reader claims the type (the converter reads
   * nearly everything, so a format's own reader is preferred).
   */
  readonly fallback?: boolean;
  /**
   * Extensions and MIME types read when the reader is picked by file name, beyond the
   * `contentTypes` reported in `readersForType` (which follow the spec's map).
   */
  readonly alsoReads?: readonly string[];
  /**
   * Reads the input. Byte readers are pure functions of it (no shared state), so they can run in
   * a worker thread; the converter may also call a configured transcription service.
   */
  read(input: ReaderInput, options?: ReadOptions): Promise<Document[]>;
}

/** What the Knowledge passes along with the input. */
export interface ReadOptions {
  /** Aborted when the upload is cancelled or the runtime shuts down; a worker doing the work is stopped. */
  signal?: AbortSignal | undefined;
  /**
   * What was skipped and why (an archive member that could not be converted), pushed by the
   * reader; the Knowledge keeps them on the content record as for source readers.
   */
  notes?: string[] | undefined;
  /**
   * The budgets (documents, characters, nesting depth) the content is held to; the built-in
   * readers check them as they read, so a breach stops the read early (knowledge/limits.ts).
   */
  limits?: ReadLimits | undefined;
  /**
   * A crawl reading a web page asks for its same-host links: the html reader sets `found` (the
   * links' normalised URLs in document order) from the DOM it builds anyway.
   */
  links?: PageLinks | undefined;
}

/** A crawl's question for the links of the page being read. */
export interface PageLinks {
  /** The page's URL, which relative links resolve against. */
  pageUrl: string;
  found?: string[] | undefined;
}

/**
 * The spec's S5, the strategies every text-producing reader supports, with FixedSizeChunker
 * first because a reader's first chunker is its default and it needs no model or embedder.
 * `text` adds CodeChunker, `markdown` MarkdownChunker and `csv` RowChunker.
 */
export const TEXT_CHUNKERS: readonly ChunkerType[] = ['FixedSizeChunker', 'AgenticChunker', 'DocumentChunker', 'RecursiveChunker', 'SemanticChunker'];

/** `docs/guide.md` -> `guide`; `.env` stays `.env`. */
export function stem(name: string): string {
  const base = name.split(/[\\/]/).pop() ?? name;
  const dot = base.lastIndexOf('.');
  return dot > 0 ? base.slice(0, dot) : base;
}

/** The lower-cased extension with its dot, or '' when there is none. */
export function extension(name: string): string {
  const base = name.split(/[\\/]/).pop() ?? name;
  const dot = base.lastIndexOf('.');
  return dot > 0 ? base.slice(dot).toLowerCase() : '';
}

const decoder = new TextDecoder('utf-8', { fatal: true });

/** Strict UTF-8 so a binary file is refused instead of stored as replacement characters. */
export function decodeText(input: ReaderInput, readerId: string): string {
  let text: string;
  if (typeof input.data === 'string') {
    text = input.data;
  } else {
    try {
      text = decoder.decode(input.data);
    } catch (cause) {
      throw unprocessable(`${readerId} reader: "${input.name}" is not valid UTF-8 text`, cause);
    }
  }
  // A byte-order mark is an encoding artefact, not content.
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

export function requireContent(text: string, input: ReaderInput, readerId: string): void {
  if (text.trim().length === 0) throw unprocessable(`${readerId} reader: "${input.name}" is empty`);
}

/** The chunker list of a text reader with `first` as its default, so later additions to TEXT_CHUNKERS apply. */
export function chunkersWithDefault(first: ChunkerType): ChunkerType[] {
  return [first, ...TEXT_CHUNKERS.filter((c) => c !== first)];
}
