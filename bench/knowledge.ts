/**
 * What the knowledge pipeline costs and how well it finds things, each figure next to a baseline
 * measured in the same run:
 *
 * - ingest throughput (chunks/s) for text and PDF, against the store's write of the same chunks
 *   alone;
 * - search latency p50/p99 of vector, keyword and hybrid search at each corpus size, on SQLite
 *   and on PostgreSQL (with TEST_POSTGRES_URL or a postgres DATABASE_URL), against an exact
 *   brute-force scan in JavaScript;
 * - recall@10 of the store's vector search against that exact search;
 * - event-loop delay p99 (monitorEventLoopDelay) in a running runtime while it processes a 10 MB
 *   text upload, against the same runtime idle, with chunking in the worker pool and inline;
 * - retrieval quality (MRR@10, nDCG@10) on a generated known-item set, and on a BEIR folder when
 *   BEIR_DIR names one (corpus.jsonl, queries.jsonl, qrels/test.tsv).
 *
 * Vectors come from a local random-projection embedder (below): every word hashes to a fixed
 * dense random vector and a text is the normalised sum of its words' vectors. Nothing is
 * downloaded. The figures depend on the machine; compare them with the baselines beside them.
 * The upload's event-loop figure is meant to count the runtime's own work, though the client
 * and the embedder share its process: the request body is serialised before the measurement
 * starts, and the embedder yields every few ms (a remote embedder's work is not on this loop).
 *
 * Environment: BENCH_KNOWLEDGE_SIZES (corpus sizes for search, comma-separated),
 * BENCH_KNOWLEDGE_DIMENSIONS, BENCH_KNOWLEDGE_IVF (lists:probes), TEST_POSTGRES_URL, BEIR_DIR,
 * BENCH_LOG (the runtime's log on the console) and BENCH_KNOWLEDGE_ONLY=upload, which measures
 * only the event-loop delay during the upload (chunking in the pool, then inline) and skips the
 * rest; BENCH_KNOWLEDGE_UPLOAD_INLINE=0 skips the inline upload too.
 *
 *   npx tsx --conditions=source bench/knowledge.ts
 *   BENCH_KNOWLEDGE_ONLY=upload BENCH_KNOWLEDGE_UPLOAD_INLINE=0 npx tsx --conditions=source bench/knowledge.ts
 *   BENCH_KNOWLEDGE_SIZES=10000,100000,300000 BENCH_KNOWLEDGE_DIMENSIONS=768 BEIR_DIR=~/beir/scifact npx tsx --conditions=source bench/knowledge.ts
 */
import { createReadStream, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import Database from 'better-sqlite3';
import PdfKitDocument from 'pdfkit';
import type { Embedder } from '../packages/runtime/src/model/embedder.js';
import { Knowledge } from '../packages/runtime/src/knowledge/knowledge.js';
import { PostgresVectorStore } from '../packages/runtime/src/knowledge/vector-stores/postgres/store.js';
import { benchPostgresVectors, type PgVectorReport } from './knowledge-postgres.js';
import { SqliteVectorStore } from '../packages/runtime/src/knowledge/vector-stores/sqlite/store.js';
import type { SearchType, StoredChunk, VectorStore } from '../packages/runtime/src/knowledge/vector-stores/vector-store.js';
import type { Offload } from '../packages/runtime/src/workers/offload.js';
import { WorkerPool } from '../packages/runtime/src/workers/pool.js';
import { Runtime } from '../packages/runtime/src/runtime.js';
import { consoleLogger, silentLogger } from '../packages/runtime/src/util/logger.js';
import { openDb } from '../packages/runtime/src/storage/open-db.js';
import type { Db } from '../packages/runtime/src/storage/db.js';
import { seededRandom } from '../packages/runtime/src/util/seeded-random.js';

export interface KnowledgeBenchOptions {
  /** Corpus sizes (chunks) for search latency and recall; default 10,000 and 100,000. */
  sizes?: number[];
  /** Embedding dimension; default 384. */
  dimensions?: number;
  /** Queries per search type and size; default 100. */
  queries?: number;
  /** Size of the upload the event-loop figure is taken during; default 10 MB. */
  uploadBytes?: number;
  /** Chunk size of that upload; default 100 characters (about 100k chunks for 10 MB). */
  uploadChunkSize?: number;
  /** Characters of text (and of PDF text) for the ingest throughput; default 2,000,000. */
  ingestChars?: number;
  /** PostgreSQL to measure too; without one PostgreSQL is skipped with a note. */
  postgresUrl?: string | undefined;
  /** A BEIR dataset folder (corpus.jsonl, queries.jsonl, qrels/test.tsv). */
  beirDir?: string | undefined;
  /** Where the tables go; default stdout. */
  write?: (text: string) => void;
  /** `upload`: measure only the event loop during the upload (BENCH_KNOWLEDGE_ONLY). */
  only?: 'upload' | undefined;
  /** Also measure the upload with chunking inline; default true (BENCH_KNOWLEDGE_UPLOAD_INLINE=0: false). */
  uploadInline?: boolean;
  /** PostgreSQL's HNSW on clustered vectors (bench/knowledge-postgres.ts); default true when PostgreSQL is measured. */
  pgVectors?: boolean;
  /** Its sizes; default BENCH_PG_VECTOR_SIZES or 100,000. */
  pgVectorSizes?: number[];
}

export interface LatencyFigures {
  p50: number;
  p99: number;
}

export interface Quality {
  mrr10: number;
  ndcg10: number;
}

export interface KnowledgeBenchReport {
  /** Absent when only the upload was measured. */
  ingest: { text: number; pdf: number; storeOnly: number } | undefined;
  search: { store: string; size: number; exact: LatencyFigures; latency: Record<SearchType, LatencyFigures>; recall10: number; quality: Record<SearchType | 'exact', Quality> }[];
  eventLoop: { idle: { p99: number; max: number }; pool: { p99: number; max: number; seconds: number; chunks: number }; inline: { p99: number; max: number; seconds: number; chunks: number } | undefined };
  beir?: { name: string; queries: number; quality: Record<SearchType, Quality> } | undefined;
  pgVectors?: PgVectorReport | undefined;
  notes: string[];
}

const TYPES: SearchType[] = ['vector', 'keyword', 'hybrid'];

// ---------------------------------------------------------------------------------------------
// The local embedder and the generated corpus


function fnv1a(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

const WORD = /[\p{L}\p{N}]+/gu;

/** Words belong to one of this many topics (by their hash), which shapes both corpus and vectors. */
const TOPICS = 64;

export function topicOf(word: string): number {
  return fnv1a(`topic:${word}`) % TOPICS;
}

/** How long the bench's embedder computes before it lets the event loop run. */
const EMBED_SLICE_MS = 4;

/**
 * Random projection of a bag of words: each word maps to a fixed dense vector, its topic's
 * pseudo-random direction plus a pseudo-random part of its own (both seeded by hashes), and a
 * text to the normalised sum over its words. Texts sharing words are close, texts on one topic
 * are near each other, and the vectors are dense: a cheap stand-in for a model's embeddings,
 * whose neighbourhoods also have structure (pure random vectors have none, and no approximate
 * index does well on them). It runs in a few microseconds a text and yields to the event loop
 * every EMBED_SLICE_MS, as waiting for a remote embedder would.
 */
export class RandomProjectionEmbedder implements Embedder {
  readonly id: string;
  readonly provider = 'bench';
  readonly model: string;
  private readonly words = new Map<string, Float32Array>();

  constructor(readonly dimensions = 384) {
    this.model = `random-projection-${dimensions}`;
    this.id = `bench:${this.model}`;
  }

  private wordVector(word: string): Float32Array {
    let v = this.words.get(word);
    if (!v) {
      const own = seededRandom(fnv1a(word));
      const topic = seededRandom(0x7f4a7c15 + topicOf(word));
      v = new Float32Array(this.dimensions);
      for (let i = 0; i < v.length; i++) v[i] = (topic() * 2 - 1) + 0.8 * (own() * 2 - 1);
      if (this.words.size < 200_000) this.words.set(word, v);
    }
    return v;
  }

  vector(text: string): Float32Array {
    const out = new Float32Array(this.dimensions);
    for (const match of text.toLowerCase().matchAll(WORD)) {
      const w = this.wordVector(match[0]);
      for (let i = 0; i < out.length; i++) out[i]! += w[i]!;
    }
    let norm = 0;
    for (const x of out) norm += x * x;
    norm = Math.sqrt(norm) || 1;
    for (let i = 0; i < out.length; i++) out[i]! /= norm;
    return out;
  }

  /**
   * Yields to the event loop every few ms. This embedder stands in for a remote service, whose
   * work does not run on the runtime's event loop at all; computing here in slices of 256 texts
   * (15-60 ms each on the shared machine) made it the largest contributor to the upload's p99
   * event-loop delay, so the bench measured itself rather than the runtime.
   */
  async embed(texts: readonly string[]): Promise<number[][]> {
    const out: number[][] = [];
    let slice = performance.now();
    for (let i = 0; i < texts.length; i++) {
      out.push(Array.from(this.vector(texts[i]!)));
      if ((i & 15) === 15 && performance.now() - slice >= EMBED_SLICE_MS) {
        await yieldToLoop();
        slice = performance.now();
      }
    }
    return out;
  }
}

/** A synthetic vocabulary with a Zipf-like word frequency, and texts drawn from it, mostly on one topic each. */
export class Corpus {
  private readonly vocabulary: string[];
  private readonly byTopic: string[][];
  private readonly next: () => number;

  constructor(seed = 7, size = 30_000) {
    this.next = seededRandom(seed);
    const syllables = ['ka', 'lo', 'mi', 'ter', 'sun', 'vel', 'dor', 'pra', 'nix', 'qua', 'zen', 'bri', 'os', 'fal', 'gur', 'hem', 'jo', 'rek', 'sta', 'wy'];
    const words = new Set<string>();
    while (words.size < size) {
      const n = 2 + Math.floor(this.next() * 3);
      let w = '';
      for (let i = 0; i < n; i++) w += syllables[Math.floor(this.next() * syllables.length)]!;
      words.add(w);
    }
    this.vocabulary = [...words];
    this.byTopic = Array.from({ length: TOPICS }, () => []);
    for (const w of this.vocabulary) this.byTopic[topicOf(w)]!.push(w);
  }

  /** A word of `topic`, else of the whole vocabulary; u^2.5 makes a few words common and most rare. */
  word(topic?: number): string {
    const list = topic === undefined ? this.vocabulary : this.byTopic[topic]!;
    return list[Math.floor(list.length * this.next() ** 2.5)]!;
  }

  /** A text mostly (70 %) of one topic's words. */
  text(words: number): string {
    const topic = Math.floor(this.next() * TOPICS);
    const out: string[] = [];
    for (let i = 0; i < words; i++) {
      const w = this.word(this.next() < 0.7 ? topic : undefined);
      out.push(i % 12 === 11 ? `${w}.` : w);
    }
    return out.join(' ');
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)]!;
  }

  /** A known-item query for `text`: three of its words and two unrelated words, shuffled. */
  query(text: string): string {
    const words = [...new Set(text.toLowerCase().match(WORD) ?? [])];
    const chosen = new Set<string>();
    while (chosen.size < Math.min(3, words.length)) chosen.add(this.pick(words));
    return [...chosen, this.word(), this.word()].sort(() => this.next() - 0.5).join(' ');
  }
}

// ---------------------------------------------------------------------------------------------
// Measuring

function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

function latency(samples: number[]): LatencyFigures {
  const sorted = samples.toSorted((a, b) => a - b);
  return { p50: percentile(sorted, 50), p99: percentile(sorted, 99) };
}

/** MRR@10 and nDCG@10 of ranked ids against graded relevance. */
export function quality(runs: { ranked: readonly string[]; relevant: ReadonlyMap<string, number> }[]): Quality {
  let mrr = 0;
  let ndcg = 0;
  for (const { ranked, relevant } of runs) {
    const top = ranked.slice(0, 10);
    const first = top.findIndex((id) => (relevant.get(id) ?? 0) > 0);
    if (first >= 0) mrr += 1 / (first + 1);
    const dcg = top.reduce((sum, id, i) => sum + ((2 ** (relevant.get(id) ?? 0) - 1) / Math.log2(i + 2)), 0);
    const ideal = [...relevant.values()]
      .filter((g) => g > 0)
      .sort((a, b) => b - a)
      .slice(0, 10)
      .reduce((sum, g, i) => sum + (2 ** g - 1) / Math.log2(i + 2), 0);
    if (ideal > 0) ndcg += dcg / ideal;
  }
  const n = runs.length || 1;
  return { mrr10: mrr / n, ndcg10: ndcg / n };
}

/** Exact top-k by cosine over unit vectors: the brute-force baseline and recall's ground truth. */
function exactTopK(matrix: Float32Array, dimensions: number, query: Float32Array, k: number): number[] {
  const rows = matrix.length / dimensions;
  const best: { row: number; score: number }[] = [];
  for (let r = 0, o = 0; r < rows; r++, o += dimensions) {
    let s = 0;
    for (let i = 0; i < dimensions; i++) s += matrix[o + i]! * query[i]!;
    if (best.length < k || s > best[best.length - 1]!.score) {
      best.push({ row: r, score: s });
      best.sort((a, b) => b.score - a.score);
      if (best.length > k) best.pop();
    }
  }
  return best.map((b) => b.row);
}

const ms = (n: number) => (Number.isFinite(n) ? n.toFixed(2) : '-');
const pad = (s: string, n: number) => s.padStart(n);

// ---------------------------------------------------------------------------------------------
// Search latency, recall and quality at one size on one store

interface Loaded {
  ids: string[];
  texts: string[];
  matrix: Float32Array;
}

const CONTENT_CHUNKS = 1000;

/** Fills `store` with `size` generated chunks (1000 per content), keeping vectors for the exact baseline. */
async function load(store: VectorStore, size: number, embedder: RandomProjectionEmbedder, corpus: Corpus): Promise<Loaded> {
  await store.create();
  const d = embedder.dimensions;
  const matrix = new Float32Array(size * d);
  const ids: string[] = [];
  const texts: string[] = [];
  for (let start = 0; start < size; start += CONTENT_CHUNKS) {
    const contentId = `content-${start / CONTENT_CHUNKS}`;
    const chunks: StoredChunk[] = [];
    for (let i = start; i < Math.min(size, start + CONTENT_CHUNKS); i++) {
      const content = corpus.text(40);
      const vector = embedder.vector(content);
      matrix.set(vector, i * d);
      const id = `${contentId}_${i - start + 1}`;
      ids.push(id);
      texts.push(content);
      chunks.push({ id, name: contentId, content, meta_data: { chunk: i - start + 1, topic: `t${i % 10}` }, filters: { topic: `t${i % 10}` }, embedding: Array.from(vector) });
    }
    await store.upsert(contentId, chunks, embedder.id);
  }
  return { ids, texts, matrix };
}

export interface Workload {
  size: number;
  loaded: Loaded;
  queries: { query: string; target: string; vector: Float32Array }[];
}

export async function workload(store: VectorStore, size: number, queryCount: number, embedder: RandomProjectionEmbedder, seed: number): Promise<Workload> {
  const corpus = new Corpus(seed);
  const loaded = await load(store, size, embedder, corpus);
  const next = seededRandom(seed + 1);
  const queries = Array.from({ length: queryCount }, () => {
    const target = Math.floor(next() * size);
    const query = corpus.query(loaded.texts[target]!);
    return { query, target: loaded.ids[target]!, vector: embedder.vector(query) };
  });
  return { size, loaded, queries };
}

export async function searchFigures(label: string, store: VectorStore, work: Workload, embedder: RandomProjectionEmbedder) {
  const { size, loaded, queries } = work;
  const d = embedder.dimensions;
  // Warm up statements and caches.
  for (const q of queries.slice(0, 3)) for (const searchType of TYPES) await store.search({ searchType, query: q.query, vector: Array.from(q.vector), limit: 10 });

  const exactTimes: number[] = [];
  const exact: string[][] = [];
  for (const q of queries) {
    const t = performance.now();
    exact.push(exactTopK(loaded.matrix, d, q.vector, 10).map((row) => loaded.ids[row]!));
    exactTimes.push(performance.now() - t);
  }
  const latencyByType = {} as Record<SearchType, LatencyFigures>;
  const rankedByType = {} as Record<SearchType, string[][]>;
  for (const searchType of TYPES) {
    const times: number[] = [];
    const ranked: string[][] = [];
    for (const q of queries) {
      const vector = Array.from(q.vector);
      const t = performance.now();
      const hits = await store.search({ searchType, query: q.query, vector, limit: 10 });
      times.push(performance.now() - t);
      ranked.push(hits.map((h) => h.chunk.id));
    }
    latencyByType[searchType] = latency(times);
    rankedByType[searchType] = ranked;
  }
  const recall10 = rankedByType.vector.reduce((sum, ranked, i) => sum + ranked.filter((id) => exact[i]!.includes(id)).length, 0) / (queries.length * 10);
  const relevant = queries.map((q) => new Map([[q.target, 1]]));
  const qualityOf = (ranked: string[][]) => quality(ranked.map((r, i) => ({ ranked: r, relevant: relevant[i]! })));
  return {
    store: label,
    size,
    exact: latency(exactTimes),
    latency: latencyByType,
    recall10,
    quality: { exact: qualityOf(exact), vector: qualityOf(rankedByType.vector), keyword: qualityOf(rankedByType.keyword), hybrid: qualityOf(rankedByType.hybrid) },
  };
}

// ---------------------------------------------------------------------------------------------
// Ingest throughput

function pdfOf(text: string): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const doc = new PdfKitDocument({ size: 'A4', margin: 40 });
    const parts: Buffer[] = [];
    doc.on('data', (b: Buffer) => parts.push(b));
    doc.on('end', () => resolve(Buffer.concat(parts)));
    doc.on('error', reject);
    doc.fontSize(9);
    // One paragraph per page-sized slice, so the PDF has many pages like a real document.
    for (let i = 0; i < text.length; i += 4000) {
      if (i > 0) doc.addPage();
      doc.text(text.slice(i, i + 4000));
    }
    doc.end();
  });
}

async function ingestFigures(dir: string, chars: number, embedder: RandomProjectionEmbedder, offload: Offload) {
  const corpus = new Corpus(11);
  const paragraphs: string[] = [];
  for (let n = 0; n < chars; ) {
    const p = corpus.text(60);
    paragraphs.push(p);
    n += p.length + 2;
  }
  const text = paragraphs.join('\n\n');
  const pdf = await pdfOf(text);
  // The first use starts workers and loads the PDF parser; that is not throughput.
  const warm = new Knowledge({ id: 'warm', store: new SqliteVectorStore({ path: join(dir, 'warm.db') }), embedder, offload });
  await warm.insert({ text: text.slice(0, 100_000), name: 'warm.txt', chunker: 'RecursiveChunker', chunkSize: 500 });
  await warm.insert({ buffer: await pdfOf(text.slice(0, 8000)), name: 'warm.pdf', chunker: 'RecursiveChunker', chunkSize: 500 });
  await warm.store.close();
  const rate = async (name: string, run: (k: Knowledge) => Promise<number>) => {
    const store = new SqliteVectorStore({ path: join(dir, `ingest-${name}.db`) });
    const k = new Knowledge({ id: `ingest-${name}`, store, embedder, offload });
    const t = performance.now();
    const chunks = await run(k);
    const seconds = (performance.now() - t) / 1000;
    await store.close();
    return { chunks, perSecond: chunks / seconds };
  };
  const textRate = await rate('text', async (k) => (await k.insert({ text, name: 'bench.txt', chunker: 'RecursiveChunker', chunkSize: 500 })).chunks);
  const pdfRate = await rate('pdf', async (k) => (await k.insert({ buffer: pdf, name: 'bench.pdf', chunker: 'RecursiveChunker', chunkSize: 500 })).chunks);
  // Baseline: the same number of chunks, already made and embedded, written by the store alone.
  const store = new SqliteVectorStore({ path: join(dir, 'ingest-store.db') });
  await store.create();
  const chunks: StoredChunk[] = [];
  for (let i = 0; i < textRate.chunks; i++) {
    const content = text.slice(i * 500, (i + 1) * 500) || 'x';
    chunks.push({ id: `c_${i + 1}`, content, meta_data: { chunk: i + 1 }, filters: {}, embedding: Array.from(embedder.vector(content)) });
  }
  const t = performance.now();
  await store.upsert('baseline', chunks, embedder.id);
  const storeOnly = chunks.length / ((performance.now() - t) / 1000);
  await store.close();
  return { text: textRate, pdf: pdfRate, storeOnly, mb: text.length / 1e6, pdfBytes: pdf.byteLength };
}

// ---------------------------------------------------------------------------------------------
// Event-loop delay in a running runtime during a large upload

async function uploadFigures(dir: string, bytes: number, chunkSize: number, embedder: RandomProjectionEmbedder, offload: Offload, label: string) {
  const corpus = new Corpus(23);
  const paragraphs: string[] = [];
  for (let n = 0; n < bytes; ) {
    const p = corpus.text(50);
    paragraphs.push(p);
    n += p.length + 2;
  }
  const text = paragraphs.join('\n\n').slice(0, bytes);
  const store = new SqliteVectorStore({ path: join(dir, `upload-${label}.db`) });
  const knowledge = new Knowledge({ id: 'docs', store, embedder, offload });
  const runtime = new Runtime(
    { env: { MAX_REQUEST_BODY_BYTES: String(bytes * 2 + 1_000_000) }, db: openDb(join(dir, `runtime-${label}.db`)), knowledge: [knowledge] },
    { logger: process.env.BENCH_LOG ? consoleLogger : silentLogger },
  );
  const server = await runtime.serve({ port: 0, host: '127.0.0.1' });
  // The request body is serialised before the measurement starts: the client shares this
  // process's event loop, but in production it is another process (serialising 10 MB here cost
  // ~45-60 ms of the loop, counted against the runtime).
  const body = (name: string, content: string) => Buffer.from(JSON.stringify({ name, text_content: content, chunker: 'RecursiveChunker', chunk_size: chunkSize }));
  const upload = (payload: Buffer) =>
    fetch(`${server.url}/knowledge/content`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: payload,
    });
  const settle = async (id: string) => {
    let record: { status: string; status_message?: string | null } = { status: 'processing' };
    while (record.status === 'processing') {
      await new Promise((resolve) => setTimeout(resolve, 50));
      record = (await (await fetch(`${server.url}/knowledge/content/${id}/status`)).json()) as typeof record;
    }
    if (record.status !== 'completed') throw new Error(`upload ${record.status}: ${record.status_message ?? ''}`);
  };
  try {
    // A first, small upload starts the job worker, the chunking workers and the store.
    const warm = (await (await upload(body('warm.txt', text.slice(0, 100_000)))).json()) as { id: string };
    await settle(warm.id);
    const idle = monitorEventLoopDelay({ resolution: 5 });
    idle.enable();
    for (let i = 0; i < 20; i++) {
      await fetch(`${server.url}/health`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    idle.disable();
    const big = body('big.txt', text);
    const busy = monitorEventLoopDelay({ resolution: 5 });
    busy.enable();
    const t = performance.now();
    const response = await upload(big);
    const accepted = (await response.json()) as { id?: string };
    if (!accepted.id) throw new Error(`upload refused: ${response.status} ${JSON.stringify(accepted).slice(0, 300)}`);
    await settle(accepted.id);
    const seconds = (performance.now() - t) / 1000;
    busy.disable();
    const counter = new Database(join(dir, `upload-${label}.db`), { readonly: true });
    const chunks = (counter.prepare(`SELECT count(*) AS n FROM ${store.table}_chunks WHERE content_id = ?`).get(accepted.id) as { n: number }).n;
    counter.close();
    return {
      idle: { p99: idle.percentile(99) / 1e6, max: idle.max / 1e6 },
      busy: { p99: busy.percentile(99) / 1e6, max: busy.max / 1e6, seconds, chunks },
    };
  } finally {
    await server.close();
    await store.close();
  }
}

// ---------------------------------------------------------------------------------------------
// BEIR

async function* jsonLines(path: string): AsyncGenerator<Record<string, unknown>> {
  const lines = createInterface({ input: createReadStream(path), crlfDelay: Infinity });
  for await (const line of lines) if (line.trim()) yield JSON.parse(line) as Record<string, unknown>;
}

/**
 * Loads a BEIR folder into `store` (one content per corpus document, title and text as one
 * chunk) and scores the test queries of qrels/test.tsv with each search type.
 */
export async function beirQuality(dir: string, store: VectorStore, embedder: RandomProjectionEmbedder): Promise<{ name: string; queries: number; quality: Record<SearchType, Quality> }> {
  for (const file of ['corpus.jsonl', 'queries.jsonl', join('qrels', 'test.tsv')]) {
    if (!existsSync(join(dir, file))) throw new Error(`BEIR_DIR ${dir} has no ${file}`);
  }
  await store.create();
  let batch: StoredChunk[] = [];
  let n = 0;
  const flush = async () => {
    if (batch.length === 0) return;
    await store.upsert(`beir-${n++}`, batch, embedder.id);
    batch = [];
  };
  for await (const doc of jsonLines(join(dir, 'corpus.jsonl'))) {
    const content = [doc.title, doc.text].filter((s) => typeof s === 'string' && s.length > 0).join('\n');
    if (!content) continue;
    batch.push({ id: String(doc._id), content, meta_data: {}, filters: {}, embedding: Array.from(embedder.vector(content)) });
    if (batch.length >= 1000) await flush();
  }
  await flush();
  const qrels = new Map<string, Map<string, number>>();
  const lines = createInterface({ input: createReadStream(join(dir, 'qrels', 'test.tsv')), crlfDelay: Infinity });
  for await (const line of lines) {
    const [query, doc, score] = line.split('\t');
    if (!query || !doc || query === 'query-id' || !/^-?\d+$/.test(score ?? '')) continue;
    if (!qrels.has(query)) qrels.set(query, new Map());
    qrels.get(query)!.set(doc, Number(score));
  }
  const queries: { text: string; relevant: Map<string, number> }[] = [];
  for await (const q of jsonLines(join(dir, 'queries.jsonl'))) {
    const relevant = qrels.get(String(q._id));
    if (relevant && typeof q.text === 'string') queries.push({ text: q.text, relevant });
  }
  const result = {} as Record<SearchType, Quality>;
  for (const searchType of TYPES) {
    const runs = [];
    for (const q of queries) {
      const hits = await store.search({ searchType, query: q.text, vector: Array.from(embedder.vector(q.text)), limit: 10 });
      runs.push({ ranked: hits.map((h) => h.chunk.id), relevant: q.relevant });
    }
    result[searchType] = quality(runs);
  }
  return { name: basename(dir.replace(/\/+$/, '')), queries: queries.length, quality: result };
}

// ---------------------------------------------------------------------------------------------

function postgresUrlFromEnv(env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (env.TEST_POSTGRES_URL) return env.TEST_POSTGRES_URL;
  return env.DATABASE_URL && /^postgres(ql)?:\/\//.test(env.DATABASE_URL) ? env.DATABASE_URL : undefined;
}

function sizesFromEnv(env: NodeJS.ProcessEnv = process.env): number[] | undefined {
  const raw = env.BENCH_KNOWLEDGE_SIZES?.trim();
  if (!raw) return undefined;
  const sizes = raw.split(',').map((s) => Number(s.trim()));
  if (sizes.some((s) => !Number.isInteger(s) || s < 100)) throw new Error(`BENCH_KNOWLEDGE_SIZES must be whole numbers of at least 100, got "${raw}"`);
  return sizes;
}

/** `BENCH_KNOWLEDGE_ONLY=upload` measures only the event loop during the upload. */
function onlyFromEnv(): 'upload' | undefined {
  const raw = process.env.BENCH_KNOWLEDGE_ONLY?.trim();
  if (!raw) return undefined;
  if (raw !== 'upload') throw new Error(`BENCH_KNOWLEDGE_ONLY must be "upload", got "${raw}"`);
  return raw;
}

/** `BENCH_KNOWLEDGE_IVF=lists:probes` overrides the IVF defaults (for sweeps). */
function ivfFromEnv(): { lists?: number; probes?: number } {
  const raw = process.env.BENCH_KNOWLEDGE_IVF?.trim();
  if (!raw) return {};
  const [lists, probes] = raw.split(':').map(Number);
  return { ...(lists ? { lists } : {}), ...(probes ? { probes } : {}) };
}

export async function benchKnowledge(options: KnowledgeBenchOptions = {}): Promise<KnowledgeBenchReport> {
  const write = options.write ?? ((text: string) => process.stdout.write(text));
  const sizes = options.sizes ?? sizesFromEnv() ?? [10_000, 100_000];
  const dimensions = options.dimensions ?? (process.env.BENCH_KNOWLEDGE_DIMENSIONS ? Number(process.env.BENCH_KNOWLEDGE_DIMENSIONS) : 384);
  if (!Number.isInteger(dimensions) || dimensions < 8) throw new Error(`BENCH_KNOWLEDGE_DIMENSIONS must be a whole number of at least 8, got ${dimensions}`);
  const queryCount = options.queries ?? 100;
  const embedder = new RandomProjectionEmbedder(dimensions);
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-knowledge-'));
  const pool = new WorkerPool({ size: 2 });
  const notes: string[] = [];
  const only = options.only ?? onlyFromEnv();
  const withInline = options.uploadInline ?? process.env.BENCH_KNOWLEDGE_UPLOAD_INLINE !== '0';
  try {
    // Ingest throughput.
    const ingest = only === 'upload' ? undefined : await ingestFigures(dir, options.ingestChars ?? 2_000_000, embedder, pool);
    if (ingest) write(
      [
        `Knowledge ingest (SQLite, RecursiveChunker 500, ${dimensions}-d local embedder; ${ingest.mb.toFixed(1)} MB of text, the same text as a ${(ingest.pdfBytes / 1e6).toFixed(2)} MB PDF)`,
        `${'pipeline'.padEnd(34)} ${pad('chunks', 8)} ${pad('chunks/s', 10)}`,
        `${'store write alone (baseline)'.padEnd(34)} ${pad(String(ingest.text.chunks), 8)} ${pad(ingest.storeOnly.toFixed(0), 10)}`,
        `${'text: read, chunk, embed, store'.padEnd(34)} ${pad(String(ingest.text.chunks), 8)} ${pad(ingest.text.perSecond.toFixed(0), 10)}`,
        `${'PDF: parse, chunk, embed, store'.padEnd(34)} ${pad(String(ingest.pdf.chunks), 8)} ${pad(ingest.pdf.perSecond.toFixed(0), 10)}`,
      ].join('\n') + '\n\n',
    );

    // Event loop during a large upload.
    const bytes = options.uploadBytes ?? 10_000_000;
    const chunkSize = options.uploadChunkSize ?? 100;
    const pooled = await uploadFigures(dir, bytes, chunkSize, embedder, pool, 'pool');
    const inline = withInline ? await uploadFigures(dir, bytes, chunkSize, embedder, 'inline', 'inline') : undefined;
    const eventLoop = { idle: pooled.idle, pool: pooled.busy, inline: inline?.busy };
    write(
      [
        `Event-loop delay in a running runtime while it processes a ${(bytes / 1e6).toFixed(1)} MB text upload (chunk_size ${chunkSize}); target p99 < 50 ms`,
        `${'runtime'.padEnd(34)} ${pad('p99 ms', 8)} ${pad('max ms', 8)} ${pad('seconds', 8)} ${pad('chunks', 8)}`,
        `${'idle (baseline)'.padEnd(34)} ${pad(ms(eventLoop.idle.p99), 8)} ${pad(ms(eventLoop.idle.max), 8)}`,
        `${'upload, chunking in worker pool'.padEnd(34)} ${pad(ms(eventLoop.pool.p99), 8)} ${pad(ms(eventLoop.pool.max), 8)} ${pad(eventLoop.pool.seconds.toFixed(1), 8)} ${pad(String(eventLoop.pool.chunks), 8)}`,
        ...(eventLoop.inline
          ? [`${'upload, chunking inline'.padEnd(34)} ${pad(ms(eventLoop.inline.p99), 8)} ${pad(ms(eventLoop.inline.max), 8)} ${pad(eventLoop.inline.seconds.toFixed(1), 8)} ${pad(String(eventLoop.inline.chunks), 8)}`]
          : []),
      ].join('\n') + '\n\n',
    );
    if (only === 'upload') return { ingest: undefined, search: [], eventLoop, beir: undefined, notes };

    // Search latency, recall and quality.
    const search: KnowledgeBenchReport['search'] = [];
    const postgresUrl = 'postgresUrl' in options ? options.postgresUrl : postgresUrlFromEnv();
    let pg: Db | undefined;
    if (postgresUrl) pg = openDb(postgresUrl);
    else notes.push('PostgreSQL skipped: set TEST_POSTGRES_URL (or a postgres:// DATABASE_URL) to measure it');
    for (const size of sizes) {
      const path = join(dir, `search-${size}.db`);
      // Exact: the baseline the indexes are measured against (the default store trains IVF from 10k chunks).
      const sqlite = new SqliteVectorStore({ path, ivf: false });
      let sqliteWork: Workload;
      try {
        sqliteWork = await workload(sqlite, size, queryCount, embedder, size);
        search.push(await searchFigures('SQLite', sqlite, sqliteWork, embedder));
      } finally {
        await sqlite.close();
      }
      // The same file through the binary-quantized candidate index (built when the store opens).
      const quantized = new SqliteVectorStore({ path, quantizedCandidates: {} });
      try {
        await quantized.create();
        search.push(await searchFigures('SQLite BQ', quantized, sqliteWork, embedder));
      } finally {
        await quantized.close();
      }
      // The same file through the IVF index (the default store's, with trainAt lowered so sizes
      // below 10k are measured too), trained in the pool when the store opens.
      const ivf = new SqliteVectorStore({ path, ivf: { trainAt: 1000, ...ivfFromEnv() }, offload: pool });
      try {
        const t = performance.now();
        await ivf.create();
        await ivf.ivfSettled();
        // The first search starts reading the lists' codes into memory (ivf-memory.ts).
        await ivf.search({ searchType: 'vector', query: '', vector: Array.from(sqliteWork.queries[0]!.vector), limit: 10 });
        await ivf.ivf.memoryLoaded();
        notes.push(`SQLite IVF (${ivf.ivf.settings.lists} lists, ${ivf.ivf.settings.probes} probes) over ${size} chunks trained and assigned in ${((performance.now() - t) / 1000).toFixed(1)} s`);
        search.push(await searchFigures('SQLite IVF', ivf, sqliteWork, embedder));
      } finally {
        await ivf.close();
      }
      if (pg) {
        const table = `bench_knowledge_${size}`;
        await dropPostgres(pg, table);
        try {
          const exact = new PostgresVectorStore({ db: pg, table, hnsw: false });
          const work = await workload(exact, size, queryCount, embedder, size);
          search.push(await searchFigures('PostgreSQL', exact, work, embedder));
          // The same rows through the store's default HNSW index (halfvec, built in the background).
          const hnsw = new PostgresVectorStore({ db: pg, table });
          const t = performance.now();
          await hnsw.create();
          await hnsw.hnswSettled();
          notes.push(`PostgreSQL HNSW index over ${size} chunks built in ${((performance.now() - t) / 1000).toFixed(1)} s`);
          try {
            search.push(await searchFigures('PG HNSW', hnsw, work, embedder));
          } finally {
            await hnsw.close();
          }
        } finally {
          await dropPostgres(pg, table);
        }
      }
    }
    // Clustered vectors at the embedder's dimension, exact against HNSW (bench/knowledge-postgres.ts).
    const pgVectors = pg && options.pgVectors !== false ? await benchPostgresVectors({ db: pg, ...(options.pgVectorSizes ? { sizes: options.pgVectorSizes } : {}), write }) : undefined;
    await pg?.close();
    write(
      [
        `Knowledge search, limit 10, ${dimensions}-d vectors, ${queryCount} known-item queries per type; baseline: exact brute-force scan in JS`,
        `${'store'.padEnd(11)} ${pad('chunks', 7)} ${pad('exact p50/p99', 15)} ${pad('vector p50/p99', 16)} ${pad('keyword p50/p99', 16)} ${pad('hybrid p50/p99', 16)} ${pad('recall@10', 10)}`,
        ...search.map(
          (s) =>
            `${s.store.padEnd(11)} ${pad(String(s.size), 7)} ${pad(`${ms(s.exact.p50)}/${ms(s.exact.p99)}`, 15)} ${TYPES.map((t) => pad(`${ms(s.latency[t].p50)}/${ms(s.latency[t].p99)}`, 16)).join(' ')} ${pad(s.recall10.toFixed(3), 10)}`,
        ),
        '',
        'Retrieval quality on the generated known-item set (one relevant chunk per query); baseline: exact vector search',
        `${'store'.padEnd(11)} ${pad('chunks', 7)} ${(['exact', ...TYPES] as const).map((t) => pad(`${t} MRR/nDCG@10`, 22)).join(' ')}`,
        ...search.map((s) => `${s.store.padEnd(11)} ${pad(String(s.size), 7)} ${(['exact', ...TYPES] as const).map((t) => pad(`${s.quality[t].mrr10.toFixed(3)}/${s.quality[t].ndcg10.toFixed(3)}`, 22)).join(' ')}`),
      ].join('\n') + '\n\n',
    );

    let beir: KnowledgeBenchReport['beir'];
    const beirDir = 'beirDir' in options ? options.beirDir : process.env.BEIR_DIR;
    if (beirDir) {
      const store = new SqliteVectorStore({ path: join(dir, 'beir.db') });
      try {
        beir = await beirQuality(beirDir, store, embedder);
      } finally {
        await store.close();
      }
      const published = /scifact/i.test(beir.name) ? ' (published BM25 nDCG@10 on SciFact: 0.665)' : '';
      write(
        [
          `BEIR ${beir.name}: ${beir.queries} test queries on SQLite${published}`,
          ...TYPES.map((t) => `${t.padEnd(8)} MRR@10 ${beir!.quality[t].mrr10.toFixed(3)}  nDCG@10 ${beir!.quality[t].ndcg10.toFixed(3)}`),
        ].join('\n') + '\n\n',
      );
    } else {
      notes.push('BEIR skipped: set BEIR_DIR to a BEIR dataset folder (corpus.jsonl, queries.jsonl, qrels/test.tsv)');
    }
    if (notes.length > 0) write(`${notes.map((n) => `note: ${n}`).join('\n')}\n\n`);
    return { ingest: ingest && { text: ingest.text.perSecond, pdf: ingest.pdf.perSecond, storeOnly: ingest.storeOnly }, search, eventLoop, beir, pgVectors, notes };
  } finally {
    await pool.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function dropPostgres(db: Db, table: string): Promise<void> {
  await db.execute(`DROP TABLE IF EXISTS ${table}_chunks`);
  await db.execute(`DROP TABLE IF EXISTS ${table}_meta`);
}

if (import.meta.url === `file://${process.argv[1]}`) await benchKnowledge();
