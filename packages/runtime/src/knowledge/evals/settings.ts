/**
 * @module knowledge/evals/settings
 * What a knowledge base was built with when an eval ran, kept with its figures so evals compare
 * across a reindex, a chunker change or a new embedder: the embedder the stored vectors are
 * from (the store's fingerprint where it keeps one, else the configured embedder), each chunker
 * with its settings and how many contents it chunked, and the counts of contents and chunks.
 */
import type { SqlClient } from '../../storage/db.js';
import type { ContentKnowledge } from '../content/content-knowledge.js';
import { isReindexableKnowledge } from '../reindex/reindex-job.js';
import type { EvalSettings } from './eval-store.js';

export async function baseSettings(sql: SqlClient, knowledge: ContentKnowledge): Promise<EvalSettings> {
  let embedder: EvalSettings['embedder'] = null;
  if (isReindexableKnowledge(knowledge)) {
    const state = await knowledge.store.embedderState();
    embedder = state.embedder ? { id: state.embedder.id, dimensions: state.embedder.dimensions } : { id: knowledge.embedder.id, dimensions: null };
  } else {
    const configured = (knowledge as { embedder?: { id: string } }).embedder;
    if (configured) embedder = { id: configured.id, dimensions: null };
  }
  const rows = await sql.query<{ chunker: string | null; chunker_settings: string | null; n: number | string; chunks: number | string | null }>(
    `SELECT chunker, chunker_settings, COUNT(*) AS n, SUM(chunks) AS chunks FROM svc_knowledge_contents
     WHERE knowledge_id = $1 AND status = 'completed' AND parent_id IS NULL GROUP BY chunker, chunker_settings ORDER BY COUNT(*) DESC`,
    [knowledge.id],
  );
  return {
    embedder,
    chunkers: rows.map((r) => ({ chunker: r.chunker, chunker_settings: r.chunker_settings === null ? null : (JSON.parse(r.chunker_settings) as Record<string, unknown>), contents: Number(r.n) })),
    contents: rows.reduce((n, r) => n + Number(r.n), 0),
    chunks: rows.reduce((n, r) => n + Number(r.chunks ?? 0), 0),
  };
}
