/**
 * @module knowledge/knowledge
 * A knowledge base: insert content (read -> chunk -> embed -> store) and search it. It is what
 * agents search through their `search_knowledge_base` tool, and what `/knowledge/config`
 * describes.
 *
 * Without an embedder it stores chunks without vectors and searches by keyword; with one, the
 * default search is hybrid. It takes no embedder of its own accord: `embedderFromEnvironment()`
 * gives the configured one, or the local sentence encoder when no key is set.
 *
 * An insert is resolved first (ingest/planner.ts: reader, chunker, identity; every refusal a
 * 400 before anything is read), then flows one way through ingest/pipeline.ts. The HTTP upload
 * resolves its `plan` at upload time and its job follows it (`ingest`).
 *
 * @example
 * ```ts
 * const docs = new Knowledge({ id: 'docs', store: new SqliteVectorStore({ path: 'data/knowledge.db' }) });
 * await docs.insert({ path: 'docs/guide.md', metadata: { area: 'setup' } });
 * const hits = await docs.search('how do I change the port?', { limit: 3 });
 * ```
 */
import { basename } from 'node:path';
import type { SearchableKnowledge } from '../components/component.js';
import { badRequest, ConfigurationError, isStackOverflow, unprocessable } from '../errors.js';
import type { Embedder } from '../model/embedder.js';
import type { Model } from '../model/model.js';
import type { Reranker } from '../model/reranker.js';
import { readIngestLimits, type IngestLimits } from '../settings/ingest.js';
import { mapSliced } from '../util/time-slicer.js';
import { sha256Sliced } from '../util/utf8-slices.js';
import { sharedOffload, type Offload } from '../workers/offload.js';
import type { ChunkerType } from './chunkers/list.js';
import { createChunker } from './chunkers/registry.js';
import { chunkerSettings, contentChunkerSettings } from './chunkers/settings.js';
import type { ConfigurableKnowledge } from './configurable.js';
import { withinReadTime } from './ingest/deadline.js';
import { contentIdFor, documentsDigest, sourceIdentity } from './ingest/identity.js';
import { checkMetadata, checkTenantId, checkUserId } from './ingest/metadata.js';
import { chunkAll, storeChunks, type PipelineHost, type ReadPart, type StoreTarget } from './ingest/pipeline.js';
import type { IngestInput, IngestPlan } from './ingest/plan.js';
import { Planner, type PlannedSource } from './ingest/planner.js';
import { readPath, tooLarge } from './ingest/read-path.js';
import { sourceContext } from './ingest/source-context.js';
import type { IngestOptions, InsertChoices, InsertOptions, InsertResult, KnowledgeHit, KnowledgeOptions, KnowledgeSearchOptions, SourceLocation, UrlFetchOptions, VectorDbInfo } from './options.js';
import { type Reader } from './readers/reader.js';
import { isCollectionReader, isSourceReader, type ChildContent, type FailedChild, type SourceChild, type SourceReader } from './readers/sources/source-reader.js';
import { ReaderRegistry, defaultReaders } from './readers/registry.js';
import { readChild } from './readers/sources/collection.js';
import { checkUniqueIds, isRemoteSource, type RemoteSource } from './remote-sources/remote-source.js';
import { Searcher } from './search/searcher.js';
import type { Chunk, Metadata } from './types.js';
import { SEARCH_TYPES, type SearchType, type VectorStore } from './vector-stores/vector-store.js';
import { chunkScope, type ChunkScope } from './vector-stores/chunk-scope.js';

const ID = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/;

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
  /** What one content may cost (settings/ingest: KNOWLEDGE_MAX_*, overridden by the `limits` option). */
  readonly limits: IngestLimits;
  private readonly offload: Offload | undefined;
  private readonly planner: Planner;
  private readonly searcher: Searcher;
  private readonly pipeline: PipelineHost;
  private created: Promise<void> | undefined;
  private runtimeModel: Model | undefined;

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
    this.limits = { ...readIngestLimits(), ...options.limits };
    const sources = options.contentSources ?? [];
    if (!Array.isArray(sources)) throw new ConfigurationError(`Knowledge "${this.id}": contentSources must be an array`);
    for (const [index, source] of sources.entries()) {
      if (!isRemoteSource(source)) throw new ConfigurationError(`Knowledge "${this.id}": contentSources[${index}] is not a content source (S3Source, GcsSource, AzureBlobSource, SharePointSource or GitHubSource)`);
    }
    checkUniqueIds(sources, `Knowledge "${this.id}"`);
    this.contentSources = Object.freeze([...sources]);
    this.planner = new Planner(this);
    const ready = () => this.ready();
    this.searcher = new Searcher({ id: this.id, store: this.store, embedder: this.embedder, reranker: this.reranker, maxResults: this.maxResults, ready });
    this.pipeline = {
      id: this.id,
      store: this.store,
      embedder: this.embedder,
      chunkModel: () => this.chunkModel,
      offload: () => this.offload ?? sharedOffload(),
      limits: this.limits,
      ready,
      noteKeys: (stored, owner) => this.searcher.noteKeys(stored, owner),
    };
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
    checkTenantId(options.tenantId);
    if (options.url !== undefined || options.topic !== undefined) {
      const location: SourceLocation = options.url !== undefined ? { url: options.url } : { topic: options.topic! };
      const { reader, readWith } = this.planner.resolveSource(options, location);
      const contentId = options.contentId ?? contentIdFor(sourceIdentity(reader, location, options.readerOptions), metadata, options.userId, options.tenantId);
      return this.readSource(reader, readWith, location, { ...options, contentId }, metadata);
    }
    const name = options.name ?? (options.path !== undefined ? basename(options.path) : options.buffer ? 'content' : 'text');
    const data = options.path !== undefined ? await readPath(options.path, this.maxContentBytes) : (options.text ?? options.buffer)!;
    this.checkSize(data, name);
    const reader = this.planner.byteReader({ ...options, name });
    const chunker = this.planner.chunkerFor(reader, options);
    // A path or an explicit name identifies the content, so re-inserting an edited file
    // replaces its chunks; an unnamed text is identified by its bytes.
    const identity = (hash: string) => (options.path !== undefined ? `path:${options.path}` : options.name !== undefined ? `name:${name}` : `data:${hash}`);
    return this.readBytes({ reader, chunker, data, name, signal: options.signal, unlessHash: options.unlessHash }, (hash) => options.contentId ?? contentIdFor(identity(hash), metadata, options.userId, options.tenantId), metadata, chunkScope(options.userId, options.tenantId));
  }

  /**
   * Validates an upload's choices and resolves them once: reader, chunker, normalised location,
   * content id and (for bytes) their digest. Its job follows the plan with `ingest`.
   */
  plan(choices: InsertChoices, source: { sha256: string } | SourceLocation): IngestPlan {
    return this.planner.plan(choices, source);
  }

  /**
   * Follows a plan: reads what it names with its reader (bytes or text as `input`; a location or
   * topic from the plan), chunks, embeds and stores under its content id. With `unlessHash` equal
   * to the digest of what is read, nothing is stored again and the result says `unchanged`.
   */
  async ingest(plan: IngestPlan, input: IngestInput, options: IngestOptions = {}): Promise<InsertResult> {
    const metadata = plan.metadata ?? {};
    const sizes = { ...(plan.chunk_size !== undefined ? { chunkSize: plan.chunk_size } : {}), ...(plan.chunk_overlap !== undefined ? { overlap: plan.chunk_overlap } : {}) };
    if ('url' in input || 'topic' in input) {
      const reader = this.planner.sourceReader(plan.reader);
      const readWith = plan.read_with !== undefined ? this.readers.get(plan.read_with) : undefined;
      const location: SourceLocation = plan.url !== undefined ? { url: plan.url } : plan.topic !== undefined ? { topic: plan.topic } : input;
      const choices = { name: plan.name, readerOptions: plan.reader_options, chunker: plan.chunker, chunkSize: plan.chunk_size, chunkOverlap: plan.chunk_overlap, ...options, userId: plan.user_id, tenantId: plan.tenant_id };
      return this.readSource(reader, readWith, location, { ...choices, contentId: plan.content_id }, metadata);
    }
    const data = 'text' in input ? input.text : input.buffer;
    const name = plan.name ?? ('buffer' in input ? 'content' : 'text');
    this.checkSize(data, name);
    const reader = this.readers.get(plan.reader);
    const chunker = createChunker(plan.chunker as ChunkerType, sizes);
    return this.readBytes({ reader, chunker, data, name, hash: plan.sha256, ...options }, () => plan.content_id, metadata, chunkScope(plan.user_id, plan.tenant_id));
  }

  private checkSize(data: string | Uint8Array, name: string): void {
    const size = typeof data === 'string' ? Buffer.byteLength(data) : data.byteLength;
    if (size > this.maxContentBytes) throw tooLarge(name, this.maxContentBytes);
  }

  /** Bytes or text: hashed (unless the plan knows the digest), read, then the pipeline. */
  private async readBytes(
    r: { reader: Reader; chunker: ReturnType<Planner['chunkerFor']>; data: string | Uint8Array; name: string; hash?: string | undefined } & IngestOptions,
    contentIdOf: (hash: string) => string,
    metadata: Metadata,
    owner: ChunkScope | undefined,
  ): Promise<InsertResult> {
    // A slice at a time: a 10 MB text hashed in one call held the event loop ~12 ms.
    const hash = r.hash ?? (await sha256Sliced(r.data, undefined, r.signal));
    const contentId = contentIdOf(hash);
    if (r.unlessHash === hash) return { content_id: contentId, name: r.name, reader: r.reader.id, chunker: r.chunker.type, chunks: 0, hash, unchanged: true };
    const notes: string[] = [];
    const target: StoreTarget = { name: r.name, sourceName: r.name, metadata, contentId, userId: owner?.user, tenantId: owner?.tenant, signal: r.signal, replaces: r.replaces };
    const chunks = await this.readWithin(target, async (signal) => {
      const documents = await r.reader.read({ data: r.data, name: r.name }, { signal, notes, limits: this.limits }).catch((error: unknown) => {
        // A reader on this thread that recursed as deep as the file is nested (the built-in ones
        // refuse past KNOWLEDGE_MAX_DEPTH first; a custom reader may not).
        throw isStackOverflow(error as Error) ? unprocessable(`${r.reader.id} reader: "${r.name}" is nested too deeply to read (it overflowed the stack)`, error) : error;
      });
      return [{ documents, chunker: r.chunker, reader: r.reader }];
    });
    const stored = await storeChunks(this.pipeline, chunks, target);
    return { ...stored, reader: r.reader.id, chunker: r.chunker.type, chunker_settings: chunkerSettings(r.chunker), hash, ...(notes.length > 0 ? { notes } : {}) };
  }

  /** Reads (`read`) and chunks one content within its time budget (KNOWLEDGE_MAX_READ_SECONDS). */
  private readWithin(target: StoreTarget, read: (signal: AbortSignal) => Promise<ReadPart[]>): Promise<Chunk[]> {
    return withinReadTime(target.name, this.limits.readTimeoutMs, target.signal, async (signal) => chunkAll(this.pipeline, await read(signal), { ...target, signal }));
  }

  /**
   * Reads a location or topic with a source reader (for a URL without one named, the `url`
   * reader, which reads what it fetches with the reader its content type picks, or the byte
   * reader named). Each group of documents is chunked with the chunker given, else the default
   * of the reader that read it.
   */
  private async readSource(
    reader: SourceReader,
    readWith: Reader | undefined,
    location: SourceLocation,
    options: Pick<InsertOptions, 'name' | 'readerOptions' | 'chunker' | 'chunkSize' | 'chunkOverlap' | 'signal' | 'unlessHash' | 'userId' | 'tenantId'> & { contentId: string; replaces?: readonly string[] | undefined },
    metadata: Metadata,
  ): Promise<InsertResult> {
    const input = { ...location, name: options.name, options: options.readerOptions ?? {}, readWith };
    const checked = reader.check(input);
    if (options.chunker !== undefined && (readWith || reader.id !== 'url')) this.planner.chunkerFor(readWith ?? reader, options);
    const where = checked.url ?? checked.topic ?? ('url' in location ? location.url : location.topic);
    let read: { name: string; parts: ReadPart[]; hash: string; readerId: string; notes: { notes?: string[] }; size: { size?: number } } | undefined;
    // The time budget runs from the first request to the last chunk, so a slow page counts too.
    const chunks = await withinReadTime(options.name ?? where, this.limits.readTimeoutMs, options.signal, async (signal) => {
      const result = await reader.readSource({ ...input, ...checked }, sourceContext(this.urlFetch, this.readers, this.maxContentBytes, signal, this.limits));
      const name = options.name ?? result.title ?? where;
      const parts: ReadPart[] = [];
      for (const part of result.parts) {
        const documents = await mapSliced(part.documents, (doc) => ({ ...doc, name: doc.name ?? name }));
        parts.push({ documents, chunker: this.planner.chunkerFor(part.reader, options), reader: part.reader });
      }
      const hash = result.hash ?? (await documentsDigest(result.parts.flatMap((p) => p.documents), signal));
      read = { name, parts, hash, readerId: result.readerId ?? reader.id, notes: result.notes.length > 0 ? { notes: result.notes } : {}, size: result.size !== undefined ? { size: result.size } : {} };
      if (options.unlessHash === hash) return [];
      return chunkAll(this.pipeline, parts, { ...this.sourceTarget(read.name, checked.url, metadata, options), signal });
    });
    const { name, parts, hash, readerId, notes, size } = read!;
    const chunker = [...new Set(parts.map((p) => p.chunker.type))].join(', ') || (readWith ?? reader).chunkers[0] || 'none';
    if (options.unlessHash === hash) return { content_id: options.contentId, name, reader: readerId, chunker, chunks: 0, ...size, hash, unchanged: true, ...notes };
    const stored = await storeChunks(this.pipeline, chunks, this.sourceTarget(name, checked.url, metadata, options));
    return { ...stored, reader: readerId, chunker, chunker_settings: contentChunkerSettings(parts.map((p) => p.chunker)), ...size, hash, ...notes };
  }

  private sourceTarget(name: string, url: string | undefined, metadata: Metadata, options: Pick<StoreTarget, 'contentId' | 'replaces'> & { userId?: string | undefined; tenantId?: string | undefined; signal?: AbortSignal | undefined }): StoreTarget {
    const { contentId, userId, tenantId, signal, replaces } = options;
    return { name, sourceName: url?.split('/').pop() || name, sourceId: url, metadata, contentId, userId, tenantId, signal, replaces };
  }

  /** Checks a url or topic and the choices for it without I/O (see Planner.checkSource). */
  checkSource(choices: InsertChoices, location: SourceLocation): { url?: string; topic?: string } {
    return this.planner.checkSource(choices, location);
  }

  /** Refuses an unknown reader, an unsupported chunker or invalid metadata without reading anything. */
  checkInsert(choices: InsertChoices): void {
    this.planner.checkInsert(choices);
  }

  /** The id of content before it is read (see Planner.contentIdentity). */
  contentIdentity(choices: InsertChoices, source: PlannedSource): string {
    return this.planner.contentIdentity(choices, source);
  }

  /**
   * Whether a location names a collection (a website, a prefix, a crawl) rather than one item:
   * the HTTP API then keeps a record per child (see content/collection-job.ts). Answers the id
   * of the collection's reader, or undefined for a single item.
   */
  collectionReader(choices: InsertChoices, location: SourceLocation): string | undefined {
    if (!('url' in location)) return undefined;
    const { reader, readWith } = this.planner.resolveSource(choices, location);
    return isCollectionReader(reader) && reader.isCollection({ ...location, name: choices.name, options: choices.readerOptions ?? {}, readWith }) ? reader.id : undefined;
  }

  /** The children of a collection, lazily, in a stable order; `notes` collects what was skipped. */
  children(choices: InsertChoices, location: SourceLocation, signal: AbortSignal | undefined, notes: string[]): AsyncIterable<SourceChild | FailedChild> {
    const { reader, readWith } = this.planner.resolveSource(choices, location);
    if (!isCollectionReader(reader)) throw badRequest(`The ${reader.id} reader does not read collections`);
    return reader.children({ ...location, name: choices.name, options: choices.readerOptions ?? {}, readWith }, sourceContext(this.urlFetch, this.readers, this.maxContentBytes, signal, this.limits), notes);
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
    const hash = 'bytes' in content ? await sha256Sliced(content.bytes, undefined, options.signal) : content.hash;
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
    const target: StoreTarget = { name, sourceName, sourceId: options.key, metadata, contentId: options.contentId, userId: options.userId, tenantId: options.tenantId, signal: options.signal };
    let used: Pick<InsertResult, 'reader' | 'chunker' | 'chunker_settings'> | undefined;
    const chunks = await this.readWithin(target, async (signal) => {
      const read = await readChild(content, { readers: this.readers, signal, limits: this.limits, reader: named && !isSourceReader(named) ? named : undefined }, notes);
      const chunker = this.planner.chunkerFor(read.reader, options);
      used = { reader: read.reader.id, chunker: chunker.type, chunker_settings: chunkerSettings(chunker) };
      return [{ documents: await mapSliced(read.documents, (doc) => ({ ...doc, name })), chunker, reader: read.reader }];
    });
    const stored = await storeChunks(this.pipeline, chunks, target);
    return { ...stored, ...used!, ...sized, hash, ...(notes.length > 0 ? { notes } : {}) };
  }

  search(query: string, options: KnowledgeSearchOptions = {}): Promise<KnowledgeHit[]> {
    return this.searcher.search(query, options);
  }

  /**
   * Deletes a content's chunks. With `userId`, only chunks that user owns are deleted: shared
   * content and another user's are left as they are.
   */
  async remove(contentId: string, options: { userId?: string | undefined } = {}): Promise<boolean> {
    checkUserId(options.userId);
    await this.ready();
    this.searcher.forgetKeys();
    return (await this.store.deleteByContentId(contentId, { ownedBy: options.userId })) > 0;
  }

  /** The metadata keys stored content can be filtered on; with `userId` (`tenantId`), of the content that user (tenant) may see. */
  async filterKeys(options: { userId?: string | undefined; tenantId?: string | undefined } = {}): Promise<string[]> {
    checkUserId(options.userId);
    checkTenantId(options.tenantId);
    await this.ready();
    return this.store.filterKeys(chunkScope(options.userId, options.tenantId));
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
