/**
 * @module knowledge/limits.test
 * The budgets' checks and refusals: each a 422 naming the content, the limit and its variable;
 * the chunk budget spent across calls; the read time ending the work with its own refusal while
 * a caller's cancellation stays cancellation.
 */
import { describe, expect, it } from 'vitest';
import { RuntimeError } from '../errors.js';
import { withinReadTime } from './ingest/deadline.js';
import { checkAtLeast, checkDocuments, chunkBudget, pageTooLarge, spend } from './limits.js';

const docs = (...contents: string[]) => contents.map((content) => ({ content }));

describe('ingestion limits', () => {
  it('refuses documents past the document or the character limit, and nothing without limits', () => {
    const limits = { maxDocuments: 2, maxCharacters: 10, maxDepth: 8 };
    expect(() => checkDocuments(docs('abc', 'def'), 'a.json', limits)).not.toThrow();
    expect(() => checkDocuments(docs('a', 'b', 'c'), 'a.json', limits)).toThrow('"a.json" makes more than 2 documents (KNOWLEDGE_MAX_DOCUMENTS)');
    expect(() => checkDocuments(docs('abcdef', 'ghijk'), 'a.txt', limits)).toThrow('"a.txt" makes more than 10 characters of text (KNOWLEDGE_MAX_CHARACTERS)');
    expect(() => checkDocuments(docs('a'.repeat(100)), 'a.txt', undefined)).not.toThrow();
  });

  it('spends the chunk budget across calls and refuses once a limit is passed', () => {
    const budget = chunkBudget({ maxChunks: 3, maxCharacters: 12 });
    spend(budget, 'c', docs('ab', 'cd'));
    expect(budget).toMatchObject({ chunks: 2, characters: 4 });
    expect(() => spend(budget, 'c', docs('ef', 'gh'))).toThrow('"c" makes more than 3 chunks (KNOWLEDGE_MAX_CHUNKS)');
    const long = chunkBudget({ maxChunks: 100, maxCharacters: 12 });
    expect(() => spend(long, 'c', docs('a'.repeat(13)))).toThrow('"c" makes more than 12 characters of chunks (KNOWLEDGE_MAX_CHARACTERS)');
  });

  it('refuses before chunking when at least the rest of the budget would be made', () => {
    const budget = chunkBudget({ maxChunks: 10, maxCharacters: 1000 });
    spend(budget, 'c', docs('a', 'b', 'c'));
    expect(() => checkAtLeast(budget, 'rows.csv', 7)).not.toThrow();
    expect(() => checkAtLeast(budget, 'rows.csv', 8)).toThrow('"rows.csv" makes more than 10 chunks (KNOWLEDGE_MAX_CHUNKS)');
  });

  it('names the page limit and its variable, as a 422', () => {
    const error = pageTooLarge('https://example.org/big', 1024);
    expect(RuntimeError.isInstance(error) && error.status).toBe(422);
    expect(error.message).toBe('https://example.org/big is larger than the page limit of 1024 bytes (KNOWLEDGE_MAX_PAGE_BYTES)');
  });
});

const waitForAbort = (signal: AbortSignal) => new Promise<never>((_, reject) => signal.addEventListener('abort', () => reject(new Error('aborted'))));

describe('withinReadTime', () => {
  it('answers what the work answers in time', async () => {
    await expect(withinReadTime('a', 1000, undefined, async () => 42)).resolves.toBe(42);
  });

  it('ends work that runs out of time with a refusal naming the variable', async () => {
    const error = await withinReadTime('slow.html', 50, undefined, waitForAbort).catch((e: unknown) => e);
    expect(RuntimeError.isInstance(error) && error.status).toBe(422);
    expect((error as Error).message).toBe('"slow.html" took more than 0.1 s to read and chunk (KNOWLEDGE_MAX_READ_SECONDS)');
  });

  it("leaves the caller's cancellation as it is", async () => {
    const caller = new AbortController();
    const work = withinReadTime('a', 10_000, caller.signal, waitForAbort);
    caller.abort();
    await expect(work).rejects.toThrow('aborted');
  });
});
