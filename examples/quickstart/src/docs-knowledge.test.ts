import { describe, expect, it } from 'vitest';
import { DocsKnowledge, splitMarkdown, terms } from './docs-knowledge.js';
import { DOCS_DIR } from './runtime.js';

describe('splitMarkdown', () => {
  it('starts a passage at each heading and names it after file and heading', () => {
    const passages = splitMarkdown('a.md', 'intro line\n# One\nfirst\n## Two\nsecond\n### Three\nstill two');
    expect(passages.map((p) => p.name)).toEqual(['a.md', 'a.md › One', 'a.md › Two']);
    expect(passages[2]!.content).toBe('## Two\nsecond\n### Three\nstill two');
  });

  it('drops empty passages', () => {
    expect(splitMarkdown('a.md', '# Only\n')).toEqual([{ name: 'a.md › Only', content: '# Only' }]);
    expect(splitMarkdown('a.md', '\n\n')).toEqual([]);
  });
});

describe('DocsKnowledge', () => {
  const kb = new DocsKnowledge({
    id: 'kb',
    name: 'KB',
    description: 'test',
    passages: [
      { name: 'cats', content: 'Cats sleep most of the day. A cat purrs.' },
      { name: 'dogs', content: 'Dogs bark. A dog fetches sticks and balls.' },
      { name: 'pets', content: 'Cats and dogs are both popular pets.' },
    ],
  });

  it('ranks the passage that mentions the query terms most, first', async () => {
    const hits = await kb.search('why does my cat purr');
    expect(hits[0]!.name).toBe('cats');
    expect(hits.every((h) => h.score > 0)).toBe(true);
  });

  it('returns nothing for a query with no known terms, and honours the limit', async () => {
    expect(await kb.search('quantum chromodynamics')).toEqual([]);
    expect(await kb.search('the of and')).toEqual([]);
    expect(await kb.search('cats dogs pets', { limit: 2 })).toHaveLength(2);
  });

  it('ignores case, punctuation and stop words', () => {
    expect(terms('The CAT, the Dog!')).toEqual(['cat', 'dog']);
  });

  it('loads the bundled docs, and finds how to cancel a run', async () => {
    const docs = DocsKnowledge.fromDirectory(DOCS_DIR, { id: 'd', name: 'D', description: 'd' });
    expect(docs.size).toBeGreaterThan(5);
    const [top] = await docs.search('how do I cancel a run');
    expect(top!.name).toBe('runs-and-sessions.md › Cancelling');
  });
});
