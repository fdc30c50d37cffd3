/**
 * @module knowledge/ingest/chunk-parts.test
 * Chunking read documents in the pool gives the chunks the main thread would make (many small
 * documents in batches, a paged source joined and stamped in the worker, one large document),
 * and the chunk budget is refused before chunking when the chunker must make too many, and
 * after when it did, with messages naming the limit and its variable.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { RuntimeError } from '../../errors.js';
import { WorkerPool } from '../../workers/pool.js';
import { createChunker } from '../chunkers/registry.js';
import { chunkerSpec } from '../chunkers/offloaded.js';
import { chunkBudget, type ChunkBudget } from '../limits.js';
import type { Document } from '../types.js';
import { BATCH_DOCUMENTS, atLeast, chunkHere, chunkParts } from './chunk-parts.js';

const pool = new WorkerPool({ size: 1 });
afterAll(() => pool.close());

const budget = (maxChunks = 1_000_000, maxCharacters = 100_000_000): ChunkBudget => chunkBudget({ maxChunks, maxCharacters });
const job = { name: 'content', metadata: { area: 'test', tags: ['a'] } };

async function refusal(p: Promise<unknown>): Promise<RuntimeError> {
  const error = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!RuntimeError.isInstance(error)) throw new Error(`expected a RuntimeError, got ${String(error)}`);
  return error;
}

const spec = (type: Parameters<typeof createChunker>[0], size?: number) => chunkerSpec(createChunker(type, size !== undefined ? { chunkSize: size } : {}));

describe('chunkParts', () => {
  it('chunks many small documents in batches in the pool, as the main thread would', async () => {
    const docs: Document[] = Array.from({ length: BATCH_DOCUMENTS * 2 + 17 }, (_, i) => ({ content: JSON.stringify({ id: i, text: `item ${i} `.repeat(i % 7) }), name: 'items', id: `items_${i + 1}`, meta_data: { page: i + 1 } }));
    const chunker = createChunker('FixedSizeChunker', { chunkSize: 40 });
    const inline = await chunkHere(docs, chunker, job, {}, budget());
    const spent = budget();
    const pooled = await chunkParts(pool, docs, chunker, job, {}, spent);
    expect(pooled).toStrictEqual(inline);
    expect(spent.chunks).toBe(inline.length);
    expect(spent.characters).toBe(inline.reduce((n, c) => n + c.content.length, 0));
  });

  it('joins, chunks and stamps a paged source in the pool, as the main thread would', async () => {
    // A deck listing one slide a thousand times.
    const slides: Document[] = Array.from({ length: 1000 }, (_, i) => ({ content: `Slide ${i + 1}: The same slide\n\nListed again and again.\n\nSpeaker notes:\nNotes.`, name: 'deck', id: `deck_${i + 1}`, meta_data: { slide: i + 1 } }));
    for (const chunker of [createChunker('DocumentChunker', { chunkSize: 500 }), createChunker('FixedSizeChunker', { chunkSize: 120, overlap: 20 })]) {
      const paged = { ...job, pagedBy: 'slide' };
      const inline = await chunkHere(slides, chunker, paged, {}, budget());
      const pooled = await chunkParts(pool, slides, chunker, paged, {}, budget());
      expect(pooled).toStrictEqual(inline);
      expect(pooled[0]!.meta_data).toMatchObject({ slide_start: 1, area: 'test' });
      expect(pooled.at(-1)!.meta_data).toMatchObject({ slide_end: 1000 });
    }
  });

  it('refuses before chunking when the chunker must make more chunks than the budget has left', async () => {
    const rows: Document = { content: Array.from({ length: 100_000 }, (_, i) => `${i},row ${i}`).join('\n'), name: 'rows', id: 'rows', meta_data: {} };
    const started = performance.now();
    const error = await refusal(chunkParts(pool, [rows], createChunker('RowChunker', {}), { ...job, name: 'rows.csv' }, {}, budget(50_000)));
    expect(error.code).toBe('VALIDATION_ERROR');
    expect(error.message).toBe('"rows.csv" makes more than 50000 chunks (KNOWLEDGE_MAX_CHUNKS)');
    expect(performance.now() - started).toBeLessThan(5000);
  });

  it('counts chunks and their characters across batches and parts', async () => {
    const docs: Document[] = Array.from({ length: 3000 }, (_, i) => ({ content: `document ${i} has some words in it`, name: 'd', id: `d_${i}`, meta_data: {} }));
    const chunker = createChunker('RecursiveChunker', { chunkSize: 10 });
    const spent = budget(10_000);
    await chunkParts(pool, docs.slice(0, 1500), chunker, job, {}, spent);
    expect(spent.chunks).toBeGreaterThan(5000);
    const error = await refusal(chunkParts(pool, docs.slice(1500), chunker, job, {}, spent));
    expect(error.message).toBe('"content" makes more than 10000 chunks (KNOWLEDGE_MAX_CHUNKS)');
    const characters = await refusal(chunkParts('inline', docs, chunker, job, {}, budget(1_000_000, 1000)));
    expect(characters.message).toBe('"content" makes more than 1000 characters of chunks (KNOWLEDGE_MAX_CHARACTERS)');
  });

  it('knows at least how many chunks a chunker makes', () => {
    expect(atLeast(spec('RowChunker'), 'a\n\n  \r\nb\r\nc')).toBe(3);
    expect(atLeast(spec('FixedSizeChunker', 10), `${'x'.repeat(95)}${' '.repeat(1000)}`)).toBe(10);
    expect(atLeast(spec('MarkdownChunker', 100), 'x'.repeat(1001))).toBe(11);
    expect(atLeast(undefined, 'x'.repeat(1000))).toBe(0);
  });
});
