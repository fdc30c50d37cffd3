/**
 * @module server/routes/knowledge/sources
 * Browsing a knowledge base's remote content sources: `GET /knowledge/{knowledge_id}/sources`
 * lists them, `GET /knowledge/{knowledge_id}/sources/{source_id}/files` shows one page of a
 * folder (see knowledge/content/source-browser.ts for the paging rules).
 */
import { z } from '@hono/zod-openapi';
import type { ServerContext } from '../../context.js';
import { apiRoute, scoped, type RouteDefinition } from '../../route.js';
import { standardErrors } from '../../standard-errors.js';
import { SourceBrowser } from '../../../knowledge/content/source-browser.js';
import type { RemoteSource } from '../../../knowledge/remote-sources/remote-source.js';

export const RemoteSourceInfoSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    type: z.string().openapi({ description: 's3, gcs, azureblob, sharepoint or github' }),
    metadata: z.record(z.string(), z.unknown()).nullable(),
    prefix: z.string().nullable().openapi({ description: 'The folder the source exposes; paths outside it are refused' }),
  })
  .openapi('KnowledgeContentSource');

const FolderSchema = z
  .object({
    prefix: z.string().openapi({ description: 'The folder path, ending with "/"; pass it as `prefix` to list it' }),
    name: z.string(),
    is_empty: z.boolean(),
  })
  .openapi('KnowledgeSourceFolder');

const FileSchema = z
  .object({
    key: z.string().openapi({ description: 'The file path; what POST /knowledge/remote-content takes as `path`' }),
    name: z.string(),
    size: z.number().int().nullable(),
    last_modified: z.string().nullable().openapi({ description: 'ISO 8601' }),
    content_type: z.string().nullable().openapi({ description: "The provider's, else guessed from the extension" }),
    version: z.string().nullable().openapi({ description: 'ETag, content hash or blob sha: changes when the bytes change' }),
  })
  .openapi('KnowledgeSourceFile');

const FilesSchema = z
  .object({
    source_id: z.string(),
    source_name: z.string(),
    prefix: z.string(),
    folders: z.array(FolderSchema),
    files: z.array(FileSchema),
    meta: z.object({ page: z.number().int(), limit: z.number().int(), total_pages: z.number().int(), total_count: z.number().int(), search_time_ms: z.number() }),
  })
  .openapi('KnowledgeSourceFiles');

const KnowledgeParam = z.object({ knowledge_id: z.string().min(1).max(128).openapi({ param: { name: 'knowledge_id', in: 'path' } }) });
const SourceParams = KnowledgeParam.extend({ source_id: z.string().min(1).max(128).openapi({ param: { name: 'source_id', in: 'path' } }) });

const FilesQuery = z.object({
  db_id: z.string().optional().openapi({ description: 'The database the knowledge base is stored in' }),
  prefix: z.string().max(1024).optional().openapi({ description: "A folder (ending with \"/\") or a path prefix; default the source's root" }),
  limit: z.coerce.number().int().min(1).max(1000).default(100),
  page: z.coerce.number().int().min(1).max(10_000).default(1),
  delimiter: z.string().max(8).default('/').openapi({ description: '"/" lists one level with sub-folders; "" lists every file under the prefix' }),
  source_params: z.string().max(4096).optional().openapi({ description: 'JSON object of per-request source parameters (GitHub: {"repo", "branch"})' }),
});

export function sourceInfo(source: RemoteSource): z.infer<typeof RemoteSourceInfoSchema> {
  return { id: source.id, name: source.name, type: source.type, metadata: source.metadata, prefix: source.prefix };
}

export function knowledgeSourcesRoutes(ctx: ServerContext): RouteDefinition[] {
  const browser = new SourceBrowser(ctx.knowledge, ctx.db.id);

  return [
    apiRoute(
      scoped('knowledge:read'),
      {
        method: 'get',
        path: '/knowledge/{knowledge_id}/sources',
        operationId: 'listKnowledgeContentSources',
        tags: ['Knowledge'],
        summary: "The knowledge base's remote content sources",
        request: { params: KnowledgeParam, query: z.object({ db_id: z.string().optional() }) },
        responses: { 200: { description: 'The sources (empty when none are configured)', content: { 'application/json': { schema: z.array(RemoteSourceInfoSchema) } } }, ...standardErrors },
      },
      (c) => c.json(browser.sources(c.req.valid('param').knowledge_id, c.req.valid('query').db_id).map(sourceInfo), 200),
    ),
    apiRoute(
      scoped('knowledge:read'),
      {
        method: 'get',
        path: '/knowledge/{knowledge_id}/sources/{source_id}/files',
        operationId: 'listKnowledgeSourceFiles',
        tags: ['Knowledge'],
        summary: 'One page of a folder of a remote content source: files and sub-folders',
        request: { params: SourceParams, query: FilesQuery },
        responses: { 200: { description: 'Files and folders', content: { 'application/json': { schema: FilesSchema } } }, ...standardErrors },
      },
      async (c) => {
        const started = performance.now();
        const { knowledge_id: knowledgeId, source_id: sourceId } = c.req.valid('param');
        const q = c.req.valid('query');
        const listed = await browser.folder(knowledgeId, sourceId, q.db_id, q, c.req.raw.signal);
        return c.json(
          {
            source_id: listed.source.id,
            source_name: listed.source.name,
            prefix: listed.prefix,
            folders: listed.folders.map((f) => ({ prefix: f.path, name: f.name, is_empty: f.is_empty ?? false })),
            files: listed.files.map((f) => ({
              key: f.path,
              name: f.name,
              size: f.size ?? null,
              last_modified: f.modified_at !== undefined ? new Date(f.modified_at).toISOString() : null,
              content_type: f.content_type ?? null,
              version: f.version ?? null,
            })),
            meta: {
              page: q.page,
              limit: q.limit,
              total_pages: listed.exists && listed.hasMore ? q.page + 1 : listed.reached,
              total_count: listed.countSoFar,
              search_time_ms: Math.round((performance.now() - started) * 100) / 100,
            },
          },
          200,
        );
      },
    ),
  ];
}
