/**
 * PostgreSQL vector search through pgvector's HNSW index, against exact search on the same rows
 * in the same run (part of bench/knowledge.ts, so of `npm run bench`):
 *
 * - latency p50/p99 and recall@10 of unfiltered vector search, exact and through the index as
 *   `halfvec` (the store's default) and as full-precision `vector`, with `hnsw.ef_search` swept;
 * - the same with a selective metadata filter (1 % of the rows), with several knowledge bases
 *   sharing the table (a `base` key, 8 bases) and with a user's scope (shared chunks and the
 *   user's own, ~4 %): recall against exact search under the same filter, and how many
 *   searches returned exactly `limit` hits; by default a narrowing an index reaches that
 *   matches at most `exactNarrowedRows` rows is answered exactly over them, and the rows
 *   "walk" show the graph alone (`exactNarrowedRows: 0`) with the candidates re-sorted swept
 *   (2, 4 and the default 8 times `limit`);
 * - the index's build time and size, and the table's size.
 *
 * Vectors: synthetic, clustered, at the local embedder's dimension (512; bench/support/
 * clustered-vectors.ts says how they are made and why not real ones). Queries: new chunks of
 * existing documents. Sizes: BENCH_PG_VECTOR_SIZES (default 100,000; 1,000,000 took ~30 min on
 * the shared 2-core machine, 6 to load and 13 to build the index, so it is an option:
 * BENCH_PG_VECTOR_SIZES=100000,1000000).
 * BENCH_PG_KEEP=1 keeps the loaded table (`bench_pgvec_keep_<size>_<dims>`) and reuses it in the
 * next run with that setting, skipping the load (minutes at 100k); BENCH_PG_FULL_PRECISION=0
 * skips the full-precision index (whose build also drops the kept table's halfvec one).
 *
 *   TEST_POSTGRES_URL=postgres://... npx tsx --conditions=source bench/knowledge-postgres.ts
 */
import { loadavg } from 'node:os';
import { PostgresVectorStore } from '../packages/runtime/src/knowledge/vector-stores/postgres/store.js';
import type { MetadataFilters, StoredChunk } from '../packages/runtime/src/knowledge/vector-stores/vector-store.js';
import type { Db } from '../packages/runtime/src/storage/db.js';
import { seededRandom } from '../packages/runtime/src/util/seeded-random.js';
import { ClusteredVectors } from './support/clustered-vectors.js';

export interface PgVectorBenchOptions {
  db: Db;
  /** Chunks; default [100,000] or BENCH_PG_VECTOR_SIZES. */
  sizes?: number[];
  dimensions?: number;
  /** Unfiltered queries (each scenario gets half as many); default 200. */
  queries?: number;
  /** `hnsw.ef_search` values to sweep besides the default; default [100, 200, 400]. */
  efSweep?: number[];
  /** Narrowed searches' `filteredCandidates` to sweep besides the default (8); default [2, 4]. */
  candidateSweep?: number[];
  /** Also build and measure the full-precision index; default true. */
  fullPrecision?: boolean;
  write?: (text: string) => void;
}

export interface PgVectorRow {
  size: number;
  variant: string;
  scenario: string;
  p50: number;
  p99: number;
  recall10: number;
  /** Searches that returned exactly `limit` hits, of `queries`. */
  full: number;
  queries: number;
}

export interface PgVectorReport {
  rows: PgVectorRow[];
  builds: { size: number; variant: string; seconds: number; indexMb: number; tableMb: number }[];
  loadAverage: number[];
}

interface Scenario {
  name: string;
  filters?: MetadataFilters;
  visibleTo?: string;
}

const LIMIT = 10;
const CONTENT_CHUNKS = 100;
const USERS = 50;
const SCENARIOS: Scenario[] = [
  { name: 'no filter' },
  { name: 'filter 1 %', filters: { group: 7 } },
  { name: 'base 1 of 8', filters: { base: 'kb3' } },
  { name: 'user scope ~4 %', visibleTo: 'user-7' },
];

export function pgVectorSizesFromEnv(env: NodeJS.ProcessEnv = process.env): number[] | undefined {
  const raw = env.BENCH_PG_VECTOR_SIZES?.trim();
  if (!raw) return undefined;
  const sizes = raw.split(',').map((s) => Number(s.trim()));
  if (sizes.some((s) => !Number.isInteger(s) || s < 1000)) throw new Error(`BENCH_PG_VECTOR_SIZES must be whole numbers of at least 1000, got "${raw}"`);
  return sizes;
}

/** The content holding chunk `i`, and its owner: every 50th content shared, the rest spread over 50 users. */
function ownerOf(content: number): string | undefined {
  return content % USERS === 0 ? undefined : `user-${content % USERS}`;
}

async function load(store: PostgresVectorStore, size: number, vectors: ClusteredVectors): Promise<void> {
  await store.create();
  for (let start = 0; start < size; start += CONTENT_CHUNKS) {
    const content = start / CONTENT_CHUNKS;
    const chunks: StoredChunk[] = [];
    for (let i = start; i < Math.min(size, start + CONTENT_CHUNKS); i++) {
      const meta = { group: i % 100, base: `kb${content % 8}` };
      chunks.push({ id: String(i), content: `chunk ${i} of document ${vectors.documentOf(i)}`, meta_data: meta, filters: meta, embedding: Array.from(vectors.vector(i)) });
    }
    await store.upsert(`content-${content}`, chunks, `bench:clustered-${vectors.dimensions}`, { knowledgeId: `kb${content % 8}`, userId: ownerOf(content) });
  }
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

async function measure(store: PostgresVectorStore, queries: number[][], scenario: Scenario, truth?: string[][]): Promise<{ ids: string[][]; p50: number; p99: number; recall10: number; full: number }> {
  const search = (vector: number[]) => store.search({ searchType: 'vector', query: '', vector, limit: LIMIT, filters: scenario.filters, visibleTo: scenario.visibleTo });
  for (const q of queries.slice(0, 3)) await search(q);
  const times: number[] = [];
  const ids: string[][] = [];
  let full = 0;
  for (const q of queries) {
    const t = performance.now();
    const hits = await search(q);
    times.push(performance.now() - t);
    ids.push(hits.map((h) => h.chunk.id));
    if (hits.length === LIMIT) full++;
  }
  times.sort((a, b) => a - b);
  const found = truth ? ids.reduce((sum, r, i) => sum + r.filter((id) => truth[i]!.includes(id)).length, 0) : queries.length * LIMIT;
  const expected = truth ? truth.reduce((sum, r) => sum + r.length, 0) : queries.length * LIMIT;
  return { ids, p50: percentile(times, 50), p99: percentile(times, 99), recall10: expected === 0 ? 1 : found / expected, full };
}

async function sizeMb(db: Db, relation: string): Promise<number> {
  const [row] = await db.query<{ bytes: number | string | null }>('SELECT pg_relation_size(to_regclass($1)) AS bytes', [relation]);
  return Number(row?.bytes ?? 0) / 1e6;
}

async function tableMb(db: Db, table: string): Promise<number> {
  const [row] = await db.query<{ bytes: number | string | null }>('SELECT pg_table_size(to_regclass($1)) AS bytes', [table]);
  return Number(row?.bytes ?? 0) / 1e6;
}

/** How many chunks a kept table holds (0 when there is none). */
async function loadedRows(db: Db, table: string): Promise<number> {
  const [found] = await db.query<{ found: string | null }>('SELECT to_regclass($1)::text AS found', [`${table}_chunks`]);
  if (!found?.found) return 0;
  const [row] = await db.query<{ n: number | string }>(`SELECT count(*) AS n FROM ${table}_chunks`);
  return Number(row?.n ?? 0);
}

export async function dropPgVectorTables(db: Db, table: string): Promise<void> {
  for (const suffix of ['chunks', 'meta', 'reindex']) await db.execute(`DROP TABLE IF EXISTS ${table}_${suffix}`);
}

export async function benchPostgresVectors(options: PgVectorBenchOptions): Promise<PgVectorReport> {
  const { db } = options;
  const write = options.write ?? ((text: string) => process.stdout.write(text));
  const sizes = options.sizes ?? pgVectorSizesFromEnv() ?? [100_000];
  const dimensions = options.dimensions ?? 512;
  const queryCount = options.queries ?? 200;
  const sweep = options.efSweep ?? [100, 200, 400];
  const candidateSweep = options.candidateSweep ?? [2, 4];
  const keep = process.env.BENCH_PG_KEEP === '1';
  const fullPrecision = options.fullPrecision ?? process.env.BENCH_PG_FULL_PRECISION !== '0';
  const vectors = new ClusteredVectors({ dimensions });
  const report: PgVectorReport = { rows: [], builds: [], loadAverage: [] };
  for (const size of sizes) {
    const table = keep ? `bench_pgvec_keep_${size}_${dimensions}` : `bench_pgvec_${size}`;
    const loaded = keep && (await loadedRows(db, table)) === size;
    if (!loaded) await dropPgVectorTables(db, table);
    const stores: PostgresVectorStore[] = [];
    const open = async (hnsw: ConstructorParameters<typeof PostgresVectorStore>[0]['hnsw']) => {
      const store = new PostgresVectorStore({ db, table, hnsw });
      stores.push(store);
      await store.create();
      return store;
    };
    try {
      const exact = new PostgresVectorStore({ db, table, hnsw: false });
      stores.push(exact);
      const t0 = performance.now();
      if (loaded) await exact.create();
      else await load(exact, size, vectors);
      const loadSeconds = (performance.now() - t0) / 1000;
      // Now, not by autovacuum in the middle of a measurement.
      if (!loaded) await db.execute(`VACUUM ANALYZE ${table}_chunks`);
      const next = seededRandom(size);
      const queries = Array.from({ length: queryCount }, (_, n) => Array.from(vectors.query(Math.floor(next() * size), n)));
      const perScenario = (s: Scenario) => (s.filters || s.visibleTo ? queries.slice(0, Math.ceil(queryCount / 2)) : queries);
      // Exact search: the baseline and the ground truth, per scenario.
      const truth = new Map<string, string[][]>();
      for (const s of SCENARIOS) {
        const m = await measure(exact, perScenario(s), s);
        truth.set(s.name, m.ids);
        report.rows.push({ size, variant: 'exact', scenario: s.name, p50: m.p50, p99: m.p99, recall10: 1, full: m.full, queries: perScenario(s).length });
      }
      // Full precision first: the store drops the other kind of index once its own serves, so
      // the default (halfvec) goes last and is what the table keeps.
      const variants: { name: string; halfvec: boolean }[] = [...(!fullPrecision ? [] : [{ name: 'HNSW vector', halfvec: false }]), { name: 'HNSW halfvec', halfvec: true }];
      for (const variant of variants) {
        const t = performance.now();
        const store = await open({ halfvec: variant.halfvec });
        await store.hnswSettled();
        const index = store.hnswIndex;
        if (!index || index.half !== variant.halfvec) throw new Error(`the ${variant.name} index was not built`);
        report.builds.push({ size, variant: variant.name, seconds: (performance.now() - t) / 1000, indexMb: await sizeMb(db, index.name), tableMb: await tableMb(db, `${table}_chunks`) });
        for (const s of SCENARIOS) {
          const m = await measure(store, perScenario(s), s, truth.get(s.name));
          report.rows.push({ size, variant: `${variant.name} (default ef)`, scenario: s.name, p50: m.p50, p99: m.p99, recall10: m.recall10, full: m.full, queries: perScenario(s).length });
        }
        // The exact path over index-reached rows with a lower cap (the 12.5 % base then walks).
        if (variant.halfvec) {
          const capped = await open({ halfvec: true, exactNarrowedRows: 5000 });
          for (const s of SCENARIOS.slice(1)) {
            const m = await measure(capped, perScenario(s), s, truth.get(s.name));
            report.rows.push({ size, variant: `${variant.name} exact <= 5000`, scenario: s.name, p50: m.p50, p99: m.p99, recall10: m.recall10, full: m.full, queries: perScenario(s).length });
          }
        }
        // Narrowed searches through the graph alone (no exact path over index-reached rows, as
        // before `exactNarrowedRows`): how many candidates (times `limit`) are re-sorted, default 8.
        for (const k of variant.halfvec ? [8, ...candidateSweep] : []) {
          const swept = await open({ halfvec: true, filteredCandidates: k, exactNarrowedRows: 0 });
          for (const s of SCENARIOS.slice(1)) {
            const m = await measure(swept, perScenario(s), s, truth.get(s.name));
            report.rows.push({ size, variant: `${variant.name} walk ${k}x limit`, scenario: s.name, p50: m.p50, p99: m.p99, recall10: m.recall10, full: m.full, queries: perScenario(s).length });
          }
        }
        for (const ef of sweep) {
          const swept = await open({ halfvec: variant.halfvec, efSearch: ef, filteredEfSearch: ef });
          for (const s of SCENARIOS.slice(0, 2)) {
            const m = await measure(swept, perScenario(s), s, truth.get(s.name));
            report.rows.push({ size, variant: `${variant.name} ef ${ef}`, scenario: s.name, p50: m.p50, p99: m.p99, recall10: m.recall10, full: m.full, queries: perScenario(s).length });
          }
        }
      }
      report.loadAverage = loadavg();
      write(table_(size, dimensions, loadSeconds, report));
    } finally {
      for (const store of stores) await store.close();
      if (!keep) await dropPgVectorTables(db, table);
    }
  }
  return report;
}

const ms = (n: number) => (Number.isFinite(n) ? n.toFixed(1) : '-');

function table_(size: number, dimensions: number, loadSeconds: number, report: PgVectorReport): string {
  const rows = report.rows.filter((r) => r.size === size);
  const builds = report.builds.filter((b) => b.size === size);
  return [
    `PostgreSQL vector search, ${size} chunks, ${dimensions}-d clustered vectors, limit ${LIMIT}; baseline: exact search in the same run (${loadSeconds > 1 ? `loaded in ${loadSeconds.toFixed(0)} s` : 'kept table reused'})`,
    `${'variant'.padEnd(28)} ${'scenario'.padEnd(16)} ${'p50 ms'.padStart(8)} ${'p99 ms'.padStart(8)} ${'recall@10'.padStart(10)} ${'exactly 10'.padStart(11)}`,
    ...rows.map((r) => `${r.variant.padEnd(28)} ${r.scenario.padEnd(16)} ${ms(r.p50).padStart(8)} ${ms(r.p99).padStart(8)} ${r.recall10.toFixed(3).padStart(10)} ${`${r.full}/${r.queries}`.padStart(11)}`),
    ...builds.map((b) => `${b.variant} index: built in ${b.seconds.toFixed(0)} s, ${b.indexMb.toFixed(0)} MB (table ${b.tableMb.toFixed(0)} MB)`),
    `load average at the end (2 cores, shared): ${report.loadAverage.map((n) => n.toFixed(1)).join(' / ')}`,
  ].join('\n') + '\n\n';
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const url = process.env.TEST_POSTGRES_URL ?? process.env.DATABASE_URL;
  if (!url || !/^postgres(ql)?:\/\//.test(url)) throw new Error('set TEST_POSTGRES_URL (or a postgres:// DATABASE_URL)');
  const { openDb } = await import('../packages/runtime/src/storage/open-db.js');
  const db = openDb(url);
  try {
    await benchPostgresVectors({ db });
  } finally {
    await db.close();
  }
}
