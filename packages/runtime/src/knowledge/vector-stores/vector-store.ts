/**
 * @module knowledge/vector-stores/vector-store
 * The one contract every store implements: write, delete and search a content's chunks.
 *
 * Replace a content's chunks, delete them, and search by vector, keyword or both. Hybrid is
 * Reciprocal Rank Fusion of the other two (see fusion.ts), done the same way on every store so
 * their rankings agree.
 */
import type { ChunkScope } from './chunk-scope.js';
import type { Chunk, Metadata } from '../types.js';
import type { Filter } from './filter-language.js';

export const SEARCH_TYPES = ['vector', 'keyword', 'hybrid'] as const;
export type SearchType = (typeof SEARCH_TYPES)[number];

/** AND of equalities on metadata keys (`{ "lang": "en", "year": 2024 }`). */
export type MetadataFilters = Record<string, string | number | boolean | null>;

/** A chunk ready to store: the user's metadata (`filters`) and its vector. */
export interface StoredChunk extends Chunk {
  /** The metadata given at insert time; its keys are what `/knowledge/config` lists as filters. */
  filters: Metadata;
  embedding?: number[] | undefined;
}

export interface SearchHit {
  chunk: Chunk & { content_id: string };
  /** Higher is better; in [0, 1] for vector and keyword, an RRF score for hybrid. */
  score: number;
}

export interface SearchRequest {
  searchType: SearchType;
  /** The query text (keyword side). */
  query: string;
  /** The query's embedding (vector side); required for vector and hybrid. */
  vector?: number[] | undefined;
  limit: number;
  /** A parsed filter (see filter-language.ts). */
  filter?: Filter | undefined;
  /** The plain form, AND of type-exact equalities; used when `filter` is absent. */
  filters?: MetadataFilters | undefined;
  /**
   * Search as this user and/or tenant (chunk-scope.ts): only shared chunks (no owner) and the
   * user's own, of that tenant only, are candidates, in the same WHERE as the filters, so
   * `limit` is still met whenever that many are visible. A string is a user id alone. Absent:
   * every chunk.
   */
  visibleTo?: string | ChunkScope | undefined;
}

/** Who a content's chunks belong to; recorded on every chunk row. */
export interface ChunkOwner {
  /** The knowledge base the content was inserted through. */
  knowledgeId?: string | undefined;
  /** The owning user; absent means shared, visible to every user. */
  userId?: string | undefined;
  /** The tenant it belongs to (auth/tenancy.ts); absent: none, visible to unconfined callers only under tenancy. */
  tenantId?: string | undefined;
}

/** How a write relates to other contents. */
export interface UpsertOptions {
  /**
   * Contents this write supersedes (earlier versions of a document under the same name): their
   * chunks leave every search in the same transaction in which the new chunks enter it, so a
   * search sees the old contents or the new one, never both and never neither, even if the
   * process dies mid-write.
   */
  replaces?: readonly string[] | undefined;
}

export interface VectorStore {
  readonly id: string;
  readonly name: string;
  readonly description?: string | undefined;
  /** The database this store writes to, reported as the knowledge's `db_id`. */
  readonly dbId: string;
  /** This store's table (prefix), reported in `/config`. */
  readonly table: string;
  /** Creates tables and indexes if missing; idempotent. */
  create(): Promise<void>;
  /**
   * Replaces every chunk of `contentId` with `chunks` in one transaction. `embedderId` is
   * recorded with the first vectors; later vectors from another embedder or of another length
   * are refused (CONFLICT), since they could not be compared with the stored ones. `owner` is
   * written on every row; `options.replaces` names contents whose chunks go in the same step.
   */
  upsert(contentId: string, chunks: readonly StoredChunk[], embedderId?: string, owner?: ChunkOwner, options?: UpsertOptions): Promise<void>;
  /** With `ownedBy`, only chunks that user owns are deleted (never shared or another user's). */
  deleteByContentId(contentId: string, options?: { ownedBy?: string | undefined }): Promise<number>;
  contentExists(contentId: string): Promise<boolean>;
  search(request: SearchRequest): Promise<SearchHit[]>;
  /** Keys of the user metadata on stored chunks, sorted; with `visibleTo`, of the chunks that scope may see. */
  filterKeys(visibleTo?: string | ChunkScope): Promise<string[]>;
  /** Every key of stored chunks' metadata (reader and chunker keys too), which filters may name; `visibleTo` as above. */
  metadataKeys(visibleTo?: string | ChunkScope): Promise<string[]>;
  close(): Promise<void>;
}
