/**
 * Retrieval quality on real data, through the public HTTP API of a real runtime: a BEIR folder
 * (corpus.jsonl, queries.jsonl, qrels/*.tsv; default SciFact's training split in
 * ../shared/datasets/scifact-train, never copied into the repository) is uploaded document by
 * document (POST /knowledge/content, the title and abstract as text, the document id as name) to
 * the quickstart runtime with the local embedder, waited for by status counts
 * (GET /knowledge/content?status=...), and every judged query is searched (POST /knowledge/search,
 * 100 hits) by keyword, vector and hybrid. nDCG@10, MRR@10 and Recall@100 are printed beside a
 * plain BM25 (k1 0.9, b 0.4, as BEIR's and Anserini's baselines) over the same documents in the
 * same run, and a sweep of fusion settings over the keyword and vector rankings fetched.
 *   npx tsx --conditions=source bench/retrieval.ts [folder] [--queries N] [--docs N] [--store DIR]
 * --queries N samples N judged queries (seeded), --docs N makes their judged documents plus random
 * others N documents (default 5 per query); --store DIR keeps the runtime's store there and reuses
 * it when the same sample was ingested before (tuning then needs no re-embedding). Environment:
 * BENCH_RETRIEVAL_QUERIES, BENCH_RETRIEVAL_DOCS, BENCH_RETRIEVAL_STORE, BENCH_RETRIEVAL_WORKERS (2).
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { beirQueries, type LabelledQuery } from '../packages/runtime/src/knowledge/evals/beir.js';
import { meanScores, scoreQuery, type QueryScores } from '../packages/runtime/src/knowledge/evals/metrics.js';
import { Bm25 } from './support/bm25.js';
import { fusionSweep } from './support/fusion-sweep.js';
import { startServer } from './support/servers.js';

const DEFAULT_FOLDER = resolve(import.meta.dirname, '../../shared/datasets/scifact-train');
const SEARCH_TYPES = ['keyword', 'vector', 'hybrid'] as const;
const DEPTH = 100;

interface Doc {
  id: string;
  text: string;
}

interface Options {
  folder: string;
  queries: number | undefined;
  docs: number | undefined;
  store: string | undefined;
  workers: string;
}

const num = (v: string | undefined) => (v === undefined || v === '' ? undefined : Number(v));
const verdict = (ok: boolean) => (ok ? 'met' : 'MISSED');

function options(argv: string[]): Options {
  const flag = (name: string) => {
    const i = argv.indexOf(`--${name}`);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const positional = argv.find((a, i) => !a.startsWith('--') && !(i > 0 && argv[i - 1]!.startsWith('--')));
  return {
    folder: resolve(positional ?? DEFAULT_FOLDER),
    queries: num(flag('queries') ?? process.env.BENCH_RETRIEVAL_QUERIES),
    docs: num(flag('docs') ?? process.env.BENCH_RETRIEVAL_DOCS),
    store: flag('store') ?? process.env.BENCH_RETRIEVAL_STORE,
    workers: process.env.BENCH_RETRIEVAL_WORKERS ?? '2',
  };
}

function readFolder(folder: string): { docs: Doc[]; queries: LabelledQuery[] } {
  const docs = readFileSync(join(folder, 'corpus.jsonl'), 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => {
      const row = JSON.parse(l) as { _id: string; title?: string; text?: string };
      return { id: String(row._id), text: [row.title, row.text].filter(Boolean).join('\n\n') };
    });
  const qrelsDir = join(folder, 'qrels');
  const qrelsFile = readdirSync(qrelsDir).find((f) => f === 'test.tsv') ?? readdirSync(qrelsDir).find((f) => f.endsWith('.tsv'));
  if (!qrelsFile) throw new Error(`${qrelsDir} has no .tsv file`);
  const queries = beirQueries(readFileSync(join(folder, 'queries.jsonl'), 'utf8'), readFileSync(join(qrelsDir, qrelsFile), 'utf8'));
  return { docs, queries };
}

/** A seeded shuffle (mulberry32), so a sample is the same from run to run. */
function shuffled<T>(items: readonly T[], seed: number): T[] {
  let s = seed >>> 0;
  const random = () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/** `count` judged queries, and their judged documents plus random others up to `docCount`. */
function sample(all: { docs: Doc[]; queries: LabelledQuery[] }, count: number, docCount: number | undefined): { docs: Doc[]; queries: LabelledQuery[] } {
  const queries = shuffled(all.queries, 21).slice(0, count);
  const wanted = new Set(queries.flatMap((q) => q.judgments.map((j) => j.document)));
  const target = Math.max(wanted.size, docCount ?? count * 5);
  for (const doc of shuffled(all.docs, 42)) {
    if (wanted.size >= target) break;
    wanted.add(doc.id);
  }
  return { docs: all.docs.filter((d) => wanted.has(d.id)), queries };
}

async function call<T>(url: string, init?: RequestInit): Promise<T> {
  const response = await fetch(url, init);
  if (!response.ok) throw new Error(`${init?.method ?? 'GET'} ${url}: ${response.status} ${await response.text()}`);
  return (await response.json()) as T;
}

async function pool<T>(items: readonly T[], width: number, each: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: width }, async () => {
    while (next < items.length) await each(items[next++]!);
  }));
}

type Counts = { processing: number; completed: number; failed: number };
const counts = async (url: string) => (await call<{ meta: { status_counts: Counts } }>(`${url}/knowledge/content?limit=1`)).meta.status_counts;

/** The names of the contents a kept store holds already (an interrupted ingest resumes). */
async function stored(url: string): Promise<Set<string>> {
  const names = new Set<string>();
  for (let page = 1; ; page++) {
    const body = await call<{ data: { name: string | null }[]; meta: { total_pages: number } }>(`${url}/knowledge/content?limit=100&page=${page}&sort_by=name&sort_order=asc`);
    for (const r of body.data) if (r.name !== null) names.add(r.name);
    if (page >= body.meta.total_pages) return names;
  }
}

/** Uploads every document the store lacks and waits for them all by status counts. */
async function ingest(url: string, docs: Doc[]): Promise<string> {
  const before = await counts(url);
  if (before.completed === docs.length && before.processing === 0 && before.failed === 0) return `reused the store's ${docs.length} documents`;
  const have = before.completed + before.processing + before.failed > 0 ? await stored(url) : new Set<string>();
  const missing = docs.filter((d) => !have.has(d.id));
  if (have.size > 0 && [...have].some((name) => !docs.some((d) => d.id === name))) throw new Error('The store holds another set of documents; give another --store');
  const chars = missing.reduce((n, d) => n + d.text.length, 0);
  const started = performance.now();
  await pool(missing, 8, async (doc) => {
    await call(`${url}/knowledge/content`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: doc.id, text_content: doc.text }) });
  });
  let last = 0;
  for (;;) {
    const now = await counts(url);
    if (now.processing === 0) {
      if (now.failed > 0) throw new Error(`${now.failed} documents failed to ingest`);
      break;
    }
    if (performance.now() - last > 30_000) {
      last = performance.now();
      process.stdout.write(`  ingest: ${now.completed}/${docs.length} completed after ${((last - started) / 1000).toFixed(0)} s\n`);
    }
    await new Promise((r) => setTimeout(r, 1000));
  }
  const seconds = (performance.now() - started) / 1000;
  if (have.size > 0) return `resumed an interrupted ingest: uploaded the ${missing.length} missing documents, waited ${seconds.toFixed(0)} s for the ${docs.length - before.completed} not completed before`;
  return `ingested ${docs.length} documents (${chars} characters) in ${seconds.toFixed(0)} s: ${(chars / seconds).toFixed(0)} characters/s`;
}

/** Each query's ranking of document ids (hits' names, a document once) for one search type. */
async function rankings(url: string, queries: LabelledQuery[], searchType: string, scored?: Map<string, [string, number][]>): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>();
  await pool(queries, 4, async (q) => {
    const body = JSON.stringify({ query: q.text, search_type: searchType, max_results: DEPTH });
    const page = await call<{ data: { name: string | null; score: number }[] }>(`${url}/knowledge/search`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    out.set(q.id, [...new Set(page.data.map((h) => h.name ?? ''))]);
    scored?.set(q.id, page.data.map((h) => [h.name ?? '', h.score]));
  });
  return out;
}

export function evaluate(queries: LabelledQuery[], ranked: (q: LabelledQuery) => readonly string[]): QueryScores {
  return meanScores(queries.map((q) => scoreQuery(ranked(q), new Map(q.judgments.map((j) => [j.document, j.grade])), 10, DEPTH)));
}

const row = (label: string, s: QueryScores, bm25?: QueryScores) =>
  `${label.padEnd(28)} ${s.ndcg.toFixed(3).padStart(7)} ${s.mrr.toFixed(3).padStart(7)} ${s.recall.toFixed(3).padStart(10)}` +
  (bm25 ? `   ${(s.ndcg - bm25.ndcg >= 0 ? '+' : '') + (s.ndcg - bm25.ndcg).toFixed(3)}` : '');

export async function benchRetrieval(argv: string[] = process.argv.slice(2)): Promise<void> {
  const o = options(argv);
  if (!existsSync(join(o.folder, 'corpus.jsonl'))) {
    process.stdout.write(`\nRetrieval quality: no BEIR folder at ${o.folder} (corpus.jsonl, queries.jsonl, qrels/*.tsv); skipped\n\n`);
    return;
  }
  const all = readFolder(o.folder);
  const data = o.queries ? sample(all, o.queries, o.docs) : all;
  const signature = createHash('sha256').update(data.docs.map((d) => d.id).join('\n')).digest('hex').slice(0, 12);
  const storeDir = o.store ? join(resolve(o.store), signature) : mkdtempSync(join(tmpdir(), 'svc-bench-retrieval-'));
  mkdirSync(storeDir, { recursive: true });
  const server = await startServer('retrieval-server.ts', { BENCH_RETRIEVAL_STORE: join(storeDir, 'runtime.db'), BENCH_RETRIEVAL_WORKERS: o.workers });
  const out = ['', `Retrieval quality: ${o.folder}, ${data.docs.length} documents, ${data.queries.length} judged queries${o.queries ? ' (a sample)' : ''}; quickstart runtime over HTTP, local embedder, ${o.workers} workers`];
  try {
    out.push(await ingest(server.url, data.docs));
    const lists = new Map<string, Map<string, string[]>>();
    const scored: Record<string, Map<string, [string, number][]>> = {};
    for (const type of SEARCH_TYPES) lists.set(type, await rankings(server.url, data.queries, type, (scored[type] = new Map())));
    // With a kept store, the hits with their scores too, for studying fusion offline.
    if (o.store) writeFileSync(join(storeDir, 'hits.json'), JSON.stringify(Object.fromEntries(Object.entries(scored).map(([t, m]) => [t, Object.fromEntries(m)]))));
    const bm25Index = new Bm25(data.docs);
    const bm25 = evaluate(data.queries, (q) => bm25Index.search(q.text, DEPTH));
    out.push(`${'method'.padEnd(28)} nDCG@10  MRR@10 Recall@100   vs BM25`, row('BM25 (k1 0.9, b 0.4)', bm25));
    const scores = new Map<string, QueryScores>();
    for (const type of SEARCH_TYPES) {
      const s = evaluate(data.queries, (q) => lists.get(type)!.get(q.id) ?? []);
      scores.set(type, s);
      out.push(row(`runtime ${type}`, s, bm25));
    }
    const [keyword, vector, hybrid] = SEARCH_TYPES.map((t) => scores.get(t)!);
    out.push(
      `targets: hybrid > keyword (${hybrid!.ndcg.toFixed(3)} vs ${keyword!.ndcg.toFixed(3)}): ${verdict(hybrid!.ndcg > keyword!.ndcg)}; ` +
        `hybrid >= BM25 + 0.03 (${(hybrid!.ndcg - bm25.ndcg).toFixed(3)}): ${verdict(hybrid!.ndcg - bm25.ndcg >= 0.03)}; ` +
        `vector within 0.05 of BM25 (${(vector!.ndcg - bm25.ndcg).toFixed(3)}): ${verdict(vector!.ndcg >= bm25.ndcg - 0.05)}`,
    );
    out.push(...fusionSweep(data.queries, scored.keyword!, scored.vector!, (ranked) => evaluate(data.queries, ranked), (label, s) => row(label, s, bm25)));
  } finally {
    await server.stop();
    if (!o.store) rmSync(storeDir, { recursive: true, force: true });
  }
  process.stdout.write(`${out.join('\n')}\n\n`);
}

if (import.meta.url === `file://${process.argv[1]}`) await benchRetrieval();
