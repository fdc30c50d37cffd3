/**
 * @module knowledge/reindex/select
 * Which hosted knowledge base a reindex request means: the one named, or the only one with an
 * embedder; its store's tables exist when this returns.
 */
import type { KnowledgeComponent } from '../../components/component.js';
import { badRequest, RuntimeError } from '../../errors.js';
import { isReindexableKnowledge, noEmbedder, type ReindexableKnowledge } from './reindex-job.js';

export async function selectReindexable(
  hosted: readonly KnowledgeComponent[],
  query: { knowledgeId?: string | undefined; dbId?: string | undefined },
  /** The runtime's own database, where knowledge bases that name none are stored. */
  defaultDbId: string,
): Promise<ReindexableKnowledge> {
  let knowledge;
  if (query.knowledgeId !== undefined) {
    knowledge = hosted.find((k) => k.id === query.knowledgeId);
    if (!knowledge) throw new RuntimeError('NOT_FOUND', `Knowledge base "${query.knowledgeId}" not found`);
  } else {
    const candidates = hosted.filter(isReindexableKnowledge);
    if (candidates.length > 1) throw badRequest(`knowledge_id is required: this runtime hosts ${candidates.length} knowledge bases with an embedder (${candidates.map((k) => k.id).join(', ')})`);
    knowledge = candidates[0];
    if (!knowledge) throw new RuntimeError('NOT_FOUND', 'This runtime hosts no knowledge base with an embedder');
  }
  if (!isReindexableKnowledge(knowledge)) throw noEmbedder(knowledge.id);
  if (query.dbId !== undefined && (knowledge.store.dbId ?? defaultDbId) !== query.dbId) {
    throw new RuntimeError('NOT_FOUND', `Knowledge base "${knowledge.id}" is not stored in database "${query.dbId}"`);
  }
  // A Knowledge creates its tables on first use, and a reindex request may come first.
  await knowledge.store.create();
  return knowledge;
}
