import { describe, expect, it } from 'vitest';
import { Bm25 } from './bm25.js';
import { LexicalVariants } from './lexical-variants.js';

const DOCS = [
  { id: 'rain', title: 'Rainwater cistern', text: 'Rainwater cistern\n\nA cistern collects rain water from the roof for the garden.' },
  { id: 'can', title: 'Watering can', text: 'Watering can\n\nA brass watering can holds water for the garden beds.' },
  { id: 'seeds', title: 'Seed swap', text: 'Seed swap\n\nNeighbours swap seeds in spring; bring labelled envelopes.' },
  { id: 'roof', title: 'Roof repair', text: 'Roof repair\n\nGutters on the roof carry water away from the walls.' },
  // Unrelated ones, so that terms of two documents are not "in half the corpus".
  { id: 'bread', title: 'Bread', text: 'Bread\n\nKnead the dough and let it rise overnight.' },
  { id: 'bikes', title: 'Bikes', text: 'Bikes\n\nOil the chain after a wet ride.' },
  { id: 'books', title: 'Books', text: 'Books\n\nThe library lends novels for three weeks.' },
];

describe('the keyword-side variants of the BM25 baseline', () => {
  it('with no variant, ranks exactly as the BM25 baseline', () => {
    const variants = new LexicalVariants(DOCS);
    const bm25 = new Bm25(DOCS);
    for (const q of ['rain water', 'garden water', 'seed', 'roof gutters water']) expect(variants.search(q, 10)).toEqual(bm25.search(q, 10));
  });

  it('a title field lifts the document whose title holds the query terms', () => {
    const variants = new LexicalVariants(DOCS);
    const scored = (settings: object) => new Map(variants.scored('roof', 10, settings));
    expect(scored({ title: 1 }).get('roof')! - scored({}).get('roof')!).toBeGreaterThan(0);
    expect(scored({ title: 1 }).get('rain')).toBe(scored({}).get('rain'));
  });

  it('adjacent pairs score only where the two terms stand together', () => {
    const variants = new LexicalVariants(DOCS);
    const plain = new Map(variants.scored('watering can', 10));
    const pairs = new Map(variants.scored('watering can', 10, { bigram: 1 }));
    expect(pairs.get('can')!).toBeGreaterThan(plain.get('can')!);
  });

  it('RM3 brings in documents that share the first pass\'s terms but not the query\'s', () => {
    const variants = new LexicalVariants(DOCS);
    expect(variants.search('cistern', 10)).toEqual(['rain']);
    // The cistern passage's other terms (roof, rain, garden) reach documents without "cistern".
    const expanded = variants.search('cistern', 10, { rm3: { docs: 1, terms: 5, original: 0.5 } });
    expect(expanded[0]).toBe('rain');
    expect(expanded).toContain('roof');
    expect(expanded).not.toContain('bread');
  });
});
