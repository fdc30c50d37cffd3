/**
 * @module knowledge/config-route
 * `GET /knowledge/config`: what this runtime can do with content. It reports only what is
 * real here: the readers and chunkers of the hosted Knowledge instances (or the built-in set
 * when none is hosted), the metadata keys stored content can be filtered on, and each
 * instance's vector store with the search types it supports (keyword only without an
 * embedder), and the remote content sources configured on each instance ([] when none).
 *
 * It reports what is registered, nothing hard-coded: with the default readers the answer is the
 * specification's tables (readers, the whole readersForType map, chunker defaults) plus a few
 * documented additions; test/support/knowledge-spec.ts holds both and the test comparing them.
 */
import { z } from '@hono/zod-openapi';
import type { KnowledgeComponent } from '../components/component.js';
import { RuntimeError } from '../errors.js';
import type { ServerContext } from '../server/context.js';
import { apiRoute, scoped, type RouteDefinition } from '../server/route.js';
import { standardErrors } from '../server/standard-errors.js';
import { CHUNKERS } from './chunkers/registry.js';
import type { ChunkerType } from './chunkers/chunker.js';
import { isConfigurableKnowledge, type ConfigurableKnowledge } from './knowledge.js';
import type { Reader } from './readers/reader.js';
import { ReaderRegistry } from './readers/registry.js';

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

export type KnowledgeConfig = z.infer<typeof KnowledgeConfigSchema>;

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
        let selected = ctx.knowledge;
        if (knowledgeId !== undefined) {
          selected = selected.filter((k) => k.id === knowledgeId);
          if (selected.length === 0) throw new RuntimeError('NOT_FOUND', `Knowledge base "${knowledgeId}" not found`);
        }
        if (dbId !== undefined) {
          selected = selected.filter((k) => (k.dbId ?? ctx.db.id) === dbId);
          if (selected.length === 0) throw new RuntimeError('NOT_FOUND', `No knowledge base is stored in database "${dbId}"`);
        }
        // Under user isolation the filter keys are those of the content the caller may see.
        const visibleTo = ctx.auth.scopedUserId(c.get('principal'));
        return c.json(await knowledgeConfig(selected.filter((k): k is KnowledgeComponent & ConfigurableKnowledge => isConfigurableKnowledge(k)), visibleTo), 200);
      },
    ),
  ];
}

/** The config for these Knowledge instances; the built-in readers when there are none. `visibleTo` scopes the filter keys to a user. */
export async function knowledgeConfig(instances: readonly ConfigurableKnowledge[], visibleTo?: string): Promise<KnowledgeConfig> {
  const readers = new Map<string, Reader>();
  const registries = instances.length > 0 ? instances.map((k) => k.readers) : [new ReaderRegistry()];
  for (const registry of registries) for (const reader of registry.list()) if (!readers.has(reader.id)) readers.set(reader.id, reader);

  const readersForType: Record<string, string[]> = {};
  const chunkerKeys = new Set<ChunkerType>();
  for (const reader of readers.values()) {
    for (const type of reader.contentTypes) (readersForType[type] ??= []).push(reader.id);
    for (const chunker of reader.chunkers) chunkerKeys.add(chunker);
  }
  const filters = new Set<string>();
  for (const k of instances) for (const key of await k.filterKeys(visibleTo !== undefined ? { userId: visibleTo } : undefined)) filters.add(key);

  return {
    readers: Object.fromEntries(
      [...readers.values()].map((r) => [r.id, { id: r.id, name: r.name, description: r.description, chunkers: [...r.chunkers] }]),
    ),
    readersForType,
    chunkers: Object.fromEntries([...chunkerKeys].map((key) => [key, { ...CHUNKERS[key], metadata: { ...CHUNKERS[key].metadata } }])),
    filters: [...filters].sort(),
    vector_dbs: instances.map((k) => k.vectorDb()),
    // The spec's RemoteContentSource: every source of every instance selected.
    remote_content_sources: instances.flatMap((k) => (k.contentSources ?? []).map((s) => ({ id: s.id, name: s.name, type: s.type, metadata: s.metadata, prefix: s.prefix }))),
  };
}
