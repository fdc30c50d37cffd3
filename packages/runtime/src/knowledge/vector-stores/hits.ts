/**
 * @module knowledge/vector-stores/hits
 * Chunk rows as search hits: the columns every store's search selects, and row -> SearchHit.
 */
import type { SearchHit } from './vector-store.js';

/** The columns of a chunk row a search selects before its score: what `toHit` reads. */
export const HIT_COLUMNS = 'chunk_id, content_id, name, content, meta_data';

export interface ChunkRow {
  chunk_id: string;
  content_id: string;
  name: string | null;
  content: string;
  /** JSON text (SQLite), or the parsed object (PostgreSQL's JSONB). */
  meta_data: string | Record<string, unknown>;
}

export function toHit(row: ChunkRow, score: number): SearchHit {
  const meta = typeof row.meta_data === 'string' ? (JSON.parse(row.meta_data) as Record<string, unknown>) : row.meta_data;
  return {
    chunk: { id: row.chunk_id, content_id: row.content_id, ...(row.name !== null ? { name: row.name } : {}), content: row.content, meta_data: meta },
    score,
  };
}

/** Cosine distance is in [0, 2]; the similarity reported is clamped to [0, 1], as agno reports it. */
export function cosineSimilarity(distance: number): number {
  return Math.min(1, Math.max(0, 1 - distance));
}
