/**
 * @module knowledge/knowledge
 * A knowledge base: insert content (read -> chunk -> embed -> store) and search it. It is what
 * agents search through their `search_knowledge_base` tool, and what `/knowledge/config`
 * describes.
 *
 * Without an embedder it stores chunks without vectors and searches by keyword, so a runtime
 * with no API key still has working knowledge; with one, the default search is hybrid.
 *
 * @example
 * ```ts
 * const docs = new Knowledge({ id: 'docs', store: new SqliteVectorStore({ path: 'data/knowledge.db' }) });
 * await docs.insert({ path: 'docs/guide.md', metadata: { area: 'setup' } });
 * const hits = await docs.search('how do I change the port?', { limit: 3 });
 * ```
 */
import { createHash } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { basename } from 'node:path';
import type { SearchableKnowledge } from '../agent/agent.js';
import { badRequest, ConfigurationError, RuntimeError, unprocessable } from '../errors.js';
import type { Model } from '../model/model.js';
import { SLICE_MS, TimeSlicer, mapSliced } from '../util/time-slicer.js';
import { sha256Sliced } from '../util/utf8-slices.js';
import { append, type ChunkContext, type Chunker } from './chunkers/chunker.js';
import { CHUNKER_NEEDS, createChunker } from './chunkers/registry.js';
import type { Embedder } from './embedders/embedder.js';
import { EmbedderGate, isReindexable } from './vector-stores/reindex.js';
import type { Reranker } from './rerankers/reranker.js';
import { checkUrl, safeFetch, type HostResolver, type SafeFetchOptions } from '../net/safe-fetch.js';
import { readChild } from './readers/sources/collection.js';
import {
  isCollectionReader,
  isSourceReader,
  type ChildContent,
  type FailedChild,
  type Reader,
  type SourceChild,
  type SourceContext,
  type SourceFetchOptions,
  type SourceReader,
} from './readers/reader.js';
import { ReaderRegistry, defaultReaders } from './readers/registry.js';
import { checkUniqueIds, isRemoteSource, type RemoteSource } from './remote-sources/remote-source.js';
import { UrlReader } from './readers/sources/url.js';
import { joinParts, stampParts } from './ingest/paged.js';
import type { Chunk, Document, Metadata } from './types.js';
import { chunkOffloaded } from './chunkers/offloaded.js';
import { sharedOffload, type Offload } from '../workers/offload.js';
import { filterKeysOf, parseFilters, type FilterInput } from './vector-stores/filter-language.js';
import { SEARCH_TYPES, type MetadataFilters, type SearchType, type StoredChunk, type VectorStore } from './vector-stores/vector-store.js';

export interface KnowledgeOptions {
  /** Unique among the runtime's knowledge bases; used in routes and `knowledge_id`. */
  id: string;
  name?: string;
  description?: string;
  store: VectorStore;
  /** Without one, only keyword search is available. SemanticChunker compares sentences with it. */
  embedder?: Embedder | undefined;
  /** Reorders the fused candidates of every search (see rerankers/); rerankerFromEnvironment() reads RERANK_*. */
  reranker?: Reranker | undefined;
  /**
   * The model AgenticChunker asks for break points; default the model of the runtime hosting
   * this knowledge base (its `model` option or the environment's).
   */
  model?: Model | undefined;
  /** Defaults to `defaultReaders()`: the byte readers and the source readers, configured from process.env. */
  readers?: Reader[];
  /** Results when a search gives no limit; default 10. */
  maxResults?: number;
  /** Largest content `insert` accepts, in bytes; default 50 MiB (readers hold it in memory). */
  maxContentBytes?: number;
  /** How `insert({ url })` fetches; see UrlFetchOptions. */
  urlFetch?: UrlFetchOptions;
  /**
   * Remote places users browse and ingest from by path (S3Source, GcsSource, AzureBlobSource,
   * SharePointSource, GitHubSource; remoteSourcesFromEnvironment() reads KNOWLEDGE_CONTENT_SOURCES).
   * Ids must be unique within this knowledge base.
   */
  contentSources?: readonly RemoteSource[];
  /** Where large documents are chunked; default the process's worker pool (see workers/chunking). */
  offload?: Offload;
}

/**
 * URL ingestion limits. By default a URL whose host resolves to a loopback, private,
 * link-local, CGNAT, multicast or unspecified address is refused (SSRF protection).
 */
export interface UrlFetchOptions {
  /** `true` to allow internal addresses for every host, or the host names allowed them. */
  allowPrivateHosts?: boolean | readonly string[];
  /** Per connection; default 10 s. */
  connectTimeoutMs?: number;
  /** Per URL, redirects included; default 30 s. */
  timeoutMs?: number;
  /** Default 5. */
  maxRedirects?: number;
  /** Resolves host names instead of `dns.lookup`; the connection goes to the address it returns. */
  resolve?: HostResolver;
}

export interface InsertOptions {
  /** Exactly one of `text`, `path`, `buffer`, `url` and `topic`. */
  text?: string;
  path?: string;
  buffer?: Uint8Array;
  /**
   * A location: an http(s) URL, fetched under `urlFetch`'s rules (the reader follows its content
   * type), or what a source reader named in `reader` reads (a site to crawl, a video, an
   * `s3://bucket/key` object or `s3://bucket/prefix/`).
   */
  url?: string;
  /** A search query or topic, for a source reader that searches (`web_search`, `preprint`). */
  topic?: string;
  /** Options of a source reader (e.g. `{ max_pages: 5 }` for `website`); it refuses unknown ones. */
  readerOptions?: Record<string, unknown>;
  /**
   * The content's name; also picks the reader by extension. Defaults to the file name, `text`,
   * or for a URL the page title or the URL.
   */
  name?: string;
  mimeType?: string;
  /** A reader id (`csv`, `MarkdownReader`...) or instance; default by extension / MIME type. */
  reader?: string | Reader;
  /** A chunker key or instance; default the reader's first. Must be one the reader supports. */
  chunker?: string | Chunker;
  chunkSize?: number;
  chunkOverlap?: number;
  /** Stored on every chunk and filterable in search. */
  metadata?: Metadata;
  /**
   * The user who owns this content: its chunks are found only by searches for this user (or
   * unscoped ones), and the owner is part of the content's identity, so the same bytes from two
   * users are two contents. Absent: shared content, which every user's search finds.
   */
  userId?: string;
  /**
   * The content id to store the chunks under, instead of one derived from the content. The
   * HTTP upload names its record before the content is read, and the chunks must carry it.
   */
  contentId?: string;
  /**
   * The SHA-256 (hex) of the bytes this content was last built from: when the bytes read now
   * have the same digest, nothing is stored again and the result says `unchanged`.
   */
  unlessHash?: string;
  signal?: AbortSignal;
}

/** What `checkInsert` validates: the choices a caller makes before any content is read. */
export type InsertChoices = Pick<InsertOptions, 'name' | 'mimeType' | 'reader' | 'chunker' | 'chunkSize' | 'chunkOverlap' | 'metadata' | 'readerOptions' | 'userId'>;

/** A location or topic a source reader reads, as the caller gave it. */
export type SourceLocation = { url: string } | { topic: string };

export interface InsertResult {
  content_id: string;
  name: string;
  reader: string;
  chunker: string;
  chunks: number;
  /** Bytes fetched, for URL content. */
  size?: number;
  /** SHA-256 (hex) of the source bytes (UTF-8 for text). */
  hash: string;
  /** True when the bytes matched `unlessHash`, so the stored chunks were kept as they were. */
  unchanged?: boolean;
  /**
   * What a reader skipped and why (a page that failed, a path robots.txt disallows, an archive
   * member that could not be converted).
   */
  notes?: string[];
}

export interface KnowledgeSearchOptions {
  limit?: number;
  searchType?: SearchType;
  /** A plain object of equalities, or a list of filter expressions (see filter-language.ts). */
  filters?: MetadataFilters | FilterInput;
  /** With a reranker configured: false skips it for this search. Default true. */
  rerank?: boolean;
  /** Search as this user: shared content and theirs, never another user's. Absent: everything. */
  userId?: string;
  /**
   * Drops hits scored below this (0-1): the similarity for vector and keyword search, the
   * reranker's score when reranking. Hybrid scores without a reranker are rank fusion scores.
   */
  similarityThreshold?: number;
  signal?: AbortSignal;
}

export interface KnowledgeHit {
  id: string;
  content_id: string;
  content: string;
  name?: string;
  score: number;
  meta_data: Metadata;
}

export interface VectorDbInfo {
  id: string;
  name: string;
  description?: string;
  search_types: SearchType[];
}

const ID = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/;
// The HTTP search pages over at most this many hits (agno's bound for max_results).
const MAX_LIMIT = 1000;
/** How many candidates per result a reranker chooses from. */
const RERANK_CANDIDATES = 3;

export class Knowledge implements SearchableKnowledge, ConfigurableKnowledge {
  readonly id: string;
  readonly name: string;
  readonly description: string | undefined;
  readonly store: VectorStore;
  readonly embedder: Embedder | undefined;
  readonly model: Model | undefined;
  readonly reranker: Reranker | undefined;
  readonly readers: ReaderRegistry;
  readonly maxResults: number;
  readonly maxContentBytes: number;
  readonly urlFetch: UrlFetchOptions;
  readonly contentSources: readonly RemoteSource[];
  private readonly offload: Offload | undefined;
  private created: Promise<void> | undefined;
  private runtimeModel: Model | undefined;
  /**
   * Metadata keys of stored chunks, for refusing unknown filter keys: under `undefined` every
   * chunk's, under a user id those of the chunks that user may see (so a refusal never names a
   * key only another user's content has). Entries are read on first use.
   */
  private readonly metadataKeys = new Map<string | undefined, Set<string>>();

  constructor(options: KnowledgeOptions) {
    if (!ID.test(options.id ?? '')) {
      throw new TypeError(`Knowledge id "${options.id}" must start with a letter or digit and use only letters, digits, ".", "_" or "-" (max 128)`);
    }
    this.id = options.id;
    this.name = options.name ?? options.id;
    this.description = options.description;
    this.store = options.store;
    this.embedder = options.embedder;
    this.model = options.model;
    this.reranker = options.reranker;
    this.readers = new ReaderRegistry(options.readers ?? defaultReaders());
    this.maxResults = options.maxResults ?? 10;
    this.maxContentBytes = options.maxContentBytes ?? 50 * 1024 * 1024;
    this.urlFetch = { ...options.urlFetch };
    this.offload = options.offload;
    const sources = options.contentSources ?? [];
    if (!Array.isArray(sources)) throw new ConfigurationError(`Knowledge "${this.id}": contentSources must be an array`);
    for (const [index, source] of sources.entries()) {
      if (!isRemoteSource(source)) throw new ConfigurationError(`Knowledge "${this.id}": contentSources[${index}] is not a content source (S3Source, GcsSource, AzureBlobSource, SharePointSource or GitHubSource)`);
    }
    checkUniqueIds(sources, `Knowledge "${this.id}"`);
    this.contentSources = Object.freeze([...sources]);
  }

  /** The content source with this id, or undefined. */
  contentSource(id: string): RemoteSource | undefined {
    return this.contentSources.find((s) => s.id === id);
  }

  /**
   * Called by a Runtime hosting this knowledge base with its default model, which AgenticChunker
   * uses when the knowledge base has no `model` of its own. The first runtime's model is kept.
   */
  useRuntimeModel(model: Model | undefined): void {
    this.runtimeModel ??= model;
  }

  /** The model chunkers may call: this knowledge base's own, else its runtime's default. */
  get chunkModel(): Model | undefined {
    return this.model ?? this.runtimeModel;
  }

  get dbId(): string | undefined {
    return this.store.dbId;
  }

  get table(): string | undefined {
    return this.store.table;
  }

  get searchTypes(): SearchType[] {
    return this.embedder ? [...SEARCH_TYPES] : ['keyword'];
  }

  private gate: EmbedderGate | undefined;

  /** Compares the store's recorded embedder with this one (see vector-stores/reindex.ts). */
  private vectorGate(): EmbedderGate | undefined {
    if (this.embedder && isReindexable(this.store)) this.gate ??= new EmbedderGate(this.store, this.embedder.id);
    return this.gate;
  }

  /** Creates the store's tables once, on first use, so constructing a Knowledge does no I/O. */
  private ready(): Promise<void> {
    this.created ??= this.store.create().catch((e: unknown) => {
      this.created = undefined;
      throw e;
    });
    return this.created;
  }

  async insert(options: InsertOptions): Promise<InsertResult> {
    const sources = [options.text, options.path, options.buffer, options.url, options.topic].filter((s) => s !== undefined).length;
    if (sources !== 1) throw badRequest('insert needs exactly one of text, path, buffer, url or topic');
    const metadata = checkMetadata(options.metadata);
    checkUserId(options.userId);
    if (options.url !== undefined) return this.insertSource({ url: options.url }, options, metadata);
    if (options.topic !== undefined) return this.insertSource({ topic: options.topic }, options, metadata);
    const name = options.name ?? (options.path !== undefined ? basename(options.path) : options.buffer ? 'content' : 'text');
    const data = options.path !== undefined ? await readPath(options.path, this.maxContentBytes) : (options.text ?? options.buffer)!;
    const size = typeof data === 'string' ? Buffer.byteLength(data) : data.byteLength;
    if (size > this.maxContentBytes) throw tooLarge(name, this.maxContentBytes);
    const reader = typeof options.reader === 'object' ? options.reader : options.reader !== undefined ? this.readers.get(options.reader) : this.readers.forFile(name, options.mimeType);
    const chunker = this.chunkerFor(reader, options);
    // A slice at a time: a 10 MB text hashed in one call held the event loop ~12 ms.
    const hash = await sha256Sliced(data, undefined, options.signal);
    if (options.unlessHash === hash) return { content_id: options.contentId ?? '', name, reader: reader.id, chunker: chunker.type, chunks: 0, hash, unchanged: true };

    const notes: string[] = [];
    const documents = await reader.read({ data, name }, { signal: options.signal, notes });
    // A path or an explicit name identifies the content, so re-inserting an edited file
    // replaces its chunks; an unnamed text is identified by its bytes.
    const identity = options.path !== undefined ? `path:${options.path}` : options.name !== undefined ? `name:${name}` : `data:${hash}`;
    const stored = await this.storeParts([{ documents, chunker, reader }], {
      name,
      sourceName: name,
      metadata,
      contentId: options.contentId ?? contentIdFor(identity, metadata, options.userId),
      userId: options.userId,
      signal: options.signal,
    });
    return { ...stored, reader: reader.id, chunker: chunker.type, hash, ...(notes.length > 0 ? { notes } : {}) };
  }

  /**
   * Reads a location or topic with a source reader: the one named, else (for a URL) the `url`
   * reader, which fetches the URL and reads it with the reader its content type picks (or the
   * byte reader named). Each group of documents is chunked with the chunker given, else the
   * default of the reader that read it.
   */
  private async insertSource(location: SourceLocation, options: InsertOptions, metadata: Metadata): Promise<InsertResult> {
    const { reader, readWith } = this.resolveSource(options, location);
    const input = { ...location, name: options.name, options: options.readerOptions ?? {}, readWith };
    const checked = reader.check(input);
    if (options.chunker !== undefined && (readWith || reader.id !== 'url')) this.chunkerFor(readWith ?? reader, options);
    const result = await reader.readSource({ ...input, ...checked }, this.sourceContext(options.signal));
    const where = 'url' in location ? location.url : location.topic;
    const name = options.name ?? result.title ?? checked.url ?? checked.topic ?? where;
    const parts = result.parts.map((part) => ({
      documents: part.documents.map((doc) => ({ ...doc, name: doc.name ?? name })),
      chunker: this.chunkerFor(part.reader, options),
      reader: part.reader,
    }));
    const chunker = [...new Set(parts.map((p) => p.chunker.type))].join(', ') || (readWith ?? reader).chunkers[0] || 'none';
    const hash = result.hash ?? sha256(JSON.stringify(result.parts.flatMap((p) => p.documents.map((d) => [d.id ?? null, d.content]))));
    const readerId = result.readerId ?? reader.id;
    const notes = result.notes.length > 0 ? { notes: result.notes } : {};
    const size = result.size !== undefined ? { size: result.size } : {};
    const contentId = options.contentId ?? contentIdFor(sourceIdentity(reader, location, options.readerOptions), metadata, options.userId);
    if (options.unlessHash === hash) return { content_id: contentId, name, reader: readerId, chunker, chunks: 0, ...size, hash, unchanged: true, ...notes };
    const stored = await this.storeParts(parts, {
      name,
      sourceName: checked.url?.split('/').pop() || name,
      sourceId: checked.url,
      metadata,
      contentId,
      userId: options.userId,
      signal: options.signal,
    });
    return { ...stored, reader: readerId, chunker, ...size, hash, ...notes };
  }

  /** The source reader for a location or topic, and the byte reader the `url` reader should use. */
  private resolveSource(choices: InsertChoices, location: SourceLocation): { reader: SourceReader; readWith?: Reader } {
    const named = typeof choices.reader === 'object' ? choices.reader : choices.reader !== undefined ? this.readers.get(choices.reader) : undefined;
    if (named && isSourceReader(named)) {
      if ('topic' in location && named.source === 'url') throw badRequest(`The ${named.id} reader reads a url, not a topic`);
      if ('url' in location && named.source === 'topic') throw badRequest(`The ${named.id} reader reads a topic (send the search query as topic), not a url`);
      return { reader: named };
    }
    if ('topic' in location) {
      const topical = this.readers.list().filter((r) => isSourceReader(r) && r.source !== 'url').map((r) => r.id);
      if (named) throw badRequest(`The ${named.id} reader reads file content, not a topic; readers for a topic: ${topical.join(', ') || 'none'}`);
      throw badRequest(`A topic needs a reader_id: ${topical.join(' or ') || 'no reader here reads topics'}`);
    }
    const registered = this.readers.list().find((r) => r.id === 'url');
    const url = registered && isSourceReader(registered) ? registered : new UrlReader();
    return named ? { reader: url, readWith: named } : { reader: url };
  }

  /**
   * Checks a location or topic and the choices for it without reading anything (bad input is a
   * 400 at upload time): the reader exists and reads this kind of source, the location is one
   * it reads, its options are valid, a named chunker is one it supports, the metadata is valid.
   * Returns the normalised location.
   */
  checkSource(choices: InsertChoices, location: SourceLocation): { url?: string; topic?: string } {
    checkMetadata(choices.metadata);
    checkUserId(choices.userId);
    const { reader, readWith } = this.resolveSource(choices, location);
    if (choices.chunker !== undefined && (readWith || reader.id !== 'url')) this.chunkerFor(readWith ?? reader, choices);
    return reader.check({ ...location, name: choices.name, options: choices.readerOptions ?? {}, readWith });
  }

  /**
   * Whether a location names a collection (a website, a prefix, a crawl) rather than one item:
   * the HTTP API then keeps a record per child (see collection-job.ts). Answers the id of the
   * collection's reader, or undefined for a single item.
   */
  collectionReader(choices: InsertChoices, location: SourceLocation): string | undefined {
    if (!('url' in location)) return undefined;
    const { reader, readWith } = this.resolveSource(choices, location);
    return isCollectionReader(reader) && reader.isCollection({ ...location, name: choices.name, options: choices.readerOptions ?? {}, readWith }) ? reader.id : undefined;
  }

  /** The children of a collection, lazily, in a stable order; `notes` collects what was skipped. */
  children(choices: InsertChoices, location: SourceLocation, signal: AbortSignal | undefined, notes: string[]): AsyncIterable<SourceChild | FailedChild> {
    const { reader, readWith } = this.resolveSource(choices, location);
    if (!isCollectionReader(reader)) throw badRequest(`The ${reader.id} reader does not read collections`);
    return reader.children({ ...location, name: choices.name, options: choices.readerOptions ?? {}, readWith }, this.sourceContext(signal), notes);
  }

  /**
   * Reads, chunks, embeds and stores one child of a collection under its own content id: bytes
   * by the reader their file name or type picks, documents as a source reader read them. With
   * `unlessHash` equal to the digest of what was read, nothing is stored again.
   */
  async insertChild(content: ChildContent, options: InsertChoices & { contentId: string; key: string; unlessHash?: string | undefined; signal?: AbortSignal | undefined }): Promise<InsertResult> {
    const metadata = checkMetadata(options.metadata);
    const name = options.name ?? options.key;
    if ('bytes' in content && content.bytes.byteLength > this.maxContentBytes) throw tooLarge(name, this.maxContentBytes);
    const hash = 'bytes' in content ? sha256(content.bytes) : content.hash;
    const sourceName = 'bytes' in content ? content.fileName : name;
    const size = 'bytes' in content ? content.bytes.byteLength : content.size;
    const sized = size !== undefined ? { size } : {};
    if (options.unlessHash === hash) {
      return { content_id: options.contentId, name, reader: 'documents' in content ? content.reader.id : 'auto', chunker: 'none', chunks: 0, ...sized, hash, unchanged: true };
    }
    const notes: string[] = [];
    // A byte reader the caller named reads the bytes (a source reader named read the collection);
    // otherwise the file's name or type picks one.
    const named = 'bytes' in content && options.reader !== undefined ? (typeof options.reader === 'object' ? options.reader : this.readers.get(options.reader)) : undefined;
    const read = await readChild(content, { readers: this.readers, signal: options.signal, reader: named && !isSourceReader(named) ? named : undefined }, notes);
    const chunker = this.chunkerFor(read.reader, options);
    const documents = read.documents.map((doc) => ({ ...doc, name }));
    const stored = await this.storeParts([{ documents, chunker, reader: read.reader }], {
      name,
      sourceName,
      sourceId: options.key,
      metadata,
      contentId: options.contentId,
      userId: options.userId,
      signal: options.signal,
    });
    return { ...stored, reader: read.reader.id, chunker: chunker.type, ...sized, hash, ...(notes.length > 0 ? { notes } : {}) };
  }

  /** How source readers reach the network: safeFetch under this knowledge base's rules. */
  private sourceContext(signal: AbortSignal | undefined): SourceContext {
    const rules = this.urlFetch;
    const request = (o: SourceFetchOptions = {}): SafeFetchOptions => ({
      maxBytes: o.maxBytes ?? this.maxContentBytes,
      connectTimeoutMs: rules.connectTimeoutMs,
      timeoutMs: o.timeoutMs ?? rules.timeoutMs,
      maxRedirects: o.maxRedirects ?? rules.maxRedirects,
      resolve: rules.resolve,
      signal,
      method: o.method,
      headers: o.headers,
      body: o.body,
      allowHttpErrors: o.allowHttpErrors,
      allowRedirect: o.allowRedirect,
    });
    return {
      fetch: (url, o) => safeFetch(url, { ...request(o), allowPrivateHosts: rules.allowPrivateHosts }),
      fetchService: (url, o) => safeFetch(url, { ...request(o), allowPrivateHosts: withHost(rules.allowPrivateHosts, url) }),
      checkUrl: (url) => checkUrl(url, { allowPrivateHosts: rules.allowPrivateHosts, resolve: rules.resolve, timeoutMs: rules.timeoutMs, signal }),
      readers: this.readers,
      maxBytes: this.maxContentBytes,
      signal,
    };
  }

  /**
   * Chunks, embeds and stores read documents under one content id, each group with its chunker.
   * Chunk ids must be unique within the content; a repeated one gets a suffix.
   */
  private async storeParts(
    parts: { documents: Document[]; chunker: Chunker; reader: Reader }[],
    c: { name: string; sourceName: string; sourceId?: string | undefined; metadata: Metadata; contentId: string; userId: string | undefined; signal: AbortSignal | undefined },
  ): Promise<{ content_id: string; name: string; chunks: number }> {
    const { name, metadata, contentId } = c;
    const context: ChunkContext = { embedder: this.embedder, model: this.chunkModel, sourceName: c.sourceName, signal: c.signal };
    const chunks: Chunk[] = [];
    const offload = this.offload ?? sharedOffload();
    for (const part of parts) append(chunks, await chunkDocuments(part.documents, part.reader, part.chunker, metadata, c.sourceId, context, offload));
    if (chunks.length === 0) throw unprocessable(`"${name}" has no content to index`);
    // Each pass over the chunks yields to the event loop every few ms: at 150k chunks the
    // copy into stored rows alone held it for ~0.4 s.
    const slicer = new TimeSlicer(SLICE_MS, c.signal);
    const seen = new Map<string, number>();
    for (let i = 0; i < chunks.length; i++) {
      if ((i & 255) === 0) await slicer.pause();
      const chunk = chunks[i]!;
      const n = seen.get(chunk.id) ?? 0;
      seen.set(chunk.id, n + 1);
      if (n > 0) chunk.id = `${chunk.id}~${n + 1}`;
    }
    const vectors = this.embedder ? await this.embedder.embed(chunks.map((chunk) => chunk.content), c.signal) : undefined;
    const stored: StoredChunk[] = await mapSliced(chunks, (chunk, i) => ({ ...chunk, filters: metadata, embedding: vectors?.[i] }), slicer);
    await this.ready();
    await this.store.upsert(contentId, stored, this.embedder?.id, { knowledgeId: this.id, userId: c.userId });
    await this.noteKeys(stored, c.userId);
    return { content_id: contentId, name, chunks: stored.length };
  }

  /**
   * Refuses an unknown reader, an unsupported chunker or invalid metadata without reading
   * anything, so an upload processed in the background can still be refused with a 400.
   */
  checkInsert(choices: InsertChoices): void {
    checkMetadata(choices.metadata);
    checkUserId(choices.userId);
    const reader = typeof choices.reader === 'object' ? choices.reader : choices.reader !== undefined ? this.readers.get(choices.reader) : this.readers.forFile(choices.name ?? 'text', choices.mimeType);
    if (isSourceReader(reader)) {
      const what = reader.source === 'topic' ? 'a topic' : reader.source === 'url' ? 'a url' : 'a url or a topic';
      throw badRequest(`The ${reader.id} reader reads ${what}, not file content`);
    }
    if (choices.readerOptions !== undefined && Object.keys(choices.readerOptions).length > 0) throw badRequest(`reader_options are for the readers of a url or topic, not for the ${reader.id} reader`);
    this.chunkerFor(reader, choices);
  }

  /**
   * The id of content before it is read: a digest of this knowledge base, the reader and chunker
   * settings that will build it, the source (its bytes or text, or a URL, whose bytes are
   * compared when it is refreshed) and the owner when there is one. Metadata is not part of it,
   * so the same bytes uploaded twice are one content; the same bytes from two users are two, so
   * one user's upload never becomes or replaces another's. UUID-formatted, like agno's ids.
   */
  contentIdentity(choices: InsertChoices, source: { bytes: Uint8Array } | { text: string } | { sha256: string } | SourceLocation | { remote: string }): string {
    let readerId = 'auto';
    let chunker = choices.chunker === undefined ? 'auto' : typeof choices.chunker === 'object' ? choices.chunker.type : choices.chunker;
    if ('remote' in source) {
      // A remote file's reader follows its name unless one is named, as for an upload.
      if (choices.reader !== undefined) {
        const reader = typeof choices.reader === 'object' ? choices.reader : this.readers.get(choices.reader);
        readerId = reader.id;
        if (chunker === 'auto') chunker = reader.chunkers[0] ?? 'none';
      }
    } else if ('url' in source || 'topic' in source) {
      this.checkSource(choices, source);
      // A URL's reader follows the content type it is served with, which is not known yet.
      if (choices.reader !== undefined) {
        const { reader, readWith } = this.resolveSource(choices, source);
        readerId = (readWith ?? reader).id;
        if (chunker === 'auto') chunker = (readWith ?? reader).chunkers[0] ?? 'none';
      }
    } else {
      this.checkInsert(choices);
      const reader = typeof choices.reader === 'object' ? choices.reader : choices.reader !== undefined ? this.readers.get(choices.reader) : this.readers.forFile(choices.name ?? 'text', choices.mimeType);
      readerId = reader.id;
      if (chunker === 'auto') chunker = reader.chunkers[0] ?? 'none';
    }
    // `sha256` is the digest of the bytes (or the text's UTF-8) hashed by the caller, so the id is the same.
    const what =
      'remote' in source
        ? `remote:${source.remote}`
        : 'url' in source
          ? `url:${source.url}`
          : 'topic' in source
            ? `topic:${source.topic}`
            : 'sha256' in source
              ? `bytes:${source.sha256}`
              : 'text' in source
                ? `bytes:${sha256(source.text)}`
                : `bytes:${sha256(source.bytes)}`;
    const options = choices.readerOptions && Object.keys(choices.readerOptions).length > 0 ? [`options:${stableJson(choices.readerOptions)}`] : [];
    // Appended only when there is an owner, so shared content keeps the ids it always had.
    const owner = choices.userId !== undefined ? [`owner:${choices.userId}`] : [];
    return uuidFromHash(sha256([this.id, readerId, chunker, choices.chunkSize ?? '', choices.chunkOverlap ?? '', what, ...options, ...owner].join('\n')));
  }

  private chunkerFor(reader: Reader, options: InsertChoices): Chunker {
    if (typeof options.chunker === 'object') return options.chunker;
    const key = options.chunker ?? reader.chunkers[0];
    if (key === undefined) throw badRequest(`Reader "${reader.id}" supports no chunker`);
    if (!reader.chunkers.includes(key as Reader['chunkers'][number])) {
      throw badRequest(`Reader "${reader.id}" does not support chunker "${key}"; supported: ${reader.chunkers.join(', ')}`);
    }
    // Refused before anything is read, so an upload that cannot be chunked answers 400.
    const needs = CHUNKER_NEEDS[key as Reader['chunkers'][number]];
    if (needs === 'embedder' && !this.embedder) {
      throw badRequest(`${key} needs an embedder, and knowledge "${this.id}" has none: give the Knowledge an \`embedder\` (e.g. embedderFromEnvironment() with OPENAI_API_KEY or OLLAMA_EMBEDDING_MODEL set)`);
    }
    if (needs === 'model' && !this.chunkModel) {
      throw badRequest(`${key} needs a model, and knowledge "${this.id}" has none: give the Knowledge a \`model\`, or the runtime a default model (its \`model\` option or OPENAI_API_KEY, ANTHROPIC_API_KEY or OLLAMA_HOST in its environment)`);
    }
    return createChunker(key, { ...(options.chunkSize !== undefined ? { chunkSize: options.chunkSize } : {}), ...(options.chunkOverlap !== undefined ? { overlap: options.chunkOverlap } : {}) });
  }

  async search(query: string, options: KnowledgeSearchOptions = {}): Promise<KnowledgeHit[]> {
    if (typeof query !== 'string' || query.trim().length === 0) throw badRequest('The search query is empty');
    const limit = options.limit ?? this.maxResults;
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) throw badRequest(`limit must be an integer from 1 to ${MAX_LIMIT}`);
    let searchType = options.searchType ?? (this.embedder ? 'hybrid' : 'keyword');
    if (!(SEARCH_TYPES as readonly string[]).includes(searchType)) throw badRequest(`Unknown search type "${String(searchType)}"; use ${SEARCH_TYPES.join(', ')}`);
    if (searchType !== 'keyword' && !this.embedder) {
      throw badRequest(`Knowledge "${this.id}" has no embedder, so it supports keyword search only`);
    }
    const filter = parseFilters(options.filters);
    checkUserId(options.userId);
    await this.ready();
    await this.checkFilterKeys(filterKeysOf(filter), options.userId);
    // While a reindex to this embedder runs, the stored vectors are another embedder's: keywords only.
    const gate = searchType !== 'keyword' ? this.vectorGate() : undefined;
    if (gate && !(await gate.usable())) searchType = 'keyword';
    const vector = searchType !== 'keyword' && this.embedder ? (await this.embedder.embed([query], options.signal, { interactive: true }))[0] : undefined;
    const threshold = options.similarityThreshold;
    if (threshold !== undefined && (!Number.isFinite(threshold) || threshold < 0 || threshold > 1)) throw badRequest('similarity_threshold must be a number from 0 to 1');
    const reranker = options.rerank === false ? undefined : this.reranker;
    // The reranker chooses from a wider field than it returns.
    const candidates = reranker ? Math.min(MAX_LIMIT, limit * RERANK_CANDIDATES) : limit;
    let hits = await this.store.search({ searchType, query, vector, limit: candidates, filter, visibleTo: options.userId });
    if (reranker && hits.length > 0) {
      const ranked = await reranker.rerank(query, hits.map((h) => h.chunk.content), limit, options.signal);
      hits = ranked.map((r) => ({ chunk: hits[r.index]!.chunk, score: r.score }));
    }
    if (threshold !== undefined) hits = hits.filter((h) => h.score >= threshold);
    return hits.map(({ chunk, score }) => ({
      id: chunk.id,
      content_id: chunk.content_id,
      content: chunk.content,
      ...(chunk.name !== undefined ? { name: chunk.name } : {}),
      score,
      meta_data: chunk.meta_data,
    }));
  }

  /**
   * Refuses a filter on a key no stored chunk has (a typo would otherwise match nothing, and
   * look like "no results"). The keys are cached and read again once before refusing, since
   * another runtime may have stored new ones.
   */
  private async checkFilterKeys(keys: Set<string>, userId: string | undefined): Promise<void> {
    if (keys.size === 0) return;
    const unknown = (known: Set<string>) => [...keys].filter((k) => !known.has(k));
    const read = async () => {
      const known = new Set(await this.store.metadataKeys(userId));
      // Bounded: one entry per user searching with filters; the oldest goes first.
      if (this.metadataKeys.size >= MAX_CACHED_KEY_SETS && !this.metadataKeys.has(userId)) this.metadataKeys.delete(this.metadataKeys.keys().next().value);
      this.metadataKeys.set(userId, known);
      return known;
    };
    if (unknown(this.metadataKeys.get(userId) ?? (await read())).length === 0) return;
    const known = await read();
    const missing = unknown(known);
    if (missing.length === 0) return;
    const valid = [...known].sort();
    throw unprocessable(
      `Unknown filter key${missing.length > 1 ? 's' : ''} ${missing.map((k) => `"${k}"`).join(', ')}; ` +
        (valid.length ? `valid keys: ${valid.slice(0, 50).join(', ')}${valid.length > 50 ? ', ...' : ''}` : 'this knowledge base has no content to filter yet'),
    );
  }

  /** Keys of newly stored chunks become known to every view that sees them. */
  private async noteKeys(stored: readonly StoredChunk[], owner: string | undefined, slicer = new TimeSlicer()): Promise<void> {
    for (const [viewer, known] of this.metadataKeys) {
      if (viewer !== undefined && owner !== undefined && viewer !== owner) continue;
      for (let i = 0; i < stored.length; i++) {
        if ((i & 255) === 0) await slicer.pause();
        for (const key of Object.keys(stored[i]!.meta_data)) known.add(key);
      }
    }
  }

  /**
   * Deletes a content's chunks. With `userId`, only chunks that user owns are deleted: shared
   * content and another user's are left as they are.
   */
  async remove(contentId: string, options: { userId?: string | undefined } = {}): Promise<boolean> {
    checkUserId(options.userId);
    await this.ready();
    this.metadataKeys.clear();
    return (await this.store.deleteByContentId(contentId, { ownedBy: options.userId })) > 0;
  }

  /** The metadata keys stored content can be filtered on; with `userId`, of the content that user may see. */
  async filterKeys(options: { userId?: string | undefined } = {}): Promise<string[]> {
    checkUserId(options.userId);
    await this.ready();
    return this.store.filterKeys(options.userId);
  }

  vectorDb(): VectorDbInfo {
    return {
      id: this.store.id,
      name: this.store.name,
      ...(this.store.description !== undefined ? { description: this.store.description } : {}),
      search_types: this.searchTypes,
    };
  }

  describe(): Record<string, unknown> {
    return {
      vector_db: this.store.id,
      search_types: this.searchTypes,
      embedder: this.embedder?.id ?? null,
      readers: this.readers.list().map((r) => r.id),
    };
  }
}

/**
 * Chunks a reader's documents: the parts of a paged source (PDF pages, slides) as one text whose
 * chunks are stamped with the parts they cover (see paged.ts); other documents one by one.
 */
async function chunkDocuments(
  documents: Document[],
  reader: Reader,
  chunker: Chunker,
  metadata: Metadata,
  sourceId: string | undefined,
  context: ChunkContext,
  offload: Offload,
): Promise<Chunk[]> {
  const joined = reader.pagedBy ? joinParts(documents, reader.pagedBy, sourceId) : undefined;
  if (joined) return stampParts(joined, await chunkOffloaded(offload, chunker, { ...joined.document, meta_data: { ...joined.document.meta_data, ...metadata } }, context));
  const chunks: Chunk[] = [];
  for (const doc of documents) {
    context.signal?.throwIfAborted();
    append(chunks, await chunkOffloaded(offload, chunker, { ...doc, meta_data: { ...doc.meta_data, ...metadata } }, context));
  }
  return chunks;
}

/**
 * What `/knowledge/config` needs from a hosted knowledge base. Knowledge implements it; so can
 * a wrapper that delegates to a Knowledge (the quickstart's docs load in the background).
 */
export interface ConfigurableKnowledge {
  readonly readers: ReaderRegistry;
  /** Remote content sources, listed by /knowledge/config and browsed by the sources routes. */
  readonly contentSources?: readonly RemoteSource[];
  vectorDb(): VectorDbInfo;
  /** With `userId`, the keys of the content that user may see. */
  filterKeys(options?: { userId?: string | undefined }): Promise<string[]>;
}

/** Structural, so it also holds across duplicated copies of this module. */
export function isConfigurableKnowledge(value: unknown): value is ConfigurableKnowledge {
  if (typeof value !== 'object' || value === null) return false;
  const k = value as Partial<ConfigurableKnowledge>;
  return typeof k.vectorDb === 'function' && typeof k.filterKeys === 'function' && typeof k.readers?.readersForType === 'function';
}

const METADATA_KEY = /^[\p{L}\p{N}_.-]{1,100}$/u;
/** How many users' views of the metadata keys are cached at once. */
const MAX_CACHED_KEY_SETS = 256;

/** An owner or searching user: a non-empty string (a JWT `sub`, `sa:<name>`, an SDK caller's id). */
function checkUserId(userId: unknown): void {
  if (userId === undefined) return;
  if (typeof userId !== 'string' || userId.length === 0 || userId.length > 256) throw badRequest('userId must be a string of 1 to 256 characters');
}

/**
 * Keys the pipeline writes on every chunk (position, provenance, scores): a caller setting one
 * would overwrite what readers and chunkers recorded, and filters on it would lie.
 */
export const RESERVED_METADATA_KEYS: ReadonlySet<string> = new Set([
  'chunk',
  'chunk_size',
  'content_id',
  'page',
  'page_start',
  'page_end',
  'slide',
  'slide_start',
  'slide_end',
  'row_number',
  'url',
  'linked_to',
  'similarity_score',
  'remote',
]);

function checkMetadata(metadata: unknown): Metadata {
  if (metadata === undefined) return {};
  if (typeof metadata !== 'object' || metadata === null || Array.isArray(metadata)) throw badRequest('metadata must be an object');
  for (const key of Object.keys(metadata)) {
    // The same rule as filter keys, so every stored key can be filtered on.
    if (!METADATA_KEY.test(key)) throw badRequest(`metadata key "${key}" must be 1-100 letters, digits, "_", "." or "-"`);
    if (RESERVED_METADATA_KEYS.has(key)) {
      throw badRequest(`metadata key "${key}" is reserved: the pipeline sets it on every chunk (reserved: ${[...RESERVED_METADATA_KEYS].join(', ')})`);
    }
  }
  return { ...(metadata as Metadata) };
}

function tooLarge(name: string, limit: number): RuntimeError {
  return new RuntimeError('PAYLOAD_TOO_LARGE', `"${name}" is larger than the knowledge limit of ${limit} bytes`);
}

async function readPath(path: string, limit: number): Promise<Uint8Array> {
  try {
    // Checked before reading, so an oversized file is never loaded into memory.
    if ((await stat(path)).size > limit) throw tooLarge(basename(path), limit);
    return await readFile(path);
  } catch (cause) {
    if (RuntimeError.isInstance(cause)) throw cause;
    const code = (cause as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new RuntimeError('NOT_FOUND', `File not found: ${path}`, { cause });
    if (code === 'EISDIR') throw badRequest(`${path} is a directory; insert its files one by one`, cause);
    throw badRequest(`Cannot read ${path} (${code ?? 'error'})`, cause);
  }
}

/** Lets a source reader reach the host of a URL built from the operator's settings, whatever it resolves to. */
function withHost(allow: UrlFetchOptions['allowPrivateHosts'], url: string): boolean | string[] {
  if (allow === true) return true;
  let host: string;
  try {
    host = new URL(url).hostname.replace(/^\[|\]$/g, '');
  } catch {
    return allow ? [...allow] : [];
  }
  return [...(allow || []), host];
}

/** The identity of content a source reader reads: a plain URL keeps the identity URL content always had. */
function sourceIdentity(reader: SourceReader, location: SourceLocation, options: Record<string, unknown> | undefined): string {
  const where = 'url' in location ? `url:${location.url}` : `topic:${location.topic}`;
  const extra = options && Object.keys(options).length > 0 ? `:${stableJson(options)}` : '';
  return reader.id === 'url' && !extra ? where : `${reader.id}:${where}${extra}`;
}

/** JSON with object keys sorted, so equal options give equal digests. */
function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).toSorted(([a], [b]) => a.localeCompare(b));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

function sha256(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

/**
 * A stable id per (identity, metadata, owner), formatted as a UUID (version 5, variant 10) like
 * agno's. The owner is added only when there is one, so shared content keeps its old ids.
 */
function contentIdFor(identity: string, metadata: Metadata, owner: string | undefined): string {
  const meta = JSON.stringify(Object.fromEntries(Object.entries(metadata).toSorted(([a], [b]) => a.localeCompare(b))));
  return uuidFromHash(sha256(`${identity}:${meta}${owner !== undefined ? `\nowner:${owner}` : ''}`));
}

function uuidFromHash(hex: string): string {
  const variant = ((parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}
