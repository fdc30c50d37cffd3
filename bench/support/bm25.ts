/**
 * A plain BM25 (Lucene's formula, k1 = 0.9, b = 0.4 as BEIR's and Anserini's baselines use) over
 * documents in memory, the baseline the retrieval bench prints beside the runtime's figures.
 * Text is analysed as Lucene's EnglishAnalyzer does: lower case, letters and digits, Lucene's
 * English stop words dropped, Porter stemming (the `stemmer` package).
 */
import { stemmer } from 'stemmer';

// Lucene's EnglishAnalyzer.ENGLISH_STOP_WORDS_SET.
const STOP = new Set('a an and are as at be but by for if in into is it no not of on or such that the their then there these they this to was will with'.split(' '));

export function analyse(text: string): string[] {
  const words = text.normalize('NFKC').toLowerCase().replace(/'s\b/g, '').match(/[\p{L}\p{N}]+/gu) ?? [];
  return words.filter((w) => !STOP.has(w)).map((w) => stemmer(w));
}

export class Bm25 {
  private readonly postings = new Map<string, Map<number, number>>();
  private readonly lengths: number[] = [];
  private readonly ids: string[] = [];
  private average = 0;

  constructor(
    documents: Iterable<{ id: string; text: string }>,
    private readonly k1 = 0.9,
    private readonly b = 0.4,
  ) {
    for (const doc of documents) {
      const index = this.ids.push(doc.id) - 1;
      const terms = analyse(doc.text);
      this.lengths.push(terms.length);
      for (const term of terms) {
        const list = this.postings.get(term) ?? new Map<number, number>();
        list.set(index, (list.get(index) ?? 0) + 1);
        this.postings.set(term, list);
      }
    }
    this.average = this.lengths.reduce((sum, n) => sum + n, 0) / Math.max(1, this.lengths.length);
  }

  /** The best `limit` document ids for `query`, best first. */
  search(query: string, limit: number): string[] {
    const n = this.ids.length;
    const scores = new Map<number, number>();
    for (const term of analyse(query)) {
      const list = this.postings.get(term);
      if (!list) continue;
      const idf = Math.log(1 + (n - list.size + 0.5) / (list.size + 0.5));
      for (const [doc, tf] of list) {
        const norm = this.k1 * (1 - this.b + (this.b * this.lengths[doc]!) / this.average);
        scores.set(doc, (scores.get(doc) ?? 0) + (idf * tf * (this.k1 + 1)) / (tf + norm));
      }
    }
    return [...scores]
      .sort((x, y) => y[1] - x[1] || x[0] - y[0])
      .slice(0, limit)
      .map(([doc]) => this.ids[doc]!);
  }
}
