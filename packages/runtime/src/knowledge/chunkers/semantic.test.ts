import { describe, expect, it } from 'vitest';
import { hashEmbedding } from '../../../test/support/fake-embeddings.js';
import { RuntimeError } from '../../errors.js';
import type { Embedder } from '../../model/embedder.js';
import type { Document } from '../types.js';
import { createChunker } from './registry.js';
import { interpolatedMinima, savgol, savgolWeights } from './savitzky-golay.js';
import { SemanticChunker } from './semantic.js';
import { capSpans, delimiterBreaks, packSpans, paragraphBreaks, sentenceSpans, splitSpan } from './spans.js';

/** An in-process embedder with the fake server's feature-hashed vectors; counts its calls. */
export function hashEmbedder(): Embedder & { calls: string[][] } {
  const calls: string[][] = [];
  return {
    id: 'test:hash',
    provider: 'test',
    model: 'hash',
    calls,
    embed: async (texts) => {
      calls.push([...texts]);
      return texts.map((t) => hashEmbedding(t, 256));
    },
  };
}

const doc = (content: string): Document => ({ content, name: 'notes', id: 'notes', meta_data: { source: 't' } });

const CATS = [
  'Cats purr; a cat purrs when the cat is calm.',
  'A cat grooms cat fur, as cats and kittens do.',
  'Cats hunt mice; a hungry cat hunts more mice.',
  'Kittens watch the mother cat and copy the cat.',
  'A cat sleeps; cats and kittens sleep all day.',
  'Cats scratch posts; a cat needs a cat post.',
  'Kittens play; cats and kittens chase a cat toy.',
];
// Sentences that share words within a topic, so the fake's feature-hashed vectors tell topics apart.
const DATABASES = [
  'The database stores table rows; database rows live in tables.',
  'A database index finds table rows without a full table scan.',
  'Database transactions commit table rows to the database.',
  'Vacuum cleans dead table rows from the database tables.',
  'The database query planner picks a table scan or an index.',
  'Database replicas copy the table rows of the database.',
  'Database pools reuse connections to the database tables.',
];

describe('sentence and span helpers', () => {
  it('splits after ". ", "! ", "? " and line breaks, keeping the delimiter, covering the text', () => {
    expect(delimiterBreaks('One. Two! Three? Four\nFive')).toEqual([5, 10, 17, 22]);
    const text = 'Short. Another short one. This sentence is long enough on its own. End.';
    const spans = sentenceSpans(text, 24);
    expect(spans.map((s) => text.slice(s.start, s.end))).toEqual(['Short. Another short one. ', 'This sentence is long enough on its own. End.']);
    expect(sentenceSpans('tiny', 24)).toEqual([{ start: 0, end: 4 }]);
    expect(sentenceSpans('', 24)).toEqual([]);
  });

  it('finds paragraph starts and cuts spans at blank lines, line breaks, spaces, then hard', () => {
    expect(paragraphBreaks('a\n\nb\n \n\nc')).toEqual([3, 8]);
    const text = 'aaaa bbbb\ncccc dddd eeee';
    expect(splitSpan(text, 0, text.length, 12).map((s) => text.slice(s.start, s.end))).toEqual(['aaaa bbbb\n', 'cccc dddd ', 'eeee']);
    expect(splitSpan('abcdefgh', 0, 8, 3).map((s) => 'abcdefgh'.slice(s.start, s.end))).toEqual(['abc', 'def', 'gh']);
    // A surrogate pair is never cut in half.
    expect(splitSpan('ab😀cd', 0, 6, 3).map((s) => 'ab😀cd'.slice(s.start, s.end))).toEqual(['ab', '😀c', 'd']);
    expect(packSpans(capSpans('0123456789', [{ start: 0, end: 2 }, { start: 2, end: 9 }, { start: 9, end: 10 }], 4), 4)).toEqual([
      { start: 0, end: 2 },
      { start: 2, end: 6 },
      { start: 6, end: 10 },
    ]);
  });
});

const round = (xs: number[]) => xs.map((x) => Math.round(x * 1e9) / 1e9);

describe('Savitzky–Golay', () => {
  it('has the classical 5-point cubic smoothing and slope weights', () => {
    expect(round(savgolWeights(5, 3, 0, 0))).toEqual(round([-3, 12, 17, 12, -3].map((x) => x / 35)));
    expect(round(savgolWeights(5, 3, 0, 1))).toEqual(round([1, -8, 0, 8, -1].map((x) => x / 12)));
  });

  it('reproduces a cubic exactly, edges included, and finds the minimum of a parabola', () => {
    const cubic = Array.from({ length: 9 }, (_, i) => 0.5 * i ** 3 - 2 * i ** 2 + i - 3);
    savgol(cubic, 5, 3).forEach((y, i) => expect(y).toBeCloseTo(cubic[i]!, 9));
    savgol(cubic, 5, 3, 1).forEach((d, i) => expect(d).toBeCloseTo(1.5 * i ** 2 - 4 * i + 1, 9));
    const parabola = Array.from({ length: 9 }, (_, i) => (i - 3.5) ** 2);
    const minima = interpolatedMinima(savgol(parabola, 5, 3), savgol(parabola, 5, 3, 1));
    expect(minima).toHaveLength(1);
    expect(minima[0]!.at).toBeCloseTo(3.5, 9);
    expect(savgol([1, 2], 5, 3)).toEqual([1, 2]);
  });
});

describe('SemanticChunker', () => {
  it('refuses to run without an embedder, naming it', async () => {
    let error: unknown;
    try {
      await new SemanticChunker().chunk(doc('Some text.'), {});
    } catch (e) {
      error = e;
    }
    expect(RuntimeError.isInstance(error) && error.code).toBe('BAD_REQUEST');
    expect((error as Error).message).toMatch(/SemanticChunker needs an embedder/);
  });

  it('breaks where the topic changes, with the knowledge base embedder from the context', async () => {
    const embedder = hashEmbedder();
    const text = [...CATS, ...DATABASES].join(' ');
    const chunks = await new SemanticChunker().chunk(doc(text), { embedder });
        expect(chunks.map((c) => c.content)).toEqual([CATS.join(' '), DATABASES.join(' ')]);
    expect(chunks.map((c) => c.content).join(' ')).toBe(text);
    expect(chunks[0]!.meta_data).toEqual({ source: 't', chunk: 1, chunk_size: chunks[0]!.content.length });
    // Windows and next sentences were embedded in one call, each distinct text once.
    expect(embedder.calls).toHaveLength(1);
    expect(new Set(embedder.calls[0]).size).toBe(embedder.calls[0]!.length);
  });

  it('makes no embedder call when there are too few sentences to smooth', async () => {
    const embedder = hashEmbedder();
    const chunks = await new SemanticChunker().chunk(doc(CATS.slice(0, 5).join(' ')), { embedder });
    expect(chunks).toHaveLength(1);
    expect(embedder.calls).toEqual([]);
  });

  it('enforces chunk_size as a hard maximum by re-splitting', async () => {
    const embedder = hashEmbedder();
    const text = `${CATS.join(' ')} ${'x'.repeat(130)} ${CATS.join('\n')}`;
    const chunks = await new SemanticChunker({ chunkSize: 100, embedder }).chunk(doc(text), {});
    expect(chunks.every((c) => c.content.length <= 100 && c.content.trim() === c.content)).toBe(true);
    expect(chunks.map((c) => c.content).join('').replaceAll(/\s/g, '')).toBe(text.replaceAll(/\s/g, ''));
  });

  it('passes the signal to the embedder, drops a given overlap and validates its options', async () => {
    let seen: AbortSignal | undefined;
    const embedder: Embedder = { id: 't', provider: 't', model: 't', embed: async (texts, signal) => ((seen = signal), texts.map((t) => hashEmbedding(t, 32))) };
    const signal = new AbortController().signal;
    await new SemanticChunker().chunk(doc([...CATS, ...DATABASES].join(' ')), { embedder, signal });
    expect(seen).toBe(signal);
    expect((createChunker('SemanticChunker', { chunkSize: 300, overlap: 20 }) as SemanticChunker).chunkSize).toBe(300);
    expect(() => new SemanticChunker({ filterWindow: 4 })).toThrow(/odd/);
    expect(() => new SemanticChunker({ similarityWindow: 0 })).toThrow(/similarityWindow/);
  });
});
