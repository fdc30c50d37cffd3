/**
 * Keyword-side variants of the retrieval bench's BM25 baseline, tried on SciFact to see whether
 * query handling alone could lift hybrid search (bench/retrieval-variants.ts prints them): other
 * k1/b, pseudo-relevance feedback (RM3: terms of the first pass's best documents added to the
 * query), adjacent-pair (bigram) matches added to the score, and a title field scored beside
 * the text (BM25F-like). Same analysis as bm25.ts (Lucene English: stop words, Porter stems).
 */
import { analyse } from './bm25.js';

export interface VariantDoc {
  id: string;
  /** The first line of a document (its title in a BEIR corpus). */
  title: string;
  text: string;
}

/** One field's inverted index. */
class Field {
  readonly postings = new Map<string, Map<number, number>>();
  readonly lengths: number[] = [];
  readonly average: number;

  constructor(texts: readonly string[][]) {
    for (const [doc, terms] of texts.entries()) {
      this.lengths.push(terms.length);
      for (const term of terms) {
        const list = this.postings.get(term) ?? new Map<number, number>();
        list.set(doc, (list.get(doc) ?? 0) + 1);
        this.postings.set(term, list);
      }
    }
    this.average = this.lengths.reduce((sum, n) => sum + n, 0) / Math.max(1, this.lengths.length);
  }

  /** Adds `weight` x each weighted term's BM25 contribution to `scores`. */
  score(terms: ReadonlyMap<string, number>, k1: number, b: number, weight: number, scores: Float64Array): void {
    const n = this.lengths.length;
    for (const [term, qw] of terms) {
      const list = this.postings.get(term);
      if (!list) continue;
      const idf = Math.log(1 + (n - list.size + 0.5) / (list.size + 0.5));
      for (const [doc, tf] of list) {
        const norm = k1 * (1 - b + (b * this.lengths[doc]!) / this.average);
        scores[doc]! += (weight * qw * idf * tf * (k1 + 1)) / (tf + norm);
      }
    }
  }
}

export interface VariantSettings {
  k1?: number;
  b?: number;
  /** Weight of adjacent query-term pairs found adjacent in a document (0: off). */
  bigram?: number;
  /** Weight of the title field beside the whole text (0: off). */
  title?: number;
  /** RM3: documents of the first pass, expansion terms, the original query's share (undefined: off). */
  rm3?: { docs: number; terms: number; original: number };
}

const pairs = (terms: readonly string[]) => terms.slice(1).map((term, i) => `${terms[i]} ${term}`);
const counted = (terms: readonly string[]) => {
  const out = new Map<string, number>();
  for (const term of terms) out.set(term, (out.get(term) ?? 0) + 1);
  return out;
};

export class LexicalVariants {
  private readonly ids: string[];
  private readonly termCounts: Map<string, number>[];
  private readonly text: Field;
  private readonly bigrams: Field;
  private readonly titles: Field;

  constructor(docs: readonly VariantDoc[]) {
    this.ids = docs.map((d) => d.id);
    const terms = docs.map((d) => analyse(d.text));
    this.termCounts = terms.map(counted);
    this.text = new Field(terms);
    this.bigrams = new Field(terms.map(pairs));
    this.titles = new Field(docs.map((d) => analyse(d.title)));
  }

  /** The best `limit` document ids for `query` under `settings`, best first. */
  search(query: string, limit: number, settings: VariantSettings = {}): string[] {
    return this.scored(query, limit, settings).map(([id]) => id);
  }

  /** As `search`, with each document's score. */
  scored(query: string, limit: number, settings: VariantSettings = {}): [string, number][] {
    const terms = analyse(query);
    let weights = counted(terms);
    if (settings.rm3) weights = this.expanded(weights, settings);
    const scores = new Float64Array(this.ids.length);
    return this.ranked(weights, terms, settings, limit, scores).map((doc) => [this.ids[doc]!, scores[doc]!]);
  }

  private ranked(weights: ReadonlyMap<string, number>, terms: readonly string[], settings: VariantSettings, limit: number, scores = new Float64Array(this.ids.length)): number[] {
    const { k1 = 0.9, b = 0.4 } = settings;
    this.text.score(weights, k1, b, 1, scores);
    if (settings.bigram) this.bigrams.score(counted(pairs(terms)), k1, b, settings.bigram, scores);
    if (settings.title) this.titles.score(weights, k1, b, settings.title, scores);
    return [...scores.keys()]
      .filter((doc) => scores[doc]! > 0)
      .sort((x, y) => scores[y]! - scores[x]! || x - y)
      .slice(0, limit);
  }

  /** RM3: the query's terms (share `original`) plus the first pass's best documents' most likely terms. */
  private expanded(query: ReadonlyMap<string, number>, settings: VariantSettings): Map<string, number> {
    const { docs, terms, original } = settings.rm3!;
    const first = this.ranked(query, [], { k1: settings.k1, b: settings.b }, docs);
    const relevance = new Map<string, number>();
    for (const doc of first) {
      const length = this.text.lengths[doc]! || 1;
      for (const [term, tf] of this.termCounts[doc]!) relevance.set(term, (relevance.get(term) ?? 0) + tf / length / first.length);
    }
    // Terms in half the corpus or more say nothing about this query.
    const half = this.ids.length / 2;
    const best = [...relevance].filter(([term]) => (this.text.postings.get(term)?.size ?? 0) < half).sort((x, y) => y[1] - x[1]).slice(0, terms);
    const bestSum = best.reduce((sum, [, p]) => sum + p, 0) || 1;
    const querySum = [...query.values()].reduce((sum, n) => sum + n, 0) || 1;
    // Shares as RM3 gives them, scaled by the query's length so that the original terms keep
    // their weight beside the pair and title fields (the ranking by text alone is unchanged).
    const out = new Map<string, number>();
    for (const [term, n] of query) out.set(term, original * n);
    for (const [term, p] of best) out.set(term, (out.get(term) ?? 0) + ((1 - original) * p * querySum) / bestSum);
    return out;
  }
}
