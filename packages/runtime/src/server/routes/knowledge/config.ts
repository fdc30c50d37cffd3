/**
 * @module server/routes/knowledge/config
 * `GET /knowledge/config`: what this runtime can do with content (see knowledge/config.ts).
 */
import { z } from '@hono/zod-openapi';
import type { ServerContext } from '../../context.js';
import { apiRoute, scoped, type RouteDefinition } from '../../route.js';
import { standardErrors } from '../../standard-errors.js';
import { knowledgeConfig, selectConfigurable } from '../../../knowledge/config.js';

const ReaderSchema = z
  .object({
    id: z.string(),
    name: z.string().nullable().optional(),
    description: z.string().nullable().optional(),
    chunkers: z.array(z.string()).nullable().optional(),
  })
  .openapi('KnowledgeReader');

const ChunkerSchema = z
  .object({
    key: z.string(),
    name: z.string().nullable().optional(),
    description: z.string().nullable().optional(),
    metadata: z.record(z.string(), z.unknown()).nullable().optional(),
  })
  .openapi('KnowledgeChunker');

const VectorDbSchema = z
  .object({
    id: z.string(),
    name: z.string().nullable().optional(),
    description: z.string().nullable().optional(),
    search_types: z.array(z.enum(['vector', 'keyword', 'hybrid'])).nullable().optional(),
  })
  .openapi('KnowledgeVectorDb');

const RemoteContentSourceSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    type: z.string(),
    metadata: z.record(z.string(), z.unknown()).nullable().optional(),
    prefix: z.string().nullable().optional(),
  })
  .openapi('KnowledgeRemoteContentSource');

export const KnowledgeConfigSchema = z
  .object({
    readers: z.record(z.string(), ReaderSchema).nullable().optional(),
    readersForType: z.record(z.string(), z.array(z.string())).nullable().optional(),
    chunkers: z.record(z.string(), ChunkerSchema).nullable().optional(),
    filters: z.array(z.string()).nullable().optional(),
    vector_dbs: z.array(VectorDbSchema).nullable().optional(),
    remote_content_sources: z.array(RemoteContentSourceSchema).nullable().optional(),
  })
  .openapi('KnowledgeConfigResponse');

const QuerySchema = z.object({
  db_id: z.string().optional().openapi({ description: 'Only knowledge stored in this database' }),
  knowledge_id: z.string().optional().openapi({ description: 'Only this knowledge base' }),
});


export function knowledgeConfigRoutes(ctx: ServerContext): RouteDefinition[] {
  return [
    apiRoute(
      scoped('knowledge:read'),
      {
        method: 'get',
        path: '/knowledge/config',
        operationId: 'getKnowledgeConfig',
        tags: ['Knowledge'],
        summary: 'Readers, chunkers, filters and vector databases available for content processing',
        request: { query: QuerySchema },
        responses: {
          200: { description: 'Knowledge configuration', content: { 'application/json': { schema: KnowledgeConfigSchema } } },
          ...standardErrors,
        },
      },
      async (c) => {
        const { db_id: dbId, knowledge_id: knowledgeId } = c.req.valid('query');
        const selected = selectConfigurable(ctx.knowledge, { knowledgeId, dbId }, ctx.db.id);
        // Under user isolation (tenancy) the filter keys are those of the content the caller may see.
        const { user, tenant } = ctx.auth.dataScope(c.get('principal'));
        return c.json(await knowledgeConfig(selected, { userId: user, tenantId: tenant }), 200);
      },
    ),
  ];
}
