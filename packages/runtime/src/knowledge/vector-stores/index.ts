/**
 * @module knowledge/vector-stores
 * The vector stores' public surface: the contract, then every store, one line each. This is
 * the list a new store joins (docs/ARCHITECTURE.md, "Vector stores behind one contract");
 * knowledge/index.ts re-exports it.
 */
export { SEARCH_TYPES, type SearchType, type MetadataFilters, type VectorStore, type StoredChunk, type SearchHit, type SearchRequest } from './vector-store.js';
export { SqliteVectorStore, type SqliteVectorStoreOptions } from './sqlite/store.js';
export { PostgresVectorStore, type PostgresVectorStoreOptions } from './postgres/store.js';
