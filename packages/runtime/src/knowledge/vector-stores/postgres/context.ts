/**
 * @module knowledge/vector-stores/postgres/context
 * The state the PostgreSQL store's modules share: the Db, table prefix, options, pgvector.
 */
import { RuntimeError } from '../../../errors.js';
import type { Db } from '../../../storage/db.js';
import type { PgVector } from './pgvector.js';

export interface PostgresStoreContext {
  readonly db: Db;
  /** The table prefix: `{t}_chunks`, `{t}_meta`, `{t}_reindex`. */
  readonly t: string;
  /** Text search configuration of the generated tsvector and of queries. */
  readonly language: string;
  /** The `hnsw` option with its defaults, checked (hnsw.ts); undefined when off. */
  readonly hnsw: { readonly m: number; readonly efConstruction: number; readonly efSearch: number } | undefined;
  /** Where pgvector is installed, once create() found it. */
  pgvector: PgVector | undefined;
  /** pgvector 0.8+ can keep scanning the graph past filtered-out candidates. */
  iterativeScan: boolean;
  /** The dimension the HNSW index was built for, once it exists. */
  hnswDims: number | undefined;
}

/** pgvector's names, or an error when the store was used before create(). */
export function pgvectorOf(ctx: PostgresStoreContext): PgVector {
  if (!ctx.pgvector) throw new RuntimeError('SERVICE_UNAVAILABLE', 'PostgresVectorStore: call create() first');
  return ctx.pgvector;
}
