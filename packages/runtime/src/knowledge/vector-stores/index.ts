/**
 * @module knowledge/vector-stores
 * The vector stores' public surface and the one list of stores, one line each.
 *
 * The contract first, then every store. A new store is a folder beside sqlite/ and postgres/
 * plus its line here (docs/ARCHITECTURE.md, "Vector stores behind one contract");
 * knowledge/index.ts re-exports this list.
 */
export { SEARCH_TYPES, type SearchType, type MetadataFilters, type VectorStore, type StoredChunk, type SearchHit, type SearchRequest } from './vector-store.js';
export type { ChunkScope } from './chunk-scope.js';
export { SqliteVectorStore, type SqliteVectorStoreOptions } from './sqlite/store.js';
export { PostgresVectorStore, type PostgresVectorStoreOptions } from './postgres/store.js';
