import { describe, expect, it } from 'vitest';
import { arxivErrorFeed, arxivFeed, PAPERS } from '../../../../../test/support/source-fixtures.js';
import { idsIn } from '../preprint.js';
import { ARXIV_ID, arxivIdOf, parseArxivFeed, toSearchQuery } from './arxiv.js';

describe('parseArxivFeed', () => {
  it('reads each entry: id and version, whitespace-collapsed title and abstract, authors, dates, links, categories', () => {
    const feed = parseArxivFeed(arxivFeed('search_query=all:tidal', PAPERS));
    expect(feed.totalResults).toBe(2);
    expect(feed.error).toBeUndefined();
    expect(feed.papers[0]).toEqual({
      id: '2401.01234',
      version: 'v2',
      title: 'Tidal Memory: Retrieval for Long-Running Agents',
      summary:
        'We study how an agent that runs for weeks keeps what it learned. Our method stores observations as passages and retrieves them by a blend of keyword and vector scores, and we show that a periwinkle index over tide tables halves the recall error.',
      authors: ['Ada Lindqvist', 'Bram Okafor'],
      published: '2024-01-03T17:52:34Z',
      updated: '2024-02-11T09:01:02Z',
      absUrl: 'http://arxiv.org/abs/2401.01234v2',
      pdfUrl: 'http://arxiv.org/pdf/2401.01234v2',
      primaryCategory: 'cs.IR',
      categories: ['cs.IR', 'cs.AI'],
      doi: undefined,
      comment: '12 pages. v2: fixed typos',
      journalRef: undefined,
    });
    expect(feed.papers[1]).toMatchObject({ id: '2312.04567', version: 'v1', authors: ['Chen Wu'], categories: ['cs.CL'] });
  });

  it('reads an empty feed and the error entry arXiv answers a bad query with', () => {
    expect(parseArxivFeed(arxivFeed('search_query=all:nothing', []))).toEqual({ totalResults: 0, papers: [], error: undefined });
    const refused = parseArxivFeed(arxivErrorFeed('12345'));
    expect(refused.papers).toEqual([]);
    expect(refused.error).toBe('incorrect id format for 12345');
    expect(() => parseArxivFeed('<html><body>Rate limited</body></html>')).toThrow('not an Atom feed');
  });
});

describe('arXiv ids and queries', () => {
  it('knows new and old style ids, with or without version', () => {
    for (const id of ['2401.01234', '2401.01234v3', '0704.0001', 'hep-th/9901001', 'math.GT/0309136v2']) expect(ARXIV_ID.test(id), id).toBe(true);
    for (const id of ['2401.1', '12345', 'hep-th/99', 'https://arxiv.org/abs/2401.01234']) expect(ARXIV_ID.test(id), id).toBe(false);
    expect(arxivIdOf('http://arxiv.org/abs/hep-th/9901001v1')).toEqual({ id: 'hep-th/9901001', version: 'v1' });
    expect(arxivIdOf('https://arxiv.org/abs/2401.01234')).toEqual({ id: '2401.01234', version: '' });
  });

  it('reads a topic of ids as a lookup, anything else as a search', () => {
    expect(idsIn('2401.01234, 2312.04567v1')).toEqual(['2401.01234', '2312.04567v1']);
    expect(idsIn('arXiv:2401.01234')).toEqual(['2401.01234']);
    expect(idsIn('retrieval 2401.01234')).toBeUndefined();
    expect(toSearchQuery('tidal  memory agents')).toBe('all:tidal AND all:memory AND all:agents');
    expect(toSearchQuery('ti:"tidal memory" AND au:Lindqvist')).toBe('ti:"tidal memory" AND au:Lindqvist');
    expect(toSearchQuery('what (is) "rag"?')).toBe('all:what AND all:is AND all:rag?');
  });
});
