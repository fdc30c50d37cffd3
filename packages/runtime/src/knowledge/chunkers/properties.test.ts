/**
 * Property tests for every chunker (fast-check). For random inputs and options each chunker
 * must give:
 *
 *  - size: no chunk longer than chunk_size, plus chunk_overlap for the strategies that
 *    prepend an overlap (Document, Markdown); RowChunker has no size;
 *  - no empty chunk: every chunk has a non-whitespace character;
 *  - coverage in order: with every whitespace character removed from the input and from each
 *    chunk, the chunks laid end to end reproduce the input, where each chunk may start up to
 *    chunk_overlap characters before the previous one ended (the overlap) and, in
 *    MarkdownChunker's heading mode, may repeat its section's heading line. Whitespace is
 *    the only thing any chunker may change: FixedSize, Recursive, Document and Row collapse it,
 *    the others trim it at chunk edges;
 *  - determinism: the same input and options give the same chunks;
 *  - unique chunk ids.
 *
 * Semantic and agentic chunking use a deterministic in-process embedder and model; the model
 * answers a mix of good offsets, out-of-range numbers, prose and garbage.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hashEmbedding } from '../../../test/support/fake-embeddings.js';
import type { Model, ModelRequest, ModelResponse } from '../../model/model.js';
import type { Embedder } from '../../model/embedder.js';
import type { Chunk, Document } from '../types.js';
import { AgenticChunker } from './agentic.js';
import type { ChunkContext } from './chunker.js';
import type { Chunker } from './list.js';
import { CodeChunker } from './code.js';
import { DocumentChunker } from './document.js';
import { FixedSizeChunker } from './fixed-size.js';
import { MarkdownChunker } from './markdown.js';
import { RecursiveChunker } from './recursive.js';
import { RowChunker } from './row.js';
import { SemanticChunker } from './semantic.js';

// PROPERTY_RUNS raises both counts for a longer search (e.g. PROPERTY_RUNS=5000).
const RUNS = Number(process.env.PROPERTY_RUNS ?? 150);
const ASYNC_RUNS = Number(process.env.PROPERTY_RUNS ?? 100);

const strip = (s: string) => s.replaceAll(/\s/g, '');

/**
 * True when the chunks, whitespace removed, tile the input (whitespace removed) in order, each
 * starting at most `overlap` characters before the end of the previous one. `variants` gives
 * the other forms a chunk may take (a repeated heading dropped). The positions a chunk can end
 * at are tracked as a set, so an ambiguous match (repeated text) cannot mislead the check.
 */
function covers(input: string, chunks: readonly Chunk[], overlap: number, variants: (content: string) => string[] = () => []): boolean {
  const whole = strip(input);
  let ends = new Set([0]);
  for (const chunk of chunks) {
    const next = new Set<number>();
    for (const form of new Set([chunk.content, ...variants(chunk.content)].map(strip))) {
      for (const end of ends) {
        for (let back = 0; back <= overlap && back <= end; back++) {
          if (whole.startsWith(form, end - back)) next.add(end - back + form.length);
        }
      }
    }
    if (next.size === 0) return false;
    ends = next;
  }
  return ends.has(whole.length);
}

interface Expectation {
  /** Largest allowed chunk; undefined for no limit. */
  maxSize: number | undefined;
  overlap: number;
  variants?: (content: string) => string[];
}

async function check(make: () => Chunker, doc: Document, expectation: Expectation, context: ChunkContext = {}): Promise<void> {
  const chunks = await make().chunk(doc, context);
  for (const chunk of chunks) {
    expect(chunk.content.trim(), 'empty chunk').not.toBe('');
    expect(chunk.content.length, `chunk over ${expectation.maxSize}: ${JSON.stringify(chunk.content)}`).toBeLessThanOrEqual(expectation.maxSize ?? Infinity);
  }
  expect(covers(doc.content, chunks, expectation.overlap, expectation.variants), `coverage of ${JSON.stringify(doc.content)} by ${JSON.stringify(chunks.map((c) => c.content))}`).toBe(true);
  expect(new Set(chunks.map((c) => c.id)).size, 'unique ids').toBe(chunks.length);
  expect(await make().chunk(structuredClone(doc), context), 'deterministic').toEqual(chunks);
}

// Text built from pieces that exercise the chunkers' break rules: words, sentence ends,
// paragraphs, headings, fences, tabs, non-ASCII and long unbreakable words.
const token = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom('alpha', 'beta', 'gamma', 'x', 'Dr.', 'end.', 'why?', 'stop!', 'é', 'naïve', '😀', 'supercalifragilistic') },
  { weight: 5, arbitrary: fc.constantFrom(' ', ' ', '  ', '. ', '! ', '? ', '\n', '\n\n', '\t', ' \n \n') },
  { weight: 1, arbitrary: fc.constantFrom('# ', '## ', '\n# Title\n\n', '\n## Part\n', '```\n', ',', '-') },
  { weight: 1, arbitrary: fc.string({ maxLength: 8 }) },
  // Long runs with no line break or period, where windows cannot end at a break.
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 40 }).map((n) => 'word '.repeat(n)) },
);
const anyText = fc.array(token, { maxLength: 120 }).map((parts) => parts.join(''));
const name = fc.option(fc.constantFrom('doc', 'a b'), { nil: undefined });
const documentOf = (content: string, docName: string | undefined): Document => ({ content, name: docName, id: docName, meta_data: { source: 'p' } });
// Sizes up to 200 so that overlaps and RecursiveChunker's tenth-of-the-size steps get large.
const sizeAndOverlap = fc.integer({ min: 1, max: 200 }).chain((size) => fc.tuple(fc.constant(size), fc.integer({ min: 0, max: size - 1 })));

// A heading line and the blank line after it (after an overlap it need not start a line).
const HEADING_LINE = /#{1,6}[^\S\n]+\S[^\n]*\n\n/;

const chunks = (...contents: string[]): Chunk[] => contents.map((content, i) => ({ content, id: `c${i}`, meta_data: {} }));

describe('the coverage check', () => {
  it('accepts a tiling and overlaps within the allowance, and nothing else', () => {
    expect(covers('ab cd\nef', chunks('ab', 'c d', 'ef'), 0)).toBe(true);
    expect(covers('abcdef', chunks('abcd', 'cdef'), 2)).toBe(true);
    expect(covers('abcdef', chunks('abcd', 'cdef'), 1)).toBe(false);
    expect(covers('abcdef', chunks('ab', 'def'), 0)).toBe(false);
    expect(covers('abcdef', chunks('cd', 'ab', 'ef'), 0)).toBe(false);
    expect(covers('abcdef', chunks('abc', 'de'), 0)).toBe(false);
    expect(covers('aaaa', chunks('aa', 'aa'), 1)).toBe(true);
  });
});

describe('chunker properties', () => {
  it('FixedSizeChunker', async () => {
    await expect(
      fc.assert(
        fc.asyncProperty(anyText, name, sizeAndOverlap, async (content, docName, [chunkSize, overlap]) => {
          await check(() => new FixedSizeChunker({ chunkSize, overlap }), documentOf(content, docName), { maxSize: chunkSize, overlap });
        }),
        { numRuns: RUNS },
      ),
    ).resolves.toBeUndefined();
  });

  it('RecursiveChunker', async () => {
    await expect(
      fc.assert(
        fc.asyncProperty(anyText, name, sizeAndOverlap, async (content, docName, [chunkSize, overlap]) => {
          await check(() => new RecursiveChunker({ chunkSize, overlap }), documentOf(content, docName), { maxSize: chunkSize, overlap });
        }),
        { numRuns: RUNS },
      ),
    ).resolves.toBeUndefined();
  });

  it('DocumentChunker', async () => {
    await expect(
      fc.assert(
        fc.asyncProperty(anyText, name, sizeAndOverlap, async (content, docName, [chunkSize, overlap]) => {
          await check(() => new DocumentChunker({ chunkSize, overlap }), documentOf(content, docName), { maxSize: chunkSize + overlap, overlap });
        }),
        { numRuns: RUNS },
      ),
    ).resolves.toBeUndefined();
  });

  it('MarkdownChunker, by size and by headings', async () => {
    const headings = fc.constantFrom<boolean | number>(false, true, 1, 2);
    await expect(
      fc.assert(
        fc.asyncProperty(anyText, name, sizeAndOverlap, headings, async (content, docName, [chunkSize, overlap], splitOnHeadings) => {
          // In heading mode a split section repeats its heading line on each piece.
          const variants = (chunk: string) => (splitOnHeadings === false ? [] : [chunk.replace(HEADING_LINE, '')]);
          await check(() => new MarkdownChunker({ chunkSize, overlap, splitOnHeadings }), documentOf(content, docName), { maxSize: chunkSize + overlap, overlap, variants });
        }),
        { numRuns: RUNS },
      ),
    ).resolves.toBeUndefined();
  });

  it('RowChunker', async () => {
    await expect(
      fc.assert(
        fc.asyncProperty(anyText, name, async (content, docName) => {
          await check(() => new RowChunker(), documentOf(content, docName), { maxSize: undefined, overlap: 0 });
        }),
        { numRuns: RUNS },
      ),
    ).resolves.toBeUndefined();
  });

  // Source-like text: definitions in several languages, comments, blank lines, long literals
  // and random characters (so some inputs do not parse).
  const codeLine = fc.oneof(
    fc.nat(99).map((i) => `def f${i}(a, b):\n    if a:\n        return b * ${i}\n    return a\n`),
    fc.nat(99).map((i) => `class C${i}:\n    def m(self):\n        return ${i}\n\n    def n(self):\n        pass\n`),
    fc.nat(99).map((i) => `export function g${i}(x: number): number {\n  const y = x + ${i};\n  return y;\n}\n`),
    fc.nat(99).map((i) => `func H${i}(x int) int {\n\treturn x * ${i}\n}\n`),
    fc.constantFrom('# a comment\n', '// a comment\n', '\n', '\n\n', '    \n', 'x = [1, 2, 3]\n', `s = "${'long '.repeat(30)}"\n`, '}\n', '((\n'),
    fc.string({ maxLength: 20 }),
  );
  const code = fc.array(codeLine, { maxLength: 25 }).map((lines) => lines.join(''));

  it('CodeChunker', async () => {
    const files = fc.constantFrom('m.py', 'm.ts', 'm.go', 'm.rs', 'm.java', 'm.js', 'm.tsx', 'notes.txt');
    await expect(
      fc.assert(
        fc.asyncProperty(code, name, files, fc.integer({ min: 1, max: 300 }), async (content, docName, file, chunkSize) => {
          await check(() => new CodeChunker({ chunkSize }), documentOf(content, docName), { maxSize: chunkSize, overlap: 0 }, { sourceName: file });
          // Line ranges hold the chunk.
          const lines = content.split('\n');
          for (const chunk of await new CodeChunker({ chunkSize }).chunk(documentOf(content, docName), { sourceName: file })) {
            const { start_line: start, end_line: end } = chunk.meta_data as { start_line: number; end_line: number };
            expect(start).toBeLessThanOrEqual(end);
            expect(lines.slice(start - 1, end).join('\n')).toContain(chunk.content);
          }
        }),
        { numRuns: ASYNC_RUNS },
      ),
    ).resolves.toBeUndefined();
  });

  // Vectors from the fake embeddings server's hashing, so similar sentences are close.
  const embedder: Embedder = { id: 'test:hash', provider: 'test', model: 'hash', embed: async (texts) => texts.map((t) => hashEmbedding(t, 64)) };
  const sentence = fc.oneof(
    fc.constantFrom('Cats purr when the cat is calm. ', 'A cat sleeps all day! ', 'The database stores rows in tables. ', 'An index finds table rows? ', 'Rain falls on the hills.\n', 'Wind moves the clouds.\n\n'),
    token,
  );
  const prose = fc.array(sentence, { maxLength: 80 }).map((parts) => parts.join(''));

  it('SemanticChunker', async () => {
    const options = fc.record({
      chunkSize: fc.integer({ min: 1, max: 400 }),
      similarityThreshold: fc.double({ min: -1, max: 1, noNaN: true }),
      similarityWindow: fc.integer({ min: 1, max: 4 }),
      minSentencesPerChunk: fc.integer({ min: 1, max: 3 }),
      minCharactersPerSentence: fc.integer({ min: 0, max: 40 }),
    });
    await expect(
      fc.assert(
        fc.asyncProperty(prose, name, options, async (content, docName, opts) => {
          await check(() => new SemanticChunker(opts), documentOf(content, docName), { maxSize: opts.chunkSize, overlap: 0 }, { embedder });
        }),
        { numRuns: ASYNC_RUNS },
      ),
    ).resolves.toBeUndefined();
  });

  it('AgenticChunker', async () => {
    await expect(
      fc.assert(
        fc.asyncProperty(prose, name, fc.integer({ min: 1, max: 300 }), async (content, docName, chunkSize) => {
          await check(() => new AgenticChunker({ chunkSize }), documentOf(content, docName), { maxSize: chunkSize, overlap: 0 }, { model: scriptedModel() });
        }),
        { numRuns: ASYNC_RUNS },
      ),
    ).resolves.toBeUndefined();
  });
});

function fnv(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return h;
}

/**
 * A model's answer that depends only on the prompt: good offsets, offsets out of range (below
 * 1, past the window), offsets in prose, an empty answer or garbage, chosen by a hash.
 */
function scriptedAnswer(request: ModelRequest): string {
  const prompt = request.messages.at(-1)?.content ?? '';
  const length = Number(/is (\d+) characters long/.exec(prompt)?.[1] ?? 100);
  const h = fnv(prompt);
  const pick = (k: number) => (Math.imul(h, k + 1) >>> 0) % (length + 20);
  switch (h % 6) {
    case 0:
      return JSON.stringify([pick(1), pick(2), pick(3)].sort((a, b) => a - b));
    case 1:
      return `[${-pick(1)}, ${length * 3}]`;
    case 2:
      return `I would break at ${pick(1)} and maybe ${pick(2)}.`;
    case 3:
      return '';
    case 4:
      return 'no numbers here at all';
    default:
      return `[${pick(1)}.5, "x", ${length}]`;
  }
}

async function generate(request: ModelRequest): Promise<ModelResponse> {
  return { text: scriptedAnswer(request), toolCalls: [], finishReason: 'stop', usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 } };
}

function scriptedModel(): Model {
  return {
    provider: 'test',
    id: 'scripted',
    generate,
    async *stream(request) {
      const response = await generate(request);
      yield { type: 'text-delta', text: response.text };
      yield { type: 'finish', reason: 'stop', usage: response.usage };
    },
  };
}
