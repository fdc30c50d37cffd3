/**
 * @module server/routes/knowledge/search
 * POST /knowledge/search: one search of a knowledge base. `max_results` hits are returned, all
 * on one page unless `meta.limit` pages them in memory (as agno pages them).
 */
import { z } from '@hono/zod-openapi';
import type { KnowledgeSearchOptions } from '../../../knowledge/options.js';
import type { ServerContext } from '../../context.js';
import { apiRoute, scoped, type RouteDefinition } from '../../route.js';
import { standardErrors } from '../../standard-errors.js';
import { contentCaller } from './content.js';
import { HitSchema, PageMetaSchema, SearchBodySchema, SelectQuery } from './schemas.js';

export function knowledgeSearchRoutes(ctx: ServerContext): RouteDefinition[] {
  const service = ctx.content;
  return [
    apiRoute(
      scoped('knowledge:read'),
      {
        method: 'post',
        path: '/knowledge/search',
        operationId: 'searchKnowledge',
        tags: ['Knowledge'],
        summary: 'Search a knowledge base',
        request: { query: SelectQuery, body: { required: true, content: { 'application/json': { schema: SearchBodySchema } } } },
        responses: {
          200: {
            description: 'A page of hits, best first',
            content: {
              'application/json': {
                schema: z.object({ data: z.array(HitSchema), meta: PageMetaSchema.extend({ search_time_ms: z.number() }) }),
              },
            },
          },
          ...standardErrors,
        },
      },
      async (c) => {
        const q = c.req.valid('query');
        const body = c.req.valid('json');
        const knowledge = await service.select(body.knowledge_id ?? q.knowledge_id, body.db_id ?? q.db_id);
        const caller = contentCaller(ctx, c);
        const started = performance.now();
        const hits = await knowledge.search(body.query, {
          ...(body.max_results !== undefined ? { limit: body.max_results } : {}),
          ...(body.search_type !== undefined ? { searchType: body.search_type } : {}),
          ...(body.filters !== undefined ? { filters: body.filters as KnowledgeSearchOptions['filters'] } : {}),
          ...(body.rerank !== undefined ? { rerank: body.rerank } : {}),
          ...(body.similarity_threshold !== undefined ? { similarityThreshold: body.similarity_threshold } : {}),
          userId: caller.scope,
          ...(caller.tenant !== undefined ? { tenantId: caller.tenant } : {}),
        });
        const searchTimeMs = Math.round((performance.now() - started) * 100) / 100;
        // max_results is what the caller asked to get back: one page of them, unless meta.limit
        // explicitly pages them (agno defaulted meta.limit to 20, which silently cut 100 to 20).
        const page = body.meta?.page ?? 1;
        const limit = body.meta?.limit ?? body.max_results ?? knowledge.maxResults ?? Math.max(1, hits.length);
        const data = hits.slice((page - 1) * limit, page * limit).map((h) => ({
          id: h.id,
          content: h.content,
          name: h.name ?? null,
          meta_data: h.meta_data,
          content_id: h.content_id,
          score: h.score,
        }));
        return c.json({ data, meta: { page, limit, total_pages: Math.ceil(hits.length / limit), total_count: hits.length, search_time_ms: searchTimeMs } }, 200);
      },
    ),
  ];
}
