/**
 * @module knowledge/vector-stores/sqlite/context
 * The state the SQLite store's modules share: connection, table prefix, indexes, threads.
 */
import type Database from 'better-sqlite3';
import type { BackgroundCheckpoints } from './checkpoint.js';
import type { IvfIndex } from './ivf.js';
import type { SqliteReader } from './reader-thread.js';

export interface SqliteStoreContext {
  /** The table prefix: `{t}_chunks`, `{t}_fts`, `{t}_meta`, `{t}_reindex`, ... */
  readonly t: string;
  /** Runs synchronous work on the connection, turning driver errors into the runtime's storage errors. */
  run<T>(fn: (db: Database.Database) => T): T;
  /** The connection, or undefined once the store is closed. */
  connection(): Database.Database | undefined;
  /** Whether the chunk table has versions (staged writes); false for a table made before them. */
  staged: boolean;
  /** Whether the binary-quantized candidate index exists. */
  bits: boolean;
  /** The `quantizedCandidates` option, when chosen. */
  readonly candidates: { perResult: number; min: number } | undefined;
  /** The IVF index: searched through (and trained) unless `ivf: false`, maintained always. */
  readonly ivf: IvfIndex;
  /** Checkpoints of the log in a pool thread during staged writes (not for `:memory:`). */
  readonly checkpoints: BackgroundCheckpoints | undefined;
  /** A thread reading the file for full-text queries of large stores (not for `:memory:`). */
  readonly reader: SqliteReader | undefined;
}
