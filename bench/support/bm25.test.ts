import { describe, expect, it } from 'vitest';
import { analyse, Bm25 } from './bm25.js';

describe('the BM25 baseline', () => {
  it('analyses as Lucene English: lower case, stop words dropped, possessives cut, Porter stems', () => {
    expect(analyse("The Running dogs' toys, and the dog's ball")).toEqual(['run', 'dog', 'toi', 'dog', 'ball']);
  });

  it('ranks by BM25: rarer terms weigh more, repeats saturate, longer documents are discounted', () => {
    const index = new Bm25([
      { id: 'cats', text: 'cats cats cats' },
      { id: 'cat-and-dog', text: 'a cat and a dog' },
      { id: 'dogs', text: 'dogs everywhere, dogs all day long with more words here' },
      { id: 'none', text: 'nothing relevant' },
    ]);
    // "cat" is in 2 of 4 documents, "dog" in 2; the one with both wins.
    expect(index.search('cat dog', 10)).toEqual(['cat-and-dog', 'cats', 'dogs']);
    expect(index.search('cat', 1)).toEqual(['cats']);
    expect(index.search('unicorn', 10)).toEqual([]);
  });
});
