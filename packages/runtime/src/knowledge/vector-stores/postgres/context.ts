/**
 * @module knowledge/vector-stores/postgres/context
 * The state the PostgreSQL store's modules share: the Db, table prefix, options, pgvector.
 */
import { RuntimeError } from '../../../errors.js';
import type { Db } from '../../../storage/db.js';
import type { HnswSettings } from './hnsw-settings.js';
import type { PgVector } from './pgvector.js';

/** A valid HNSW index searches use: its name, the dimension it casts to, halfvec or vector. */
export interface HnswIndex {
  name: string;
  dims: number;
  half: boolean;
}

/** Which indexes narrowed searches reach rows through are valid (narrowing-indexes.ts). */
export interface NarrowingIndexes {
  meta: boolean;
  user: boolean;
  tenant: boolean;
}

export interface PostgresStoreContext {
  readonly db: Db;
  /** The table prefix: `{t}_chunks`, `{t}_meta`, `{t}_reindex`. */
  readonly t: string;
  /** Text search configuration of the generated tsvector and of queries. */
  readonly language: string;
  /** The `hnsw` option with its defaults, checked (hnsw.ts); undefined when off. */
  readonly hnsw: Readonly<HnswSettings> | undefined;
  /** Where pgvector is installed, once create() found it. */
  pgvector: PgVector | undefined;
  /** pgvector 0.8+ can keep scanning the graph past filtered-out candidates. */
  iterativeScan: boolean;
  /** The valid HNSW index searches go through (the wanted one, or an older one until it is built). */
  hnswIndex: HnswIndex | undefined;
  /** The build in progress (hnsw-build.ts), with the dimension it builds for. */
  hnswBuild: { dims: number; done: Promise<void>; cancel: () => Promise<void> } | undefined;
  /** Which indexes a narrowed search can reach its rows through (narrowing-indexes.ts). */
  narrowing: NarrowingIndexes;
  /** Narrowings recently found to match more rows than `exactNarrowedRows`: key -> until when (ms). */
  broadNarrowings: Map<string, number>;
}

/** pgvector's names, or an error when the store was used before create(). */
export function pgvectorOf(ctx: PostgresStoreContext): PgVector {
  if (!ctx.pgvector) throw new RuntimeError('SERVICE_UNAVAILABLE', 'PostgresVectorStore: call create() first');
  return ctx.pgvector;
}
