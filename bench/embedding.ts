/**
 * What bounded concurrency buys when ingesting at scale: about 10,000 chunks embedded by a
 * loopback OpenAI-compatible server (real wire format) that takes `delay` ms per request, as a
 * hosted provider does, stored in SQLite; one request at a time against the default (4).
 *   npx tsx --conditions=source bench/embedding.ts
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { OpenAIEmbedder } from '../packages/runtime/src/providers/openai/embeddings.js';
import { Knowledge } from '../packages/runtime/src/knowledge/knowledge.js';
import { SqliteVectorStore } from '../packages/runtime/src/knowledge/vector-stores/sqlite/store.js';
import { startFakeEmbeddings } from '../packages/runtime/test/support/fake-embeddings.js';

const LINES = 10_000;
const text = Array.from({ length: LINES }, (_, i) => `Line ${i}: the quick brown fox jumps over lazy dog number ${i}.`).join('\n');

async function ingest(delayMs: number, maxConcurrency: number | undefined, tag: string): Promise<{ ms: number; chunks: number; requests: number; peak: number }> {
  const fake = await startFakeEmbeddings({ delayMs });
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-embed-'));
  const store = new SqliteVectorStore({ path: join(dir, 'k.db') });
  try {
    // A model name per run: limiters are shared per endpoint and model for the whole process.
    const embedder = new OpenAIEmbedder({ baseURL: `${fake.url}/v1`, model: `bench-${tag}`, env: {}, ...(maxConcurrency ? { maxConcurrency } : {}) });
    const knowledge = new Knowledge({ id: 'bench', store, embedder });
    const start = performance.now();
    const result = await knowledge.insert({ text, name: 'lines.txt', chunker: 'FixedSizeChunker', chunkSize: 64, chunkOverlap: 0 });
    return { ms: performance.now() - start, chunks: result.chunks, requests: fake.requests.length, peak: fake.maxInFlight };
  } finally {
    await store.close();
    await fake.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function benchEmbedding(): Promise<void> {
  const out = ['', 'Ingest of ~10k chunks, loopback embedder, batches of 100', 'delay/request  concurrency  chunks  requests  peak in flight  wall ms'];
  for (const delay of [0, 50, 200]) {
    for (const [label, c] of [['1', 1], ['default (4)', undefined]] as const) {
      const r = await ingest(delay, c, `${delay}-${label}`);
      out.push(`${String(delay).padStart(10)} ms  ${label.padEnd(11)}  ${String(r.chunks).padStart(6)}  ${String(r.requests).padStart(8)}  ${String(r.peak).padStart(14)}  ${r.ms.toFixed(0).padStart(7)}`);
    }
  }
  process.stdout.write(`${out.join('\n')}\n\n`);
}

if (import.meta.url === `file://${process.argv[1]}`) await benchEmbedding();
