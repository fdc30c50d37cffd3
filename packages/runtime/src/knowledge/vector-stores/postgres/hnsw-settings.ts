/**
 * @module knowledge/vector-stores/postgres/hnsw-settings
 * The PostgreSQL store's `hnsw` option: pgvector's index and search settings, with defaults
 * chosen by measurement (bench/knowledge-postgres.ts, docs/ARCHITECTURE.md) and checked ranges.
 */

/** pgvector's HNSW settings (see its README), with defaults chosen by bench/knowledge-postgres.ts. */
export interface HnswOptions {
  /** Links per node; default 16 (pgvector's). */
  m?: number;
  /** Candidate list while building; default 64 (pgvector's). */
  efConstruction?: number;
  /**
   * Candidate list while searching (`hnsw.ef_search`); default 300. At 100k clustered 512-d
   * chunks pgvector's 40 gave recall@10 ~0.83, 100 ~0.90, 200 ~0.94-0.97, 400 ~0.98
   * (bench/knowledge-postgres.ts). Raised to the request's limit when that is larger.
   */
  efSearch?: number;
  /**
   * `hnsw.ef_search` when a filter or a user's scope narrows the search; default 400: with a
   * first pass of 100-200 candidates the iterative scan's recall under a 1 % filter was
   * 0.82-0.89, with 400 1.0.
   */
  filteredEfSearch?: number;
  /**
   * How many candidates a narrowed search takes from the index, as a multiple of its limit, to
   * re-sort by full-precision distance and keep the nearest `limit`; default 8. The iterative
   * scan hands rows over nearly in order, and under a filter the nearest matching rows are
   * often near ties: at 100k chunks, recall@10 with 2 / 4 / 6-8 / 10 times was 0.955 / 0.976 /
   * 0.976 / 0.976 under a 1 % filter, 0.925 / 0.939 / ~0.95 / 0.958 for one base of 8 and
   * 0.908 / 0.947 / 0.961 / 0.971 under a ~4 % user scope (bench/knowledge-postgres.ts).
   */
  filteredCandidates?: number;
  /**
   * `hnsw.max_scan_tuples`: how many index tuples an iterative scan may visit before it stops;
   * default 20,000 (pgvector's). A search left short of `limit` then scans exactly.
   */
  maxScanTuples?: number;
  /**
   * A narrowed search whose filter or scope an index answers (an equality on the metadata, the
   * user's or tenant's scope) and that matches at most this many rows is answered exactly over
   * them instead of through the graph (narrowed-search.ts); default 15,000; 0: always the graph.
   * At 100k chunks (vectors in the row) scoring the 1,000 / 4,000 / 12,500 rows of a 1 % filter,
   * a ~4 % scope, one base of 8 took p50/p99 ~4/6, ~7/9, ~23/30 ms with recall 1; the walk under
   * them ~86/108, ~29/67, ~13/29 ms with recall 0.98, 0.96, 0.93 (bench/knowledge-postgres.ts).
   */
  exactNarrowedRows?: number;
  /** Index the vectors as `halfvec` (16-bit floats); default true. False: full precision. */
  halfvec?: boolean;
  /** `maintenance_work_mem` for the build (the graph should fit); default `1GB`. */
  buildMemory?: string;
}

export type HnswSettings = Required<HnswOptions>;

/** The options with their defaults, each checked against the range pgvector accepts. */
export function hnswSettings(options: HnswOptions): HnswSettings {
  const { m = 16, efConstruction = 64, efSearch = 300, filteredEfSearch = 400, filteredCandidates = 8, maxScanTuples = 20_000, exactNarrowedRows = 15_000, halfvec = true, buildMemory = '1GB' } = options;
  checkSetting('m', m, 2, 100);
  checkSetting('efConstruction', efConstruction, 4, 1000);
  checkSetting('efSearch', efSearch, 1, 1000);
  checkSetting('filteredEfSearch', filteredEfSearch, 1, 1000);
  checkSetting('filteredCandidates', filteredCandidates, 1, 100);
  checkSetting('maxScanTuples', maxScanTuples, 1, 2_147_483_647);
  checkSetting('exactNarrowedRows', exactNarrowedRows, 0, 1_000_000);
  if (typeof halfvec !== 'boolean') throw new TypeError(`PostgresVectorStore: hnsw.halfvec must be true or false, got ${String(halfvec)}`);
  if (typeof buildMemory !== 'string' || !/^\d+\s*(kB|MB|GB)$/.test(buildMemory)) throw new TypeError(`PostgresVectorStore: hnsw.buildMemory must look like "1GB" or "512MB", got ${String(buildMemory)}`);
  return { m, efConstruction, efSearch, filteredEfSearch, filteredCandidates, maxScanTuples, exactNarrowedRows, halfvec, buildMemory };
}

function checkSetting(name: string, value: number, min: number, max: number): void {
  if (!Number.isInteger(value) || value < min || value > max) throw new TypeError(`PostgresVectorStore: hnsw.${name} must be a whole number from ${min} to ${max}, got ${value}`);
}

