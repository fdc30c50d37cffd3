/**
 * @module server/routes/knowledge/reindex
 * `POST /knowledge/reindex` re-embeds a knowledge base with the runtime's embedder as a durable
 * job and answers 202 with its status; `GET /knowledge/reindex` is that status, to poll.
 */
import { z } from '@hono/zod-openapi';
import type { ServerContext } from '../../context.js';
import { apiRoute, scoped, type RouteDefinition } from '../../route.js';
import { standardErrors } from '../../standard-errors.js';
import { reindexStatus, startReindex } from '../../../knowledge/reindex/reindex-job.js';
import { selectReindexable } from '../../../knowledge/reindex/select.js';

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

export function knowledgeReindexRoutes(ctx: ServerContext): RouteDefinition[] {
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
        const knowledge = await selectReindexable(ctx.knowledge, { knowledgeId: q.knowledge_id, dbId: q.db_id }, ctx.db.id);
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
        const knowledge = await selectReindexable(ctx.knowledge, { knowledgeId: q.knowledge_id, dbId: q.db_id }, ctx.db.id);
        return c.json(await reindexStatus(knowledge, ctx.jobs.store), 200);
      },
    ),
  ];
}
