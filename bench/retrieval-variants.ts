/**
 * What else was tried to lift hybrid search on SciFact, and by how much (docs/ARCHITECTURE.md,
 * "Hybrid fusion, measured on SciFact"). Two parts:
 *  - keyword side, in memory over the whole folder (no runtime): BM25 with other k1/b, RM3
 *    pseudo-relevance feedback, adjacent-pair matches, a title field (support/lexical-variants.ts);
 *  - with `--store DIR` (a store kept by `bench/retrieval.ts --store`, possibly still ingesting):
 *    over the documents it holds and the claims whose judged documents are all there, the local
 *    embedder's stored vectors, plain and with pseudo-relevance feedback in vector space (the
 *    query vector moved toward the mean of the keyword side's best documents), each fused with
 *    BM25 as the runtime's hybrid fuses (min-max, keyword share w).
 *   npx tsx --conditions=source bench/retrieval-variants.ts [folder] [--store DIR]
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { beirQueries, type LabelledQuery } from '../packages/runtime/src/knowledge/evals/beir.js';
import { meanScores, scoreQuery, type QueryScores } from '../packages/runtime/src/knowledge/evals/metrics.js';
import { convexFusion } from '../packages/runtime/src/knowledge/vector-stores/fusion.js';
import type { SearchHit } from '../packages/runtime/src/knowledge/vector-stores/vector-store.js';
import { LocalEmbedder } from '../packages/runtime/src/providers/local/embeddings.js';
import { LexicalVariants, type VariantDoc, type VariantSettings } from './support/lexical-variants.js';

const DEPTH = 100;
const flag = (name: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
};
const positional = process.argv.slice(2).find((a, i, all) => !a.startsWith('--') && !(i > 0 && all[i - 1]!.startsWith('--')));
const folder = resolve(positional ?? join(import.meta.dirname, '../../shared/datasets/scifact-train'));

function readDocs(): VariantDoc[] {
  return readFileSync(join(folder, 'corpus.jsonl'), 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => {
      const row = JSON.parse(l) as { _id: string; title?: string; text?: string };
      return { id: String(row._id), title: row.title ?? '', text: [row.title, row.text].filter(Boolean).join('\n\n') };
    });
}

function readQueries(): LabelledQuery[] {
  const qrels = join(folder, 'qrels');
  const file = readdirSync(qrels).find((f) => f === 'test.tsv') ?? readdirSync(qrels).find((f) => f.endsWith('.tsv'))!;
  return beirQueries(readFileSync(join(folder, 'queries.jsonl'), 'utf8'), readFileSync(join(qrels, file), 'utf8'));
}

const evaluate = (queries: readonly LabelledQuery[], ranked: (q: LabelledQuery, i: number) => readonly string[]) =>
  meanScores(queries.map((q, i) => scoreQuery(ranked(q, i), new Map(q.judgments.map((j) => [j.document, j.grade])), 10, DEPTH)));
const row = (label: string, s: QueryScores, base?: QueryScores) =>
  `${label.padEnd(40)} ${s.ndcg.toFixed(3).padStart(7)} ${s.mrr.toFixed(3).padStart(7)} ${s.recall.toFixed(3).padStart(10)}` +
  (base ? `   ${(s.ndcg - base.ndcg >= 0 ? '+' : '') + (s.ndcg - base.ndcg).toFixed(3)}` : '');

const LEXICAL: [string, VariantSettings][] = [
  ['BM25 k1 1.2, b 0.75 (Lucene default)', { k1: 1.2, b: 0.75 }],
  ['BM25 k1 1.2, b 0.4', { k1: 1.2, b: 0.4 }],
  ['RM3 3 docs, 20 terms, original 0.85', { rm3: { docs: 3, terms: 20, original: 0.85 } }],
  ['RM3 10 docs, 20 terms, original 0.85', { rm3: { docs: 10, terms: 20, original: 0.85 } }],
  ['RM3 10 docs, 40 terms, original 0.7', { rm3: { docs: 10, terms: 40, original: 0.7 } }],
  ['RM3 10 docs, 10 terms, original 0.5', { rm3: { docs: 10, terms: 10, original: 0.5 } }],
  ['+ adjacent pairs x0.2', { bigram: 0.2 }],
  ['+ title field x0.3', { title: 0.3 }],
  ['+ pairs x0.2, title x0.3', { bigram: 0.2, title: 0.3 }],
  ['+ pairs x0.2, title x0.3, RM3 10/20/0.85', { bigram: 0.2, title: 0.3, rm3: { docs: 10, terms: 20, original: 0.85 } }],
];

const asHits = (list: readonly [string, number][]): SearchHit[] => list.map(([name, score]) => ({ chunk: { id: '1', content_id: name, content: '', meta_data: {} }, score }));

/** The store's documents (name, vector) from a kept retrieval-bench store. */
function storedVectors(store: string): { names: string[]; vectors: Float32Array[] } {
  const db = new Database(join(store, 'knowledge.db'), { readonly: true });
  try {
    const rows = db.prepare('SELECT name, embedding FROM svc_knowledge_chunks WHERE embedding IS NOT NULL').all() as { name: string; embedding: Buffer }[];
    return { names: rows.map((r) => r.name), vectors: rows.map((r) => new Float32Array(r.embedding.buffer.slice(r.embedding.byteOffset, r.embedding.byteOffset + r.embedding.byteLength))) };
  } finally {
    db.close();
  }
}

async function vectorPart(store: string, docs: VariantDoc[], all: LabelledQuery[], out: string[]): Promise<void> {
  const { names, vectors } = storedVectors(store);
  const held = new Set(names);
  const queries = all.filter((q) => q.judgments.every((j) => held.has(j.document)));
  const lexical = new LexicalVariants(docs.filter((d) => held.has(d.id)));
  const keywordHits = queries.map((q) => lexical.scored(q.text, DEPTH));
  const keyword = keywordHits.map((hits) => hits.map(([id]) => id));
  const embedder = new LocalEmbedder({ workers: 1 });
  const queryVectors = await embedder.embed(queries.map((q) => q.text));
  const byName = new Map(names.map((n, i) => [n, i]));
  const d = vectors[0]?.length ?? 0;
  const nearest = (q: ArrayLike<number>): [string, number][] => {
    const scores = vectors.map((v) => {
      let s = 0;
      for (let i = 0; i < d; i++) s += q[i]! * v[i]!;
      return s;
    });
    // A long abstract is stored as more than one chunk: a document once, by its best chunk.
    const seen = new Set<string>();
    const ranked = [...scores.keys()].sort((a, b) => scores[b]! - scores[a]!).filter((i) => !seen.has(names[i]!) && seen.add(names[i]!));
    return ranked.slice(0, DEPTH).map((i) => [names[i]!, scores[i]!]);
  };
  const moved = (qi: number, docsUsed: number, beta: number) => {
    const q = Float64Array.from(queryVectors[qi]!);
    const used = keyword[qi]!.slice(0, docsUsed);
    for (const id of used) vectors[byName.get(id)!]!.forEach((x, i) => (q[i]! += (beta / used.length) * x));
    return nearest(q);
  };
  const base = evaluate(queries, (_, i) => keyword[i]!);
  out.push('', `vector side over ${store}: ${held.size} documents held (${names.length} chunks), ${queries.length} claims with all judged documents held`);
  out.push(row('BM25 (k1 0.9, b 0.4)', base));
  for (const [label, prf] of [['vector', undefined], ['vector, PRF 3 docs x1', [3, 1]], ['vector, PRF 5 docs x1', [5, 1]], ['vector, PRF 10 docs x0.5', [10, 0.5]]] as const) {
    const lists = queries.map((_, i) => (prf ? moved(i, prf[0], prf[1]) : nearest(queryVectors[i]!)));
    out.push(row(label, evaluate(queries, (_, i) => lists[i]!.map(([n]) => n)), base));
    for (const w of [0.7, 0.9]) {
      const fused = evaluate(queries, (_, i) => convexFusion(asHits(lists[i]!), asHits(keywordHits[i]!), DEPTH, w).map((h) => h.chunk.content_id));
      out.push(row(`  fused with BM25, keyword ${w}`, fused, base));
    }
  }
}

if (!existsSync(join(folder, 'corpus.jsonl'))) {
  process.stdout.write(`no BEIR folder at ${folder}\n`);
} else {
  const docs = readDocs();
  const queries = readQueries();
  const lexical = new LexicalVariants(docs);
  const out = [`Keyword-side variants: ${folder}, ${docs.length} documents, ${queries.length} judged queries`, `${'method'.padEnd(40)} nDCG@10  MRR@10 Recall@100   vs BM25`];
  const base = evaluate(queries, (q) => lexical.search(q.text, DEPTH));
  out.push(row('BM25 (k1 0.9, b 0.4)', base));
  for (const [label, settings] of LEXICAL) out.push(row(label, evaluate(queries, (q) => lexical.search(q.text, DEPTH, settings)), base));
  const store = flag('store');
  if (store) await vectorPart(resolve(store), docs, queries, out);
  process.stdout.write(`${out.join('\n')}\n`);
  process.exit(0);
}
