/**
 * @module settings/ingest.test
 * The ingestion budgets: defaults, every variable read, and a malformed value named.
 */
import { describe, expect, it } from 'vitest';
import { ConfigurationError } from '../errors.js';
import { INGEST_LIMIT_DEFAULTS, readIngestLimits } from './ingest.js';

describe('readIngestLimits', () => {
  it('has defaults and needs nothing set', () => {
    expect(readIngestLimits({})).toEqual(INGEST_LIMIT_DEFAULTS);
    expect(INGEST_LIMIT_DEFAULTS).toEqual({ maxDocuments: 100_000, maxChunks: 250_000, maxCharacters: 64_000_000, maxPageBytes: 10_485_760, maxDepth: 256, readTimeoutMs: 300_000 });
  });

  it('reads every variable, seconds as ms', () => {
    expect(
      readIngestLimits({
        KNOWLEDGE_MAX_DOCUMENTS: '10',
        KNOWLEDGE_MAX_CHUNKS: '20',
        KNOWLEDGE_MAX_CHARACTERS: '30',
        KNOWLEDGE_MAX_PAGE_BYTES: '40',
        KNOWLEDGE_MAX_DEPTH: '50',
        KNOWLEDGE_MAX_READ_SECONDS: '6',
      }),
    ).toEqual({ maxDocuments: 10, maxChunks: 20, maxCharacters: 30, maxPageBytes: 40, maxDepth: 50, readTimeoutMs: 6000 });
  });

  it('refuses a malformed value, naming the variable', () => {
    expect(() => readIngestLimits({ KNOWLEDGE_MAX_CHUNKS: '0' })).toThrow(new ConfigurationError('KNOWLEDGE_MAX_CHUNKS must be a whole number from 1 to 10000000, got "0"'));
    expect(() => readIngestLimits({ KNOWLEDGE_MAX_DEPTH: '2' })).toThrow('KNOWLEDGE_MAX_DEPTH must be a whole number from 8 to 4096, got "2"');
    expect(() => readIngestLimits({ KNOWLEDGE_MAX_READ_SECONDS: 'soon' })).toThrow('KNOWLEDGE_MAX_READ_SECONDS must be a whole number from 1 to 86400, got "soon"');
  });
});
