/**
 * The knowledge bench runs end to end at a tiny scale and its figures are sane: rates and
 * latencies positive, recall and quality in [0, 1], an exact search finding the known items,
 * and the BEIR loader scoring a small folder in BEIR's layout.
 */
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SqliteVectorStore } from '../packages/runtime/src/knowledge/vector-stores/sqlite/store.js';
import { RandomProjectionEmbedder, beirQuality, benchKnowledge, quality } from './knowledge.js';

const dir = mkdtempSync(join(tmpdir(), 'bench-knowledge-test-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('bench/knowledge', () => {
  it('runs at a tiny scale and reports every figure', async () => {
    const lines: string[] = [];
    const report = await benchKnowledge({ sizes: [1500], dimensions: 256, queries: 20, uploadBytes: 300_000, uploadChunkSize: 200, ingestChars: 100_000, postgresUrl: process.env.TEST_POSTGRES_URL, pgVectorSizes: [3000], beirDir: undefined, write: (t) => lines.push(t) });
    const text = lines.join('');
    for (const heading of ['Knowledge ingest', 'Event-loop delay', 'Knowledge search', 'Retrieval quality', 'BEIR skipped']) expect(text).toContain(heading);
    // PostgreSQL is measured, exact and through HNSW, when the test run has one.
    const postgres = Boolean(process.env.TEST_POSTGRES_URL);
    expect(text.includes('PostgreSQL skipped')).toBe(!postgres);
    expect(report.search.map((s) => s.store)).toEqual(postgres ? ['SQLite', 'SQLite BQ', 'SQLite IVF', 'PostgreSQL', 'PG HNSW'] : ['SQLite', 'SQLite BQ', 'SQLite IVF']);
    // PostgreSQL's HNSW on clustered vectors, beside exact search in the same run.
    expect(text.includes('PostgreSQL vector search, 3000 chunks, 512-d clustered vectors')).toBe(postgres);
    const pgRows = report.pgVectors?.rows ?? [];
    // Exact's 4 scenarios; per index (vector, halfvec) its 4 at the default ef and the 2 ef sweeps
    // over 3; halfvec's exact path with a lower cap, and its walk alone at 3 re-sorted candidate
    // counts (8x, 2x, 4x), over the 3 narrowed scenarios.
    expect(pgRows.length).toBe(postgres ? 4 + 2 * (4 + 3 * 2) + 3 + 3 * 3 : 0);
    for (const row of pgRows) {
      // Every search, filtered or scoped, returned exactly limit hits (3000 chunks hold 30 of a 1 % filter).
      expect(row.full, `${row.variant} ${row.scenario}`).toBe(row.queries);
      expect(row.recall10, `${row.variant} ${row.scenario}`).toBeGreaterThanOrEqual(row.variant === 'exact' ? 1 : 0.8);
    }
    expect(report.ingest?.text).toBeGreaterThan(0);
    expect(report.ingest?.pdf).toBeGreaterThan(0);
    expect(report.ingest?.storeOnly).toBeGreaterThan(0);
    expect(report.eventLoop.pool.chunks).toBeGreaterThan(1000);
    expect(report.eventLoop.pool.p99).toBeGreaterThan(0);
    // Exact search is its own ground truth; the approximate ones are measured, not promised.
    for (const figures of report.search) expect(figures.recall10, figures.store).toBeGreaterThanOrEqual(figures.store === 'SQLite' || figures.store === 'PostgreSQL' ? 1 : 0.1);
    const [sqlite] = report.search;
    for (const type of ['vector', 'keyword', 'hybrid'] as const) expect(sqlite!.latency[type].p99).toBeGreaterThan(0);
    // Known-item queries are three words of their chunk and two others: far better than chance
    // (MRR@10 ~0.002 among 1500 chunks) by vector, and nearly always first by keyword.
    expect(sqlite!.quality.exact.mrr10).toBeGreaterThan(0.2);
    expect(sqlite!.quality.keyword.ndcg10).toBeGreaterThan(0.5);
    expect(sqlite!.quality.hybrid.ndcg10).toBeLessThanOrEqual(1);
  }, 240_000);

  it('scores MRR@10 and nDCG@10 with graded relevance', () => {
    const relevant = new Map([
      ['a', 2],
      ['b', 1],
    ]);
    expect(quality([{ ranked: ['a', 'b', 'x'], relevant }])).toEqual({ mrr10: 1, ndcg10: 1 });
    const swapped = quality([{ ranked: ['x', 'b', 'a'], relevant }]);
    expect(swapped.mrr10).toBe(0.5);
    const ideal = 3 + 1 / Math.log2(3);
    expect(swapped.ndcg10).toBeCloseTo((1 / Math.log2(3) + 3 / Math.log2(4)) / ideal, 10);
    expect(quality([{ ranked: ['x'], relevant }])).toEqual({ mrr10: 0, ndcg10: 0 });
  });

  it('loads a BEIR folder and scores its test queries', async () => {
    const beir = join(dir, 'tinybeir');
    mkdirSync(join(beir, 'qrels'), { recursive: true });
    const docs = [
      { _id: 'd1', title: 'Copper kettles', text: 'A copper kettle heats water quickly on a gas stove.' },
      { _id: 'd2', title: 'Garden snails', text: 'Snails eat lettuce leaves at night in the garden.' },
      { _id: 'd3', title: 'Night trains', text: 'The sleeper train leaves the station at midnight.' },
    ];
    writeFileSync(join(beir, 'corpus.jsonl'), docs.map((d) => JSON.stringify(d)).join('\n'));
    writeFileSync(join(beir, 'queries.jsonl'), [{ _id: 'q1', text: 'copper kettle water' }, { _id: 'q2', text: 'snails lettuce garden' }, { _id: 'q3', text: 'not judged' }].map((q) => JSON.stringify(q)).join('\n'));
    writeFileSync(join(beir, 'qrels', 'test.tsv'), 'query-id\tcorpus-id\tscore\nq1\td1\t1\nq2\td2\t1\n');
    const store = new SqliteVectorStore({ path: join(dir, 'beir.db') });
    try {
      const result = await beirQuality(beir, store, new RandomProjectionEmbedder(32));
      expect(result.name).toBe('tinybeir');
      expect(result.queries).toBe(2);
      expect(result.quality.keyword).toEqual({ mrr10: 1, ndcg10: 1 });
      expect(result.quality.vector.mrr10).toBe(1);
    } finally {
      await store.close();
    }
  });
});
