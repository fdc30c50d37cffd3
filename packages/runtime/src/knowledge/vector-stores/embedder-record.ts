/**
 * @module knowledge/vector-stores/embedder-record
 * The embedder record every store keeps with its vectors, and the refusal of other vectors.
 *
 * Each store records the embedder and dimension of its first vectors in its `_meta` table (key
 * `embedder`, `<embedder id>:<dimensions>`) and refuses vectors of another embedder or length,
 * since they could not be compared with the stored ones.
 */
import { RuntimeError } from '../../errors.js';
import type { StoredChunk } from './vector-store.js';

/** The embedder that built a store's vectors. */
export interface EmbedderRecord {
  id: string;
  dimensions: number;
}

/** The record of a write's vectors: `<embedder id>:<dimensions>` (an unnamed embedder is `unknown`). */
export function embedderKey(embedderId: string | undefined, dimensions: number): string {
  return `${embedderId ?? 'unknown'}:${dimensions}`;
}

/** `openai:text-embedding-3-small:1536` -> id and dimensions (the id may hold colons). */
export function parseEmbedderKey(key: string): EmbedderRecord {
  const at = key.lastIndexOf(':');
  const dimensions = Number(key.slice(at + 1));
  return at > 0 && Number.isInteger(dimensions) ? { id: key.slice(0, at), dimensions } : { id: key, dimensions: 0 };
}

/** The dimension a stored record names, for an index built before any write of this process. */
export function recordedDimensions(record: string | undefined): number | undefined {
  const dims = Number(record?.split(':').pop());
  return Number.isInteger(dims) && dims > 0 ? dims : undefined;
}

/** The length of a write's vectors: its first vector's (the others are checked against it). */
export function vectorDimensions(chunks: readonly StoredChunk[]): number | undefined {
  return chunks.find((c) => c.embedding)?.embedding?.length;
}

export function embedderConflict(stored: string, given: string): RuntimeError {
  return new RuntimeError('CONFLICT', `This knowledge store holds vectors from ${stored}; refusing vectors from ${given}. Use a new table to change embedders.`);
}
