/**
 * @module knowledge/readers/sources/source-reader
 * Source readers (url, website, crawler, video_site, web_search, preprint, bucket) read a
 * location or a topic rather than bytes, and fetch what they read through the SourceContext the
 * Knowledge gives them, so every request passes safeFetch. A collection reader (a site, a
 * prefix) also yields its items one by one, so each can become a record of its own.
 */
import type { RuntimeError } from '../../../errors.js';
import { badRequest } from '../../../errors.js';
import type { FetchedResource, SafeFetchOptions } from '../../../net/safe-fetch.js';
import type { IngestLimits } from '../../limits.js';
import type { Document, Metadata, ReaderInput } from '../../types.js';
import type { Reader } from '../reader.js';

/**
 * What a source reader reads: a location (`url`: a page, a site, a video, an `s3://` bucket
 * location) or a `topic` (a search query), with reader-specific `options` the caller chose.
 */
export interface SourceInput {
  url?: string | undefined;
  topic?: string | undefined;
  /** The content name the caller gave, if any. */
  name?: string | undefined;
  /** Reader options from the request (`reader_options`), validated by the reader. */
  options: Readonly<Record<string, unknown>>;
  /** A byte reader the caller named for the fetched content (the `url` reader only). */
  readWith?: Reader | undefined;
}

/** A request a source reader makes; the rest of safeFetch's options come from the Knowledge. */
export interface SourceFetchOptions {
  method?: SafeFetchOptions['method'];
  headers?: Readonly<Record<string, string>>;
  body?: string | Uint8Array;
  /** Default: the knowledge base's maxContentBytes. */
  maxBytes?: number;
  /** Default: the knowledge base's urlFetch.timeoutMs. */
  timeoutMs?: number;
  maxRedirects?: number;
  allowHttpErrors?: boolean;
  allowRedirect?: SafeFetchOptions['allowRedirect'];
  /** Keep the first `maxBytes` of a larger body instead of refusing it (see safeFetch). */
  truncate?: boolean;
}

/**
 * What the Knowledge hands a source reader. Every request goes through safeFetch. `fetch` is
 * for URLs a caller chose or content linked to (a page, a search result): the knowledge base's
 * SSRF rules apply. `fetchService` is for URLs built from the operator's settings (an API base
 * URL, an object-storage endpoint): that one host may be internal; redirects elsewhere, time
 * and size limits are checked as always. Readers must never pass caller input as its host.
 */
export interface SourceContext {
  fetch(url: string, options?: SourceFetchOptions): Promise<FetchedResource>;
  fetchService(url: string, options?: SourceFetchOptions): Promise<FetchedResource>;
  /** Refuses a URL the SSRF rules refuse, without fetching it (for URLs a service will fetch). */
  checkUrl(url: string): Promise<URL>;
  /** The knowledge base's readers, to read fetched bytes by file name or MIME type. */
  readers: ReaderLookup;
  /** The knowledge base's maxContentBytes: the most one content may read in all. */
  maxBytes: number;
  /** The content's budgets, handed to the byte readers that read what was fetched. */
  limits?: IngestLimits | undefined;
  signal: AbortSignal | undefined;
}

/** The part of the reader registry a source reader uses (kept structural to avoid a cycle). */
export interface ReaderLookup {
  get(id: string): Reader;
  forFile(name: string, mimeType?: string): Reader;
  forMimeType(mimeType: string | undefined): Reader | undefined;
}

/** Documents read from a source, grouped by the reader whose chunkers apply to them. */
export interface SourcePart {
  documents: Document[];
  reader: Reader;
}

export interface SourceResult {
  parts: SourcePart[];
  /** A name for the content when the caller gave none (a page or video title, the query). */
  title?: string | undefined;
  /** Bytes read, when the source was bytes (a page, objects). */
  size?: number | undefined;
  /** SHA-256 (hex) of what was read; default a digest of the documents. */
  hash?: string | undefined;
  /** The reader id to record; default the source reader's. The `url` reader reports the one it delegated to. */
  readerId?: string | undefined;
  /** What was skipped and why (a page that failed, a disallowed path); kept on the record. */
  notes: string[];
}

/**
 * A reader of a location or topic rather than of bytes: it fetches what it reads itself, through
 * the context. Its `read` refuses bytes, so it still fits where any Reader does.
 */
export interface SourceReader extends Reader {
  readonly source: 'url' | 'topic' | 'url-or-topic';
  /** Validates the input without I/O (a 400 at upload time); returns the normalised location. */
  check(input: SourceInput): { url?: string; topic?: string };
  readSource(input: SourceInput, context: SourceContext): Promise<SourceResult>;
}

/**
 * One item of a collection: a page of a website, an object under a prefix, a file of a folder.
 * The Knowledge stores each as a child record of its own, so one bad item fails only itself and
 * a refresh re-reads only the items whose bytes changed.
 */
export interface SourceChild {
  /** Stable within the collection (the page URL, the object key, the file path); the child's identity. */
  key: string;
  /** The child record's display name. */
  name: string;
  /**
   * Changes whenever the bytes change (an ETag, a blob sha), when the source says so without
   * reading them: an unchanged version is not even downloaded again.
   */
  version?: string | undefined;
  /** Reads the child; a typed RuntimeError fails this child only. */
  read(): Promise<ChildContent>;
}

/**
 * What a child holds: bytes, which the Knowledge reads with the reader the file name or type
 * picks, or documents a source reader already read (a crawled page), with the digest of the
 * bytes they came from.
 */
export type ChildContent =
  | {
      bytes: Uint8Array;
      fileName: string;
      mimeType?: string | undefined;
      /** Stamped on every document read from the bytes (where they came from: bucket, key, url). */
      meta?: Metadata | undefined;
      /** The documents' id (`#n` added when the reader makes several), so chunk ids say where they came from. */
      documentId?: string | undefined;
    }
  | { documents: Document[]; reader: Reader; hash: string; size?: number | undefined };

/** A child that could not even be read far enough to yield content (a page that answered 404). */
export interface FailedChild {
  key: string;
  name: string;
  error: RuntimeError;
}

/**
 * A source reader whose input may name a collection rather than one item. `children` yields the
 * collection's items in a stable order, lazily; `readSource` still reads the whole collection as
 * one content for SDK callers that keep no records.
 */
export interface CollectionReader extends SourceReader {
  isCollection(input: SourceInput): boolean;
  /** `notes` collects what was skipped without being a child (a path robots.txt disallows). */
  children(input: SourceInput, context: SourceContext, notes?: string[]): AsyncIterable<SourceChild | FailedChild>;
}

export function isCollectionReader(reader: Reader): reader is CollectionReader {
  const r = reader as Partial<CollectionReader>;
  return isSourceReader(reader) && typeof r.isCollection === 'function' && typeof r.children === 'function';
}

export function isSourceReader(reader: Reader): reader is SourceReader {
  const r = reader as Partial<SourceReader>;
  return typeof r.readSource === 'function' && typeof r.check === 'function';
}

/** The refusal a source reader's `read` rejects with: it is given a location, never file content. */
export function refuseBytes(reader: SourceReader, input: ReaderInput): RuntimeError {
  const what = reader.source === 'topic' ? 'a topic (search query)' : reader.source === 'url' ? 'a url' : 'a url or a topic';
  return badRequest(`The ${reader.id} reader reads ${what}, not file content ("${input.name}")`);
}

/** Resolves after `ms`, or rejects when the signal aborts first. */
export function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  if (ms <= 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** An options object's field, checked: a readable 400 names the reader and option. */
export function optionalInt(options: Readonly<Record<string, unknown>>, key: string, readerId: string, min: number, max: number): number | undefined {
  const value = options[key];
  if (value === undefined || value === null) return undefined;
  const n = typeof value === 'string' && /^\d+$/.test(value.trim()) ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < min || n > max) {
    throw badRequest(`${readerId} reader: reader_options.${key} must be a whole number from ${min} to ${max}`);
  }
  return n;
}

export function optionalBool(options: Readonly<Record<string, unknown>>, key: string, readerId: string): boolean | undefined {
  const value = options[key];
  if (value === undefined || value === null) return undefined;
  if (value === true || value === 'true') return true;
  if (value === false || value === 'false') return false;
  throw badRequest(`${readerId} reader: reader_options.${key} must be true or false`);
}

export function optionalEnum<T extends string>(options: Readonly<Record<string, unknown>>, key: string, readerId: string, allowed: readonly T[]): T | undefined {
  const value = options[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string' || !(allowed as readonly string[]).includes(value)) {
    throw badRequest(`${readerId} reader: reader_options.${key} must be one of ${allowed.join(', ')}`);
  }
  return value as T;
}

/** Refuses option keys the reader does not know, so a typo is not silently ignored. */
export function knownOptions(options: Readonly<Record<string, unknown>>, readerId: string, known: readonly string[]): void {
  const unknown = Object.keys(options).filter((k) => !known.includes(k));
  if (unknown.length > 0) {
    throw badRequest(`${readerId} reader: unknown reader_options ${unknown.map((k) => `"${k}"`).join(', ')}; known: ${known.length > 0 ? known.join(', ') : 'none'}`);
  }
}
