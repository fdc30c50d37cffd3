/**
 * @module knowledge/limits
 * The ingestion budgets as readers and chunkers meet them (settings/ingest.ts reads them): the
 * refusals, each a 422 naming the content, the limit and its variable, so a record that breaches
 * one ends `failed` saying which and what to raise; and the checks, made as the work goes (while
 * reading, before chunking, after each batch of chunks), in the worker doing it when there is
 * one. Everything here is plain data and pure functions, so it travels to a worker thread.
 */
import { unprocessable, type RuntimeError } from '../errors.js';
import { INGEST_LIMIT_DEFAULTS, INGEST_LIMIT_VARIABLES, type IngestLimits } from '../settings/ingest.js';
import type { Document } from './types.js';

export type { IngestLimits };
export { INGEST_LIMIT_DEFAULTS };

/** What a reader is held to. */
export type ReadLimits = Pick<IngestLimits, 'maxDocuments' | 'maxCharacters' | 'maxDepth'>;

/** The documents `name` is read into would be more than the limit. */
export function tooManyDocuments(name: string, max: number): RuntimeError {
  return unprocessable(`"${name}" makes more than ${max} documents (${INGEST_LIMIT_VARIABLES.maxDocuments})`);
}

export function tooManyChunks(name: string, max: number): RuntimeError {
  return unprocessable(`"${name}" makes more than ${max} chunks (${INGEST_LIMIT_VARIABLES.maxChunks})`);
}

/** `what`: `text` for what a reader makes, `chunks` for the chunks made of it. */
export function tooManyCharacters(name: string, max: number, what: 'text' | 'chunks' = 'text'): RuntimeError {
  return unprocessable(`"${name}" makes more than ${max} characters of ${what} (${INGEST_LIMIT_VARIABLES.maxCharacters})`);
}

/** `what`: `elements` (HTML) or `values` (JSON). */
export function tooDeep(name: string, max: number, what: 'elements' | 'values'): RuntimeError {
  return unprocessable(`"${name}" nests ${what} more than ${max} levels deep (${INGEST_LIMIT_VARIABLES.maxDepth})`);
}

export function pageTooLarge(url: string, max: number): RuntimeError {
  return unprocessable(`${url} is larger than the page limit of ${max} bytes (${INGEST_LIMIT_VARIABLES.maxPageBytes})`);
}

export function tookTooLong(name: string, ms: number): RuntimeError {
  return unprocessable(`"${name}" took more than ${Math.round(ms / 100) / 10} s to read and chunk (${INGEST_LIMIT_VARIABLES.readTimeoutMs})`);
}

/** Refuses read documents past the document or character limit. */
export function checkDocuments(documents: readonly Pick<Document, 'content'>[], name: string, limits: ReadLimits | undefined): void {
  if (!limits) return;
  if (documents.length > limits.maxDocuments) throw tooManyDocuments(name, limits.maxDocuments);
  let characters = 0;
  for (const doc of documents) characters += doc.content.length;
  if (characters > limits.maxCharacters) throw tooManyCharacters(name, limits.maxCharacters);
}

/**
 * What chunking one content may still make: the limits and what was made so far. Plain data, so
 * a worker chunking a batch can be handed it and check as it goes; the caller adds the batch's
 * counts back (`spend`).
 */
export interface ChunkBudget {
  maxChunks: number;
  maxCharacters: number;
  chunks: number;
  characters: number;
}

export function chunkBudget(limits: Pick<IngestLimits, 'maxChunks' | 'maxCharacters'>): ChunkBudget {
  return { maxChunks: limits.maxChunks, maxCharacters: limits.maxCharacters, chunks: 0, characters: 0 };
}

/** Counts `chunks` against the budget; throws the refusal once a limit is passed. */
export function spend(budget: ChunkBudget, name: string, chunks: readonly { content: string }[]): void {
  budget.chunks += chunks.length;
  if (budget.chunks > budget.maxChunks) throw tooManyChunks(name, budget.maxChunks);
  for (const chunk of chunks) budget.characters += chunk.content.length;
  if (budget.characters > budget.maxCharacters) throw tooManyCharacters(name, budget.maxCharacters, 'chunks');
}

/** Refuses before chunking when the chunker is sure to make more chunks than are left. */
export function checkAtLeast(budget: ChunkBudget, name: string, atLeast: number): void {
  if (budget.chunks + atLeast > budget.maxChunks) throw tooManyChunks(name, budget.maxChunks);
}
