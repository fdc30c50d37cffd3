import { describe, expect, it } from 'vitest';
import { pdfDocument, pptxDeck } from '../../../test/support/office-generators.js';
import { createChunker } from '../chunkers/registry.js';
import { MarkdownChunker } from '../chunkers/markdown.js';
import type { Chunker } from '../chunkers/list.js';
import { Knowledge } from '../knowledge.js';
import { joinParts, stampParts } from './paged.js';
import type { Document } from '../types.js';
import { SqliteVectorStore } from '../vector-stores/sqlite/store.js';

/** Page n's words are tagged `p{n}w{i}`, so any chunk's true pages can be read off its words. */
function pages(count: number, wordsPerPage: number): Document[] {
  return Array.from({ length: count }, (_page, p) => {
    const words = Array.from({ length: wordsPerPage }, (_word, w) => `p${p + 1}w${w + 1}`);
    // Paragraphs of 7 words, sentences of 4 words give every chunker something to cut at.
    const paragraphs: string[] = [];
    for (let i = 0; i < words.length; i += 7) paragraphs.push(words.slice(i, i + 7).map((w, j) => (j % 4 === 3 ? `${w}.` : w)).join(' '));
    return { content: paragraphs.join('\n\n'), name: 'book', id: `book_${p + 1}`, meta_data: { page: p + 1, lang: 'en', ...(p === 1 ? { rotated: true } : {}) } };
  });
}

function truePages(content: string): [number, number] {
  const numbers = [...content.matchAll(/(?<![\w])p(\d+)w\d+/g)].map((m) => Number(m[1]));
  return [Math.min(...numbers), Math.max(...numbers)];
}

const chunkers: [string, Chunker][] = [
  ['FixedSizeChunker', createChunker('FixedSizeChunker', { chunkSize: 90 })],
  ['FixedSizeChunker with overlap', createChunker('FixedSizeChunker', { chunkSize: 90, overlap: 20 })],
  ['RecursiveChunker', createChunker('RecursiveChunker', { chunkSize: 110 })],
  // 130, not 120: with separators counted against the size, 120 happens to end every chunk at a
  // page break, and the test wants chunks that cross one.
  ['DocumentChunker', createChunker('DocumentChunker', { chunkSize: 130 })],
  // Overlap glues the previous chunk's tail onto the next piece, so the chunk is no verbatim slice.
  ['DocumentChunker with overlap', createChunker('DocumentChunker', { chunkSize: 120, overlap: 15 })],
  ['MarkdownChunker', createChunker('MarkdownChunker', { chunkSize: 100 })],
  ['RowChunker', createChunker('RowChunker')],
];

describe('page-aware chunking', () => {
  for (const [label, chunker] of chunkers) {
    it(`stamps every ${label} chunk with the pages its words come from`, async () => {
      const joined = joinParts(pages(4, 33), 'page', undefined)!;
      const chunks = stampParts(joined, await chunker.chunk({ ...joined.document, meta_data: { ...joined.document.meta_data, topic: 'test' } }));
      expect(chunks.length).toBeGreaterThan(3);
      const ids = chunks.map((c) => c.id);
      expect(new Set(ids).size).toBe(ids.length);
      let spanning = 0;
      for (const chunk of chunks) {
        const [first, last] = truePages(chunk.content);
        expect([chunk.meta_data.page_start, chunk.meta_data.page_end], `${chunk.id}: ${chunk.content}`).toEqual([first, last]);
        // `page` only on a chunk within one page.
        expect(Object.hasOwn(chunk.meta_data, 'page') ? chunk.meta_data.page : 'absent').toBe(first === last ? first : 'absent');
        spanning += first === last ? 0 : 1;
        // Shared reader metadata stays, the caller's too; page 2's own flag only on chunks within it.
        expect(chunk.meta_data).toMatchObject({ lang: 'en', topic: 'test' });
        expect(chunk.meta_data.rotated === true).toBe(first === 2 && last === 2);
        expect(chunk.id).toMatch(/^book_(row_)?\d+$/);
      }
      // Rows never cross a page break; every other strategy here packs across one somewhere.
      expect(spanning > 0, 'some chunk crosses a page break').toBe(label !== 'RowChunker');
    });
  }

  it('locates chunks a chunker rewrote: a heading repeated in each piece of a long section', () => {
    const docs: Document[] = [
      { content: '# Results\n\nAlpha beta gamma delta epsilon zeta.', name: 'r', meta_data: { page: 1 } },
      { content: 'Eta theta iota kappa lambda mu.\n\nNu xi omicron pi rho sigma.', name: 'r', meta_data: { page: 2 } },
      { content: 'Tau upsilon phi chi psi omega.', name: 'r', meta_data: { page: 3 } },
    ];
    const joined = joinParts(docs, 'page', 'report')!;
    const chunks = stampParts(joined, new MarkdownChunker({ chunkSize: 50, splitOnHeadings: true }).chunk(joined.document));
    expect(chunks.map((c) => [c.id, c.content.split('\n\n')[1], c.meta_data.page_start, c.meta_data.page_end])).toEqual([
      ['report_1', 'Alpha beta gamma delta epsilon zeta.', 1, 1],
      ['report_2', 'Eta theta iota kappa lambda mu.', 2, 2],
      ['report_3', 'Nu xi omicron pi rho sigma.', 2, 2],
      ['report_4', 'Tau upsilon phi chi psi omega.', 3, 3],
    ]);
    expect(chunks.every((c) => c.content.startsWith('# Results\n\n'))).toBe(true);
  });

  it('leaves documents that are not numbered parts to be chunked one by one', () => {
    expect(joinParts([{ content: 'a', meta_data: {} }], 'page', undefined)).toBeUndefined();
    expect(joinParts([{ content: 'a', meta_data: { page: '1' } }], 'page', undefined)).toBeUndefined();
    expect(joinParts([], 'page', undefined)).toBeUndefined();
  });
});

describe('page-aware chunking through the Knowledge', () => {
  it('chunks a real multi-page PDF as one text: a passage across a page break is one chunk with its page range', async () => {
    const knowledge = new Knowledge({ id: 'paged', store: new SqliteVectorStore({ path: ':memory:' }) });
    const pdf = await pdfDocument([
      ['Chapter one. The kettle warranty covers two years of normal household use.'],
      ['Returns are accepted within thirty days when the receipt is kept.'],
      ['Appendix. Descaling with vinegar is recommended every month.'],
    ]);
    const result = await knowledge.insert({ buffer: pdf, name: 'policy.pdf', chunker: 'FixedSizeChunker', chunkSize: 90, metadata: { kind: 'policy' } });
    expect(result).toMatchObject({ reader: 'pdf', chunker: 'FixedSizeChunker' });
    const hits = await knowledge.search('kettle warranty returns accepted descaling vinegar recommended month', { searchType: 'keyword', limit: 10 });
    const byId = new Map(hits.map((h) => [h.id, h]));
    // Hit ids are the content id and the chunk's position in it.
    expect([...byId.keys()].sort()).toEqual(Array.from({ length: result.chunks }, (_, i) => `${result.content_id}_${i + 1}`).sort());
    const spanning = hits.find((h) => h.content.includes('household use. Returns'));
    expect(spanning?.meta_data).toMatchObject({ page_start: 1, page_end: 2, kind: 'policy' });
    expect(spanning?.meta_data).not.toHaveProperty('page');
    const last = hits.find((h) => h.content.includes('every month'));
    expect(last?.meta_data).toMatchObject({ page_start: 3, page_end: 3, page: 3 });
    // Filters take the new fields like any metadata.
    expect((await knowledge.search('recommended month', { searchType: 'keyword', filters: { page: 3 } })).map((h) => h.id)).toEqual([last!.id]);
    await knowledge.store.close();
  });

  it('keeps short pages together under the default chunker, and slides carry slide ranges', async () => {
    const knowledge = new Knowledge({ id: 'slides', store: new SqliteVectorStore({ path: ':memory:' }) });
    const deck = await pptxDeck([{ title: 'Plan', bullets: ['Ship the beta'] }, { title: 'Risks', notes: 'Budget is tight.' }]);
    const result = await knowledge.insert({ buffer: deck, name: 'plan.pptx' });
    expect(result).toMatchObject({ reader: 'pptx', chunker: 'DocumentChunker', chunks: 1 });
    const [hit] = await knowledge.search('budget tight', { searchType: 'keyword' });
    // DocumentChunker keeps the notes' line break.
    expect(hit).toMatchObject({ id: `${result.content_id}_1`, content: 'Slide 1: Plan\n\nShip the beta\n\nSlide 2: Risks\n\nSpeaker notes:\nBudget is tight.' });
    expect(hit!.meta_data).toMatchObject({ slide_start: 1, slide_end: 2, chunk: 1 });
    await knowledge.store.close();
  });
});
