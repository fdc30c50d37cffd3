/**
 * @module knowledge/reindex-routes
 * `POST /knowledge/reindex` re-embeds a knowledge base with the runtime's embedder as a durable
 * job and answers 202 with its status; `GET /knowledge/reindex` is that status, to poll.
 */
import { z } from '@hono/zod-openapi';
import { RuntimeError } from '../errors.js';
import type { ServerContext } from '../server/context.js';
import { apiRoute, scoped, type RouteDefinition } from '../server/route.js';
import { standardErrors } from '../server/standard-errors.js';
import { badRequest } from './errors.js';
import { isReindexableKnowledge, noEmbedder, reindexStatus, startReindex, type ReindexableKnowledge } from './reindex-job.js';

const Query = z.object({
  knowledge_id: z.string().optional().openapi({ description: 'Required when the runtime hosts more than one knowledge base' }),
  db_id: z.string().optional().openapi({ description: 'The database the knowledge base is stored in' }),
});

const StatusSchema = z
  .object({
    knowledge_id: z.string(),
    state: z.enum(['idle', 'queued', 'running', 'completed', 'failed']),
    embedder: z.string().nullable().openapi({ description: 'The embedder being (or last) re-embedded with; the stored one when idle' }),
    stored_embedder: z.string().nullable().openapi({ description: 'The embedder of the vectors searches use now' }),
    dimensions: z.number().int().nullable(),
    chunks_done: z.number().int(),
    chunks_total: z.number().int(),
    job_id: z.string().nullable(),
    attempts: z.number().int(),
    error: z.string().nullable(),
  })
  .openapi('KnowledgeReindexStatus');

/** The store's tables exist (a Knowledge creates them on first use; this may come first). */
async function ready(knowledge: ReindexableKnowledge): Promise<ReindexableKnowledge> {
  await knowledge.store.create();
  return knowledge;
}

export function knowledgeReindexRoutes(ctx: ServerContext): RouteDefinition[] {
  const select = (knowledgeId: string | undefined, dbId: string | undefined): ReindexableKnowledge => {
    const hosted = ctx.knowledge;
    let knowledge;
    if (knowledgeId !== undefined) {
      knowledge = hosted.find((k) => k.id === knowledgeId);
      if (!knowledge) throw new RuntimeError('NOT_FOUND', `Knowledge base "${knowledgeId}" not found`);
    } else {
      const candidates = hosted.filter(isReindexableKnowledge);
      if (candidates.length > 1) throw badRequest(`knowledge_id is required: this runtime hosts ${candidates.length} knowledge bases with an embedder (${candidates.map((k) => k.id).join(', ')})`);
      knowledge = candidates[0];
      if (!knowledge) throw new RuntimeError('NOT_FOUND', 'This runtime hosts no knowledge base with an embedder');
    }
    if (!isReindexableKnowledge(knowledge)) throw noEmbedder(knowledge.id);
    if (dbId !== undefined && (knowledge.store.dbId ?? ctx.db.id) !== dbId) {
      throw new RuntimeError('NOT_FOUND', `Knowledge base "${knowledge.id}" is not stored in database "${dbId}"`);
    }
    return knowledge;
  };

  return [
    apiRoute(
      scoped('knowledge:write'),
      {
        method: 'post',
        path: '/knowledge/reindex',
        operationId: 'reindexKnowledge',
        tags: ['Knowledge'],
        summary: 'Re-embed every chunk with the configured embedder, in the background',
        description:
          'Records a durable job and answers at once. Searches keep working throughout: by vector with the old vectors when they came from the same embedder, ' +
          'else by keyword; the new vectors replace the old ones all at once when every chunk has one. While one runs, this answers with it.',
        request: { query: Query },
        responses: { 202: { description: 'The reindex, queued or running', content: { 'application/json': { schema: StatusSchema } } }, ...standardErrors },
      },
      async (c) => {
        const q = c.req.valid('query');
        const knowledge = await ready(select(q.knowledge_id, q.db_id));
        await startReindex(knowledge, ctx.jobs);
        return c.json(await reindexStatus(knowledge, ctx.jobs.store), 202);
      },
    ),
    apiRoute(
      scoped('knowledge:read'),
      {
        method: 'get',
        path: '/knowledge/reindex',
        operationId: 'getKnowledgeReindex',
        tags: ['Knowledge'],
        summary: 'Where the reindex of a knowledge base stands',
        request: { query: Query },
        responses: { 200: { description: 'The reindex status', content: { 'application/json': { schema: StatusSchema } } }, ...standardErrors },
      },
      async (c) => {
        const q = c.req.valid('query');
        const knowledge = await ready(select(q.knowledge_id, q.db_id));
        return c.json(await reindexStatus(knowledge, ctx.jobs.store), 200);
      },
    ),
  ];
}
