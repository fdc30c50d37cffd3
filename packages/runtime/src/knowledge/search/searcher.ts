/**
 * @module knowledge/search/searcher
 * One knowledge base's search: the query embedded (keywords only while a reindex to this
 * embedder runs), the store searched with filters and the caller's visibility in the same
 * query, an optional rerank over a wider field, then the similarity threshold. Filters on a
 * metadata key no stored chunk has are refused, naming the valid keys.
 */
import { badRequest, unprocessable } from '../../errors.js';
import type { Embedder } from '../../model/embedder.js';
import type { Reranker } from '../../model/reranker.js';
import { TimeSlicer } from '../../util/time-slicer.js';
import { checkTenantId, checkUserId } from '../ingest/metadata.js';
import { chunkScope, scopeKey, type ChunkScope } from '../vector-stores/chunk-scope.js';
import type { KnowledgeHit, KnowledgeSearchOptions } from '../options.js';
import { filterKeysOf, parseFilters } from '../vector-stores/filter-language.js';
import { EmbedderGate, isReindexable } from '../vector-stores/reindex.js';
import { SEARCH_TYPES, type StoredChunk, type VectorStore } from '../vector-stores/vector-store.js';

// The HTTP search pages over at most this many hits (agno's bound for max_results).
const MAX_LIMIT = 1000;
/** How many candidates per result a reranker chooses from. */
const RERANK_CANDIDATES = 3;
/** How many users' views of the metadata keys are cached at once. */
const MAX_CACHED_KEY_SETS = 256;

export interface SearcherHost {
  readonly id: string;
  readonly store: VectorStore;
  readonly embedder: Embedder | undefined;
  readonly reranker: Reranker | undefined;
  readonly maxResults: number;
  /** The store's tables exist. */
  ready(): Promise<void>;
}

export class Searcher {
  /**
   * Metadata keys of stored chunks, for refusing unknown filter keys: under `''` every chunk's,
   * under a scope's key those of the chunks that user and tenant may see (so a refusal never
   * names a key only another user's or tenant's content has). Entries are read on first use.
   */
  private readonly metadataKeys = new Map<string, { scope: ChunkScope | undefined; known: Set<string> }>();
  private gate: EmbedderGate | undefined;

  constructor(private readonly host: SearcherHost) {}

  async search(query: string, options: KnowledgeSearchOptions = {}): Promise<KnowledgeHit[]> {
    const { host } = this;
    if (typeof query !== 'string' || query.trim().length === 0) throw badRequest('The search query is empty');
    const limit = options.limit ?? host.maxResults;
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) throw badRequest(`limit must be an integer from 1 to ${MAX_LIMIT}`);
    let searchType = options.searchType ?? (host.embedder ? 'hybrid' : 'keyword');
    if (!(SEARCH_TYPES as readonly string[]).includes(searchType)) throw badRequest(`Unknown search type "${String(searchType)}"; use ${SEARCH_TYPES.join(', ')}`);
    if (searchType !== 'keyword' && !host.embedder) {
      throw badRequest(`Knowledge "${host.id}" has no embedder, so it supports keyword search only`);
    }
    const filter = parseFilters(options.filters);
    checkUserId(options.userId);
    checkTenantId(options.tenantId);
    const scope = chunkScope(options.userId, options.tenantId);
    await host.ready();
    await this.checkFilterKeys(filterKeysOf(filter), scope);
    // While a reindex to this embedder runs, the stored vectors are another embedder's: keywords only.
    const gate = searchType !== 'keyword' ? this.vectorGate() : undefined;
    if (gate && !(await gate.usable())) searchType = 'keyword';
    options.onSearchType?.(searchType);
    const vector = searchType !== 'keyword' && host.embedder ? (await host.embedder.embed([query], options.signal, { interactive: true }))[0] : undefined;
    const threshold = options.similarityThreshold;
    if (threshold !== undefined && (!Number.isFinite(threshold) || threshold < 0 || threshold > 1)) throw badRequest('similarity_threshold must be a number from 0 to 1');
    const reranker = options.rerank === false ? undefined : host.reranker;
    // The reranker chooses from a wider field than it returns.
    const candidates = reranker ? Math.min(MAX_LIMIT, limit * RERANK_CANDIDATES) : limit;
    let hits = await host.store.search({ searchType, query, vector, limit: candidates, filter, visibleTo: scope });
    if (reranker && hits.length > 0) {
      const ranked = await reranker.rerank(query, hits.map((h) => h.chunk.content), limit, options.signal);
      hits = ranked.map((r) => ({ chunk: hits[r.index]!.chunk, score: r.score }));
    }
    if (threshold !== undefined) hits = hits.filter((h) => h.score >= threshold);
    return hits.map(({ chunk, score }) => ({
      // Unique across contents: chunk ids are positions within one content (older rows: the
      // chunker's name-based ids, also unique within their content).
      id: `${chunk.content_id}_${chunk.id}`,
      content_id: chunk.content_id,
      content: chunk.content,
      ...(chunk.name !== undefined ? { name: chunk.name } : {}),
      score,
      meta_data: chunk.meta_data,
    }));
  }

  /** Keys of newly stored chunks become known to every view that sees them. */
  async noteKeys(stored: readonly StoredChunk[], owner: ChunkScope | undefined, slicer = new TimeSlicer()): Promise<void> {
    for (const { scope: viewer, known } of this.metadataKeys.values()) {
      if (viewer?.user !== undefined && owner?.user !== undefined && viewer.user !== owner.user) continue;
      if (viewer?.tenant !== undefined && viewer.tenant !== owner?.tenant) continue;
      for (let i = 0; i < stored.length; i++) {
        if ((i & 255) === 0) await slicer.pause();
        for (const key of Object.keys(stored[i]!.meta_data)) known.add(key);
      }
    }
  }

  /** Content was removed: the keys are read again when next needed. */
  forgetKeys(): void {
    this.metadataKeys.clear();
  }

  /** Compares the store's recorded embedder with this one (see vector-stores/reindex.ts). */
  private vectorGate(): EmbedderGate | undefined {
    const { embedder, store } = this.host;
    if (embedder && isReindexable(store)) this.gate ??= new EmbedderGate(store, embedder.id);
    return this.gate;
  }

  /**
   * Refuses a filter on a key no stored chunk has (a typo would otherwise match nothing, and
   * look like "no results"). The keys are cached and read again once before refusing, since
   * another runtime may have stored new ones.
   */
  private async checkFilterKeys(keys: Set<string>, scope: ChunkScope | undefined): Promise<void> {
    if (keys.size === 0) return;
    const unknown = (known: Set<string>) => [...keys].filter((k) => !known.has(k));
    const read = async () => {
      const known = new Set(await this.host.store.metadataKeys(scope));
      // Bounded: one entry per user and tenant searching with filters; the oldest goes first.
      if (this.metadataKeys.size >= MAX_CACHED_KEY_SETS && !this.metadataKeys.has(key)) this.metadataKeys.delete(this.metadataKeys.keys().next().value!);
      this.metadataKeys.set(key, { scope, known });
      return known;
    };
    const key = scopeKey(scope);
    if (unknown(this.metadataKeys.get(key)?.known ?? (await read())).length === 0) return;
    const known = await read();
    const missing = unknown(known);
    if (missing.length === 0) return;
    const valid = [...known].sort();
    throw unprocessable(
      `Unknown filter key${missing.length > 1 ? 's' : ''} ${missing.map((k) => `"${k}"`).join(', ')}; ` +
        (valid.length ? `valid keys: ${valid.slice(0, 50).join(', ')}${valid.length > 50 ? ', ...' : ''}` : 'this knowledge base has no content to filter yet'),
    );
  }
}
