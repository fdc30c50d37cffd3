/**
 * @module knowledge/sources-routes
 * Browsing a knowledge base's remote content sources (read-only):
 * `GET /knowledge/{knowledge_id}/sources` lists them, and
 * `GET /knowledge/{knowledge_id}/sources/{source_id}/files` shows one page of a folder: its files
 * and sub-folders, as the provider lists them.
 *
 * Pages are numbered (as in the reference API) but providers page with opaque tokens, so the
 * token that starts each page is remembered (a small LRU per source, prefix, delimiter, limit and
 * params); reaching page n cold walks the tokens from the nearest page known, a request per page.
 * `total_pages` is `page + 1` while the provider says there is more, and `total_count` counts
 * the entries up to this page: providers do not say how many entries a folder has.
 *
 * A provider's failure keeps its meaning (404 not found, 403 credentials refused, 503 throttled
 * with Retry-After); it never becomes a 500.
 */
import { z } from '@hono/zod-openapi';
import { RuntimeError } from '../errors.js';
import type { ServerContext } from '../server/context.js';
import { apiRoute, scoped, type RouteDefinition } from '../server/route.js';
import { standardErrors } from '../server/standard-errors.js';
import { badRequest } from './errors.js';
import { isConfigurableKnowledge } from './knowledge.js';
import type { RemoteListPage, RemoteSource } from './sources/remote-source.js';

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

/** Page tokens remembered, across all sources. */
const TOKEN_CACHE_SIZE = 2000;

const TYPES: Record<string, string> = {
  md: 'text/markdown',
  markdown: 'text/markdown',
  txt: 'text/plain',
  csv: 'text/csv',
  json: 'application/json',
  html: 'text/html',
  htm: 'text/html',
  xml: 'application/xml',
  pdf: 'application/pdf',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  pptx: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  doc: 'application/msword',
  xls: 'application/vnd.ms-excel',
  ppt: 'application/vnd.ms-powerpoint',
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  svg: 'image/svg+xml',
  zip: 'application/zip',
  yaml: 'application/yaml',
  yml: 'application/yaml',
};

function guessType(name: string): string | null {
  const dot = name.lastIndexOf('.');
  return dot > 0 ? (TYPES[name.slice(dot + 1).toLowerCase()] ?? null) : null;
}

export function sourceInfo(source: RemoteSource): z.infer<typeof RemoteSourceInfoSchema> {
  return { id: source.id, name: source.name, type: source.type, metadata: source.metadata, prefix: source.prefix };
}

function parseParams(text: string | undefined): Record<string, unknown> | undefined {
  if (text === undefined || text.trim() === '') return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw badRequest('source_params must be a valid JSON object');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw badRequest('source_params must be a JSON object');
  return value as Record<string, unknown>;
}

/** Remembers which token starts page n of a listing; least recently used first out. */
class PageTokens {
  private readonly tokens = new Map<string, string>();

  get(key: string): string | undefined {
    const token = this.tokens.get(key);
    if (token !== undefined) {
      this.tokens.delete(key);
      this.tokens.set(key, token);
    }
    return token;
  }

  set(key: string, token: string): void {
    this.tokens.delete(key);
    this.tokens.set(key, token);
    if (this.tokens.size > TOKEN_CACHE_SIZE) this.tokens.delete(this.tokens.keys().next().value!);
  }
}

export function knowledgeSourcesRoutes(ctx: ServerContext): RouteDefinition[] {
  const tokens = new PageTokens();

  const sourcesOf = (knowledgeId: string, dbId: string | undefined): readonly RemoteSource[] => {
    const knowledge = ctx.knowledge.find((k) => k.id === knowledgeId);
    if (!knowledge) throw new RuntimeError('NOT_FOUND', `Knowledge base "${knowledgeId}" not found`);
    if (dbId !== undefined && (knowledge.dbId ?? ctx.db.id) !== dbId) throw new RuntimeError('NOT_FOUND', `Knowledge base "${knowledgeId}" is not stored in database "${dbId}"`);
    return isConfigurableKnowledge(knowledge) ? (knowledge.contentSources ?? []) : [];
  };

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
      (c) => c.json(sourcesOf(c.req.valid('param').knowledge_id, c.req.valid('query').db_id).map(sourceInfo), 200),
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
        const source = sourcesOf(knowledgeId, q.db_id).find((s) => s.id === sourceId);
        if (!source) throw new RuntimeError('NOT_FOUND', `Content source not found: ${sourceId}`);
        const params = parseParams(q.source_params);
        const prefix = source.check(q.prefix ?? '', params);
        const signal = c.req.raw.signal;
        const base = JSON.stringify([knowledgeId, sourceId, prefix, q.delimiter, q.limit, params ?? null]);
        // The nearest page whose starting token is known (page 1 needs none).
        let at = q.page;
        let token: string | undefined;
        while (at > 1) {
          token = tokens.get(`${base}#${at}`);
          if (token !== undefined) break;
          at--;
        }
        let page: RemoteListPage;
        for (;;) {
          page = await source.list({ prefix, delimiter: q.delimiter, limit: q.limit, ...(token ? { page_token: token } : {}), ...(params ? { params } : {}), signal });
          if (page.next_page) tokens.set(`${base}#${at + 1}`, page.next_page);
          if (at === q.page || !page.next_page) break;
          token = page.next_page;
          at++;
        }
        // `at` is the page read: the one asked for, or the last one when that is past the end.
        const reached = at === q.page;
        const lastCount = (at - 1) * q.limit + page.files.length + page.folders.length;
        // Past the end: an empty page, as any paged list.
        if (!reached) page = { files: [], folders: [] };
        return c.json(
          {
            source_id: source.id,
            source_name: source.name,
            prefix,
            folders: page.folders.map((f) => ({ prefix: f.path, name: f.name, is_empty: f.is_empty ?? false })),
            files: page.files.map((f) => ({
              key: f.path,
              name: f.name,
              size: f.size ?? null,
              last_modified: f.modified_at !== undefined ? new Date(f.modified_at).toISOString() : null,
              content_type: f.content_type ?? guessType(f.name),
              version: f.version ?? null,
            })),
            meta: {
              page: q.page,
              limit: q.limit,
              total_pages: reached && page.next_page ? q.page + 1 : at,
              total_count: lastCount,
              search_time_ms: Math.round((performance.now() - started) * 100) / 100,
            },
          },
          200,
        );
      },
    ),
  ];
}
