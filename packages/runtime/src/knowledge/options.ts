/**
 * @module knowledge/options
 * The Knowledge's public types: how one is configured, what `insert` and `search` take and
 * answer.
 */
import type { Embedder } from '../model/embedder.js';
import type { Model } from '../model/model.js';
import type { Reranker } from '../model/reranker.js';
import type { HostResolver } from '../net/safe-fetch.js';
import type { IngestLimits } from '../settings/ingest.js';
import type { Offload } from '../workers/offload.js';
import type { Chunker } from './chunkers/list.js';
import type { Reader } from './readers/reader.js';
import type { RemoteSource } from './remote-sources/remote-source.js';
import type { Metadata } from './types.js';
import type { FilterInput } from './vector-stores/filter-language.js';
import type { MetadataFilters, SearchType, VectorStore } from './vector-stores/vector-store.js';

export interface KnowledgeOptions {
  /** Unique among the runtime's knowledge bases; used in routes and `knowledge_id`. */
  id: string;
  name?: string;
  description?: string;
  store: VectorStore;
  /**
   * Without one, only keyword search is available: there is no default here, since a local
   * model costs memory and CPU that code should ask for. `embedderFromEnvironment()` picks one
   * (the local sentence encoder when no key is set). SemanticChunker compares sentences with it.
   */
  embedder?: Embedder | undefined;
  /** Reorders the fused candidates of every search (see model/reranker.ts); rerankerFromEnvironment() reads RERANK_*. */
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
  /**
   * What one content may cost, each limit overriding its variable's value (settings/ingest.ts:
   * documents, chunks, characters, bytes per fetched page, nesting depth, read time). A breach
   * fails the content with a 422 naming the limit's variable.
   */
  limits?: Partial<IngestLimits>;
}

/**
 * URL ingestion limits. By default a URL whose host resolves to anything but a global unicast
 * address (loopback, private, link-local, CGNAT, documentation, benchmarking, multicast, NAT64
 * or 6to4 of any of them...; see net/address-registry.ts) is refused (SSRF protection).
 */
export interface UrlFetchOptions {
  /**
   * `true` to allow internal addresses (loopback, private, link-local, CGNAT, documentation,
   * benchmarking) for every host, or the host names allowed them. Multicast, reserved space,
   * anycast services and tunnels (6to4, Teredo) stay refused.
   */
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
   * The tenant this content belongs to (auth/tenancy.ts): its chunks are found only by searches
   * for this tenant (or unscoped ones), and the tenant is part of the content's identity, so
   * two tenants can store the same bytes. Absent: no tenant, which tenant-scoped searches never find.
   */
  tenantId?: string;
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
export type InsertChoices = Pick<InsertOptions, 'name' | 'mimeType' | 'reader' | 'chunker' | 'chunkSize' | 'chunkOverlap' | 'metadata' | 'readerOptions' | 'userId' | 'tenantId'>;

/** A location or topic a source reader reads, as the caller gave it. */
export type SourceLocation = { url: string } | { topic: string };

/** How a plan is followed (Knowledge.ingest). */
export interface IngestOptions {
  signal?: AbortSignal | undefined;
  /** The digest of the stored bytes: reading the same bytes again stores nothing. */
  unlessHash?: string | undefined;
  /** Earlier versions of this content, hidden in the step that makes it visible (see UpsertOptions). */
  replaces?: readonly string[] | undefined;
}

export interface InsertResult {
  content_id: string;
  name: string;
  reader: string;
  chunker: string;
  /** What the chunker was built with (chunk_size, chunk_overlap...); absent when nothing was chunked. */
  chunker_settings?: Record<string, unknown> | undefined;
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
  /** Search as this tenant: its content only, never another tenant's nor content of no tenant. */
  tenantId?: string;
  /**
   * Drops hits scored below this (0-1): the similarity for vector and keyword search, the
   * reranker's score when reranking. Hybrid scores without a reranker are rank fusion scores.
   */
  similarityThreshold?: number;
  signal?: AbortSignal;
  /** Told the search type actually used (hybrid falls back to keyword while vectors are rebuilt), for a trace. */
  onSearchType?: (searchType: SearchType) => void;
}

export interface KnowledgeHit {
  /** `{content_id}_{n}`, n the chunk's 1-based position in its content: unique and stable. */
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

