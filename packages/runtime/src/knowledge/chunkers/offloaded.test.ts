/**
 * Chunking in the worker pool must give exactly what the chunker gives on the main thread:
 * for random documents and settings of every text-only chunker (fast-check), the chunks a
 * worker returns equal the inline chunks field by field. Also: which chunkers may go to a
 * worker, that small documents stay inline, and that a Knowledge stores the same chunks either way.
 */
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { CodeChunker } from './code.js';
import type { Chunker } from './list.js';
import { DocumentChunker } from './document.js';
import { FixedSizeChunker } from './fixed-size.js';
import { MarkdownChunker } from './markdown.js';
import { RecursiveChunker } from './recursive.js';
import { RowChunker } from './row.js';
import { SemanticChunker } from './semantic.js';
import { Knowledge } from '../knowledge.js';
import type { Document } from '../types.js';
import { SqliteVectorStore } from '../vector-stores/sqlite/store.js';
import { OFFLOAD_MIN_CHARS, chunkInWorker, chunkOffloaded, chunkerFromSpec, chunkerSpec, packChunks, unpackChunks } from './offloaded.js';
import { WorkerPool } from '../../workers/pool.js';

const RUNS = Number(process.env.PROPERTY_RUNS ?? 60);
const pool = new WorkerPool({ size: 1 });
afterAll(() => pool.close());

const token = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom('alpha', 'beta', 'gamma', 'x', 'Dr.', 'end.', 'why?', 'é', 'naïve', '😀', 'def f(a):', 'return a', 'class K:', '{', '}', 'a,b,c') },
  { weight: 5, arbitrary: fc.constantFrom(' ', '  ', '. ', '\n', '\n\n', '\t', '\r\n', '    ') },
  { weight: 1, arbitrary: fc.constantFrom('# ', '## ', '\n# Title\n\n', '\n## Part\n', '```\n') },
  { weight: 1, arbitrary: fc.string({ maxLength: 8 }) },
);
const text = fc.array(token, { maxLength: 150 }).map((parts) => parts.join(''));
const arbitraryDoc = fc.record({
  content: text,
  name: fc.option(fc.constantFrom('doc', 'app.py', 'x y'), { nil: undefined }),
  id: fc.option(fc.constantFrom('d1', 'page'), { nil: undefined }),
  meta_data: fc.dictionary(fc.constantFrom('lang', 'year', 'tags'), fc.oneof(fc.string({ maxLength: 5 }), fc.integer(), fc.boolean(), fc.constant(null))),
}) as fc.Arbitrary<Document>;
const sized = fc.integer({ min: 1, max: 300 }).chain((chunkSize) => fc.record({ chunkSize: fc.constant(chunkSize), overlap: fc.integer({ min: 0, max: chunkSize - 1 }) }));

const chunkers: fc.Arbitrary<Chunker> = fc.oneof(
  sized.map((o) => new FixedSizeChunker(o)),
  sized.map((o) => new RecursiveChunker(o)),
  sized.map((o) => new DocumentChunker(o)),
  fc.tuple(sized, fc.oneof(fc.boolean(), fc.integer({ min: 1, max: 6 }))).map(([o, splitOnHeadings]) => new MarkdownChunker({ ...o, splitOnHeadings })),
  fc.record({ skipHeader: fc.boolean(), cleanRows: fc.boolean() }).map((o) => new RowChunker(o)),
  fc.record({ chunkSize: fc.integer({ min: 20, max: 400 }), language: fc.constantFrom(undefined, 'python', 'javascript') }).map(
    ({ chunkSize, language }) => new CodeChunker({ chunkSize, ...(language ? { language } : {}) }),
  ),
);

describe('chunking in a worker', () => {
  it('gives exactly the inline chunks for every text-only chunker', async () => {
    await fc.assert(
      fc.asyncProperty(chunkers, arbitraryDoc, fc.constantFrom(undefined, 'app.py', 'notes.md'), async (chunker, document, sourceName) => {
        const spec = chunkerSpec(chunker);
        expect(spec).toBeDefined();
        const inline = await chunker.chunk(structuredClone(document), { sourceName });
        const pooled = await chunkInWorker(pool, spec!, document, { sourceName });
        expect(pooled).toStrictEqual(inline);
      }),
      { numRuns: RUNS },
    );
  }, 120_000);

  it('packs chunks for the trip back and rebuilds them exactly, metadata values of the document included', async () => {
    const when = new Date(0);
    const nested = { a: [1, 2] };
    const doc: Document = { content: 'One. Two. Three. Four.', name: 'n', id: 'd', meta_data: { when, nested, chunk: 'mine', caf\u00e9: '\ud83d' } };
    const chunks = new RecursiveChunker({ chunkSize: 8 }).chunk(doc);
    const packed = packChunks(doc, chunks);
    expect(Array.isArray(packed)).toBe(false);
    const back = await unpackChunks(doc, structuredClone(packed) as Exclude<typeof packed, unknown[]>);
    expect(back).toStrictEqual(chunks);
    // The document's own values, not copies: as an inline chunker would have shared them.
    expect(back[0]!.meta_data.when).toBe(when);
    expect(back[1]!.meta_data.nested).toBe(nested);
    expect(back.map((c) => Object.keys(c.meta_data))).toEqual(chunks.map((c) => Object.keys(c.meta_data)));
    // Chunks of another shape go back as they are.
    const odd = chunks.map((c) => ({ ...c, meta_data: { ...c.meta_data, extra: new Date(1) } }));
    expect(packChunks(doc, odd)).toStrictEqual(odd);
    expect(packChunks(doc, [{ ...chunks[0]!, name: 'other' }])).toStrictEqual([{ ...chunks[0]!, name: 'other' }]);
  });

  it('rebuilds each chunker with the same settings', () => {
    const md = new MarkdownChunker({ chunkSize: 50, overlap: 5, splitOnHeadings: 2 });
    expect(chunkerFromSpec(chunkerSpec(md)!)).toEqual(md);
    const row = new RowChunker({ skipHeader: true, cleanRows: false });
    expect(chunkerFromSpec(chunkerSpec(row)!)).toEqual(row);
    const code = new CodeChunker({ chunkSize: 99, language: 'go', maxParseChars: 1000 });
    expect(chunkerFromSpec(chunkerSpec(code)!)).toEqual(code);
  });

  it('keeps chunkers that call an embedder or model, and subclasses, on the main thread', () => {
    expect(chunkerSpec(new SemanticChunker())).toBeUndefined();
    class Custom extends FixedSizeChunker {}
    expect(chunkerSpec(new Custom())).toBeUndefined();
  });

  it('sends large documents to the pool and keeps small ones inline, with the same chunks', async () => {
    const chunker = new RecursiveChunker({ chunkSize: 100 });
    const big: Document = { content: 'Sentence number one. '.repeat(Math.ceil(OFFLOAD_MIN_CHARS / 20) + 10), name: 'big', meta_data: { k: 1 } };
    const small: Document = { ...big, content: big.content.slice(0, 2000) };
    const result = chunkOffloaded(pool, chunker, big);
    expect(result).toBeInstanceOf(Promise);
    expect(await result).toStrictEqual(chunker.chunk(big));
    expect(Array.isArray(chunkOffloaded(pool, chunker, small))).toBe(true);
    expect(Array.isArray(chunkOffloaded('inline', chunker, big))).toBe(true);
  });

  it('lets a Knowledge store a document of 200k chunks chunked in a worker, the same as inline', async () => {
    // 2 MB of words in 10-character windows: more chunks than a spread call can pass as arguments.
    const words = 'alpha beta gamma delta '.repeat(90_000);
    const inline = new FixedSizeChunker({ chunkSize: 10 }).chunk({ content: words, name: 'many', meta_data: {} });
    expect(inline.length).toBeGreaterThan(150_000);
    const store = new SqliteVectorStore({ path: ':memory:' });
    try {
      // 360k chunks, past the default KNOWLEDGE_MAX_CHUNKS (250k): this is about the pool, not the budget.
      const knowledge = new Knowledge({ id: 'many', store, offload: pool, limits: { maxChunks: 400_000 } });
      const result = await knowledge.insert({ text: words, name: 'many', chunker: 'FixedSizeChunker', chunkSize: 10 });
      expect(result.chunks).toBe(inline.length);
      const hits = await knowledge.search('gamma', { limit: 3 });
      expect(hits).toHaveLength(3);
    } finally {
      await store.close();
    }
  }, 60_000);
});
