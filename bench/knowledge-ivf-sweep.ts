/**
 * Sweeps the SQLite store's IVF settings (lists x probes) on bench/knowledge.ts's vectors:
 * vector p50/p99 and recall@10 against the exact top 10, per size. The chunks are loaded once
 * per size; each `lists` trains once; `probes` only changes the search, so it reuses the index.
 *
 *   BENCH_KNOWLEDGE_SIZES=10000,100000 IVF_LISTS=128,256,512 IVF_PROBES=8,16,24,32 npx tsx --conditions=source bench/knowledge-ivf-sweep.ts
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { dropIvf } from '../packages/runtime/src/knowledge/vector-stores/sqlite/ivf-tables.js';
import { SqliteVectorStore } from '../packages/runtime/src/knowledge/vector-stores/sqlite/store.js';
import { WorkerPool } from '../packages/runtime/src/workers/pool.js';
import { RandomProjectionEmbedder, searchFigures, workload } from './knowledge.js';

const list = (name: string, fallback: string) => (process.env[name] ?? fallback).split(',').map(Number);
const sizes = list('BENCH_KNOWLEDGE_SIZES', '10000,100000');
const listsValues = list('IVF_LISTS', '128,256,512');
const probesValues = list('IVF_PROBES', '8,16,24,32,48');
const out = (line: string) => process.stdout.write(`${line}\n`);
const dimensions = Number(process.env.BENCH_KNOWLEDGE_DIMENSIONS ?? 384);

const dir = mkdtempSync(join(tmpdir(), 'ivf-sweep-'));
const pool = new WorkerPool({ size: 2 });
const embedder = new RandomProjectionEmbedder(dimensions);
try {
  for (const size of sizes) {
    const path = join(dir, `sweep-${size}.db`);
    const exact = new SqliteVectorStore({ path, ivf: false });
    await exact.create();
    const work = await workload(exact, size, 100, embedder, size);
    const base = await searchFigures('exact', exact, work, embedder);
    out(`${size} exact: vector p50/p99 ${base.latency.vector.p50.toFixed(1)}/${base.latency.vector.p99.toFixed(1)} ms recall ${base.recall10.toFixed(3)}`);
    await exact.close();
    for (const lists of listsValues) {
      for (const [i, probes] of probesValues.entries()) {
        const store = new SqliteVectorStore({ path, ivf: { lists, probes, trainAt: 1000 }, offload: pool });
        const t = performance.now();
        await store.create();
        await store.ivfSettled();
        const trained = (performance.now() - t) / 1000;
        const f = await searchFigures('ivf', store, work, embedder);
        out(`${size} lists ${lists} probes ${probes}: vector p50/p99 ${f.latency.vector.p50.toFixed(1)}/${f.latency.vector.p99.toFixed(1)} ms recall ${f.recall10.toFixed(3)}${i === 0 ? ` (trained in ${trained.toFixed(1)} s)` : ''}`);
        await store.close();
        // The next `lists` trains afresh.
        if (i === probesValues.length - 1) {
          const raw = new Database(path);
          raw.transaction(() => dropIvf(raw, exact.table)).immediate();
          raw.close();
        }
      }
    }
  }
} finally {
  await pool.close();
  rmSync(dir, { recursive: true, force: true });
}
