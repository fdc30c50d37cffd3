/**
 * @module settings/ingest
 * The ingestion budgets: how much one content (an upload, a URL, a remote file, a website's
 * page) may make of the process's time and memory, whatever its bytes say. Read when a Knowledge
 * is built (its `limits` option overrides any of them); a breach fails that content with a 422
 * naming the limit and its variable.
 *
 * | variable | default | meaning |
 * | --- | --- | --- |
 * | `KNOWLEDGE_MAX_DOCUMENTS` | 100000 | documents one content is read into (a JSON array's items, a labelled CSV's rows, pages, slides, sheets), 1 to 10000000 |
 * | `KNOWLEDGE_MAX_CHUNKS` | 250000 | chunks one content makes, 1 to 10000000 |
 * | `KNOWLEDGE_MAX_CHARACTERS` | 64000000 | characters of text one content is read into, and of the chunks made of it, 1 to 2000000000 |
 * | `KNOWLEDGE_MAX_PAGE_BYTES` | 10485760 (10 MiB) | bytes of one page fetched by URL (the url and website readers, web search results), beside the upload limit, 1 to 1073741824 |
 * | `KNOWLEDGE_MAX_DEPTH` | 256 | how deep HTML elements or JSON values may nest, 8 to 4096 |
 * | `KNOWLEDGE_MAX_READ_SECONDS` | 300 | time one content may spend being fetched, read and chunked, 1 to 86400 |
 *
 * Sized so no single content drives the process more than about 1 GB over idle: a million-row
 * CSV or JSON is refused by these before it is chunked (see docs/ARCHITECTURE.md).
 */
import { z } from 'zod';
import { readEnvironment, type Environment } from './environment.js';
import { seconds, wholeNumber } from './fields.js';

export interface IngestLimits {
  maxDocuments: number;
  maxChunks: number;
  maxCharacters: number;
  maxPageBytes: number;
  maxDepth: number;
  readTimeoutMs: number;
}

/** The variable behind each limit, named by every refusal. */
export const INGEST_LIMIT_VARIABLES: Readonly<Record<keyof IngestLimits, string>> = {
  maxDocuments: 'KNOWLEDGE_MAX_DOCUMENTS',
  maxChunks: 'KNOWLEDGE_MAX_CHUNKS',
  maxCharacters: 'KNOWLEDGE_MAX_CHARACTERS',
  maxPageBytes: 'KNOWLEDGE_MAX_PAGE_BYTES',
  maxDepth: 'KNOWLEDGE_MAX_DEPTH',
  readTimeoutMs: 'KNOWLEDGE_MAX_READ_SECONDS',
};

export const INGEST_LIMIT_DEFAULTS: Readonly<IngestLimits> = {
  maxDocuments: 100_000,
  maxChunks: 250_000,
  maxCharacters: 64_000_000,
  maxPageBytes: 10 * 1024 * 1024,
  maxDepth: 256,
  readTimeoutMs: 300_000,
};

export const ingestSettingsSchema = z
  .object({
    KNOWLEDGE_MAX_DOCUMENTS: wholeNumber({ min: 1, max: 10_000_000, default: INGEST_LIMIT_DEFAULTS.maxDocuments }),
    KNOWLEDGE_MAX_CHUNKS: wholeNumber({ min: 1, max: 10_000_000, default: INGEST_LIMIT_DEFAULTS.maxChunks }),
    KNOWLEDGE_MAX_CHARACTERS: wholeNumber({ min: 1, max: 2_000_000_000, default: INGEST_LIMIT_DEFAULTS.maxCharacters }),
    KNOWLEDGE_MAX_PAGE_BYTES: wholeNumber({ min: 1, max: 1024 * 1024 * 1024, default: INGEST_LIMIT_DEFAULTS.maxPageBytes }),
    KNOWLEDGE_MAX_DEPTH: wholeNumber({ min: 8, max: 4096, default: INGEST_LIMIT_DEFAULTS.maxDepth }),
    KNOWLEDGE_MAX_READ_SECONDS: seconds({ min: 1, max: 86_400, default: INGEST_LIMIT_DEFAULTS.readTimeoutMs / 1000 }),
  })
  .transform(
    (env): IngestLimits => ({
      maxDocuments: env.KNOWLEDGE_MAX_DOCUMENTS,
      maxChunks: env.KNOWLEDGE_MAX_CHUNKS,
      maxCharacters: env.KNOWLEDGE_MAX_CHARACTERS,
      maxPageBytes: env.KNOWLEDGE_MAX_PAGE_BYTES,
      maxDepth: env.KNOWLEDGE_MAX_DEPTH,
      readTimeoutMs: env.KNOWLEDGE_MAX_READ_SECONDS,
    }),
  );

/** The budgets in `env`; throws ConfigurationError naming a malformed variable. */
export function readIngestLimits(env: Environment = process.env): IngestLimits {
  return readEnvironment(ingestSettingsSchema, env);
}
