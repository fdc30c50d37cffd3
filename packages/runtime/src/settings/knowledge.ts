/**
 * @module settings/knowledge
 * The knowledge area the Runtime reads at start, beside the readers' own areas (settings/sources,
 * settings/converter, settings/workers):
 *
 * | variable | default | meaning |
 * | --- | --- | --- |
 * | `KNOWLEDGE_REINDEX` | none | knowledge ids (comma list) to re-embed in the background when their store was built by another embedder; checked against the hosted ones at start |
 */
import { z } from 'zod';
import { list } from './fields.js';

export interface KnowledgeSettings {
  /** Knowledge bases to re-embed when their store was built by another embedder. */
  knowledgeReindex: string[];
}

export const knowledgeSettingsSchema = z.object({ KNOWLEDGE_REINDEX: list() }).transform((env): KnowledgeSettings => ({ knowledgeReindex: env.KNOWLEDGE_REINDEX }));
