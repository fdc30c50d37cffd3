import { describe, expect, it } from 'vitest';
import { RuntimeError } from '../../errors.js';
import type { Document } from '../types.js';
import { cleanText } from './chunker.js';
import { DocumentChunker } from './document.js';
import { FixedSizeChunker } from './fixed-size.js';
import { MarkdownChunker } from './markdown.js';
import { RecursiveChunker } from './recursive.js';
import { CHUNKERS, createChunker } from './registry.js';
import { RowChunker } from './row.js';

const doc = (content: string, extra: Partial<Document> = {}): Document => ({ content, name: 'doc', id: 'doc', meta_data: { source: 't' }, ...extra });

describe('chunkers', () => {
  it('cleanText flattens every whitespace run', () => {
    expect(cleanText('a\n\n b\t\tc')).toBe('a b c');
  });

  it('FixedSizeChunker cuts at whitespace, numbers chunks and copies metadata', () => {
    const chunks = new FixedSizeChunker({ chunkSize: 10 }).chunk(doc('alpha beta gamma delta'));
    expect(chunks.map((c) => c.content)).toEqual(['alpha beta', 'gamma', 'delta']);
    expect(chunks[0]).toEqual({ content: 'alpha beta', name: 'doc', id: 'doc_1', meta_data: { source: 't', chunk: 1, chunk_size: 10 } });
    expect(chunks.map((c) => c.id)).toEqual(['doc_1', 'doc_2', 'doc_3']);
  });

  it('FixedSizeChunker overlaps by characters and cuts hard inside long words', () => {
    expect(new FixedSizeChunker({ chunkSize: 4 }).chunk(doc('abcdefghij')).map((c) => c.content)).toEqual(['abcd', 'efgh', 'ij']);
    const overlapped = new FixedSizeChunker({ chunkSize: 6, overlap: 2 }).chunk(doc('abcdefghij')).map((c) => c.content);
    expect(overlapped).toEqual(['abcdef', 'efghij']);
  });

  it('empty content yields no chunks; an unnamed document gets hash ids', () => {
    expect(new FixedSizeChunker().chunk(doc(''))).toEqual([]);
    const [chunk] = new FixedSizeChunker().chunk({ content: 'hi', meta_data: {} });
    expect(chunk?.id).toMatch(/^chunk_[0-9a-f]{12}_1$/);
  });

  it('refuses an overlap that is not smaller than the size', () => {
    expect(() => new FixedSizeChunker({ chunkSize: 5, overlap: 5 })).toThrow(/chunk_overlap \(5\) must be smaller/);
    expect(() => new RecursiveChunker({ chunkSize: 0 })).toThrow(/positive integer/);
  });

  it('RecursiveChunker ends windows after the last newline, else the last period', () => {
    const chunks = new RecursiveChunker({ chunkSize: 12 }).chunk(doc('line one\nline two\nend. more words'));
    expect(chunks.map((c) => c.content)).toEqual(['line one', 'line two', 'end.', 'more words']);
  });

  it('RecursiveChunker never skips text when the overlap reaches back past the window start', () => {
    // The window ends after "ab\n"; end - overlap does not advance. agno then jumps a tenth of
    // the size ahead and loses "word wo"; here the next window starts where this one ended.
    const text = `ab\n${'word '.repeat(40)}`;
    const chunks = new RecursiveChunker({ chunkSize: 100, overlap: 50 }).chunk(doc(text)).map((c) => c.content);
    expect(chunks[0]).toBe('ab');
    expect(chunks[1]!.startsWith('word word')).toBe(true);
    expect(chunks.at(-1)!.endsWith('word word')).toBe(true);
  });

  it('DocumentChunker packs paragraphs, then sentences of oversized paragraphs', () => {
    const text = 'First para.\n\nSecond para.\n\nA long one. It has two sentences that are long.';
    const chunks = new DocumentChunker({ chunkSize: 25 }).chunk(doc(text));
    expect(chunks.map((c) => c.content)).toEqual(['First para.\n\nSecond para.', 'A long one.', 'It has two sentences that', 'are long.']);
  });

  it('DocumentChunker keeps a line break inside a paragraph as one, and collapses other whitespace', () => {
    const text = 'Name: Ada  Lovelace \r\n  Born:\t1815\n \nKnown For: the first\n\n\n program';
    expect(new DocumentChunker().chunk(doc(text)).map((c) => c.content)).toEqual(['Name: Ada Lovelace\nBorn: 1815\n\nKnown For: the first\n\nprogram']);
  });

  it('DocumentChunker overlap prepends the tail of the previous chunk', () => {
    const chunks = new DocumentChunker({ chunkSize: 6, overlap: 2 }).chunk(doc('aaaaaa\n\nbbbbbb'));
    expect(chunks.map((c) => c.content)).toEqual(['aaaaaa', 'aabbbbbb']);
    expect(chunks[1]?.meta_data.chunk_size).toBe(8);
  });

  it('MarkdownChunker keeps small files whole and packs sections of large ones', () => {
    const md = '# A\n\nalpha text\n\n## B\n\nbeta text\n\n# C\n\ngamma';
    expect(new MarkdownChunker().chunk(doc(md))).toHaveLength(1);
    const packed = new MarkdownChunker({ chunkSize: 27 }).chunk(doc(md)).map((c) => c.content);
    expect(packed).toEqual(['# A\n\nalpha text', '## B\n\nbeta text\n\n# C\n\ngamma']);
  });

  it('packing counts the separators, so chunk_size is a maximum (agno does not count them)', () => {
    const md = '# A\n\nalpha text\n\n## B\n\nbeta text\n\n# C\n\ngamma';
    const packed = new MarkdownChunker({ chunkSize: 26 }).chunk(doc(md)).map((c) => c.content);
    expect(packed).toEqual(['# A\n\nalpha text', '## B\n\nbeta text', '# C\n\ngamma']);
    const paragraphs = new DocumentChunker({ chunkSize: 24 }).chunk(doc('First para.\n\nSecond para.')).map((c) => c.content);
    expect(paragraphs).toEqual(['First para.', 'Second para.']);
  });

  it('MarkdownChunker heading mode overlaps with the previous text, never with a repeated heading', () => {
    const md = '# T\n\nalpha beta\n\ngamma delta\n\n# U\n\nend';
    const chunks = new MarkdownChunker({ splitOnHeadings: true, chunkSize: 16, overlap: 3 }).chunk(doc(md)).map((c) => c.content);
    expect(chunks).toEqual(['# T\n\nalpha beta', '# T\n\netagamma delta', 'lta# U\n\nend']);
  });

  it('MarkdownChunker does not repeat a heading that leaves no room for text', () => {
    const md = '## A very long heading\n\none two\n\nthree four';
    const chunks = new MarkdownChunker({ splitOnHeadings: true, chunkSize: 20 }).chunk(doc(md)).map((c) => c.content);
    expect(chunks.every((c) => c.length <= 20)).toBe(true);
    expect(chunks.filter((c) => c.includes('heading'))).toHaveLength(1);
  });

  it('MarkdownChunker splitOnHeadings makes one chunk per section, repeating headings when splitting', () => {
    const md = 'intro\n\n# A\n\nalpha\n\n```\n# not a heading\n```\n\n## B\n\nbeta one\n\nbeta two';
    const sections = new MarkdownChunker({ splitOnHeadings: true }).chunk(doc(md)).map((c) => c.content);
    expect(sections).toEqual(['intro', '# A\n\nalpha\n\n```\n# not a heading\n```', '## B\n\nbeta one\n\nbeta two']);
    const level1 = new MarkdownChunker({ splitOnHeadings: 1 }).chunk(doc(md));
    expect(level1).toHaveLength(2);
    const small = new MarkdownChunker({ splitOnHeadings: true, chunkSize: 16 }).chunk(doc('## B\n\nbeta one\n\nbeta two')).map((c) => c.content);
    expect(small).toEqual(['## B\n\nbeta one', '## B\n\nbeta two']);
  });

  it('RowChunker makes one chunk per non-empty row with row_number', () => {
    const chunks = new RowChunker().chunk(doc('h1, h2\n\na,  b\nc, d'));
    expect(chunks.map((c) => [c.id, c.content, c.meta_data.row_number])).toEqual([
      ['doc_row_1', 'h1, h2', 1],
      ['doc_row_3', 'a, b', 3],
      ['doc_row_4', 'c, d', 4],
    ]);
    expect(new RowChunker({ skipHeader: true }).chunk(doc('h\nx')).map((c) => c.meta_data.row_number)).toEqual([2]);
  });

  it('the registry builds chunkers by key and reports the spec defaults', () => {
    expect(createChunker('RecursiveChunker', { chunkSize: 10 })).toBeInstanceOf(RecursiveChunker);
    expect(CHUNKERS.FixedSizeChunker.metadata).toEqual({ chunk_size: 5000, chunk_overlap: 0 });
    expect(CHUNKERS.RowChunker.metadata).toEqual({});
    expect(CHUNKERS.CodeChunker.metadata).toEqual({ chunk_size: 2048 });
    expect(CHUNKERS.AgenticChunker.metadata).toEqual({ chunk_size: 5000 });
    expect(CHUNKERS.SemanticChunker.metadata).toEqual({ chunk_size: 5000 });
    expect(Object.keys(CHUNKERS).sort()).toEqual(['AgenticChunker', 'CodeChunker', 'DocumentChunker', 'FixedSizeChunker', 'MarkdownChunker', 'RecursiveChunker', 'RowChunker', 'SemanticChunker']);
    let error: unknown;
    try {
      createChunker('NoSuchChunker');
    } catch (e) {
      error = e;
    }
    expect(RuntimeError.isInstance(error) && error.code).toBe('BAD_REQUEST');
  });
});
