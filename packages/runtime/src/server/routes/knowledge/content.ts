/**
 * @module server/routes/knowledge/content
 * The knowledge content API: upload content (a file, text, URLs or a topic) that is read,
 * chunked, embedded and stored in the background; list, read, edit and delete the content
 * records. An upload answers 202 with a `processing` record, which becomes `completed` or
 * `failed` (with a `status_message`) when its job ends, in whichever runtime ran it. The rules
 * are the content service's (knowledge/content/); these routes only translate HTTP.
 */
import { z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { ContentCaller } from '../../../knowledge/content/service.js';
import { upload } from '../../../knowledge/content/upload.js';
import { parseMetadata } from '../../../knowledge/content/upload-fields.js';
import type { AppEnv, ServerContext } from '../../context.js';
import { checkJsonText } from '../../input-guard.js';
import { comparableFields, IdempotencyHeaders, idempotencyKey, idempotent } from '../../idempotency.js';
import { apiRoute, scoped, type RouteDefinition } from '../../route.js';
import { standardErrors } from '../../standard-errors.js';
import {
  AcceptedSchema,
  accepted,
  CONTENT_STATUSES,
  ContentSchema,
  DescriptionField,
  FormUploadSchema,
  idParam,
  JsonUploadSchema,
  NameField,
  PageMetaSchema,
  readUpload,
  SelectQuery,
  StatusCountsSchema,
  StatusSchema,
  toContent,
} from './schemas.js';

/** The caller as the content service sees it: who it is confined to, and who new content belongs to. */
export function contentCaller(ctx: ServerContext, c: Context<AppEnv>): ContentCaller {
  // Refuses a token that isolation cannot place.
  const scope = ctx.auth.scopedUserId(c.get('principal'));
  const tenant = ctx.auth.tenantOf(c.get('principal'));
  return { scope, owner: c.get('principal')?.userId, ...(tenant !== undefined ? { tenant } : {}) };
}

export function knowledgeContentRoutes(ctx: ServerContext): RouteDefinition[] {
  const service = ctx.content;
  return [
    apiRoute(
      scoped('knowledge:write'),
      {
        method: 'post',
        path: '/knowledge/content',
        operationId: 'uploadContent',
        tags: ['Knowledge'],
        summary: 'Upload content (a file, text or URLs); it is processed in the background',
        description:
          'Answers 202 with a `processing` record, which becomes `completed` or `failed` when its background job ends. ' +
          'Uploading under a name already used in this knowledge base (the `name` given, else the file\'s name; same owner) makes a new version: ' +
          'with write_mode upsert (default) it replaces the earlier versions atomically when it completes. Until then they stay searchable; ' +
          'in the step its chunks become searchable theirs stop being, and their records are deleted. A crash mid-way leaves the old version ' +
          'or the new one searchable, never both and never neither. An earlier upload that finishes after a later one is dropped. ' +
          'write_mode skip keeps the newest version instead (200); insert adds a record beside the others. A list of URLs or a collection ' +
          '(a website, a folder) is not versioned by name.',
        request: {
          query: SelectQuery,
          headers: IdempotencyHeaders,
          body: {
            content: {
              'multipart/form-data': { schema: FormUploadSchema },
              'application/json': { schema: JsonUploadSchema },
            },
          },
        },
        responses: {
          200: {
            description: 'This content exists already and was left as it is (write_mode upsert or skip); its record',
            content: { 'application/json': { schema: AcceptedSchema } },
          },
          202: {
            description: 'Accepted; poll the status. A JSON array of URLs answers one record per URL.',
            content: { 'application/json': { schema: z.union([AcceptedSchema, z.array(AcceptedSchema)]) } },
          },
          409: standardErrors[400],
          ...standardErrors,
        },
      },
      async (c) => {
        const q = c.req.valid('query');
        const request = readUpload(c as unknown as Context<AppEnv>);
        const make = async () => {
          const knowledge = await service.select(q.knowledge_id, q.db_id);
          const made = await upload(service, knowledge, request, () => contentCaller(ctx, c));
          if (made.kind === 'many') return c.json(made.outcomes.map((o) => accepted(o.record)), 202);
          return c.json(accepted(made.outcome.record), made.outcome.queued ? 202 : 200);
        };
        const key = idempotencyKey(c as unknown as Context<AppEnv>);
        if (key === undefined) return make();
        const body = { query: q, fields: await comparableFields(request as unknown as Record<string, unknown>) };
        // A replay answers the first request's status and body, which `make` typed.
        return (await idempotent(c as unknown as Context<AppEnv>, { store: ctx.idempotency, key, body, create: make })) as Awaited<ReturnType<typeof make>>;
      },
    ),
    apiRoute(
      scoped('knowledge:read'),
      {
        method: 'get',
        path: '/knowledge/content',
        operationId: 'listContent',
        tags: ['Knowledge'],
        summary: 'List content records',
        request: {
          query: SelectQuery.extend({
            limit: z.coerce.number().int().min(1).max(100).default(20),
            page: z.coerce.number().int().min(1).max(1_000_000).default(1),
            sort_by: z.enum(['created_at', 'updated_at', 'name']).default('created_at'),
            sort_order: z.enum(['asc', 'desc']).default('desc'),
            parent_id: z.string().min(1).max(200).optional().openapi({ description: "A collection's id: list its children instead of the top-level records" }),
            status: z.enum(CONTENT_STATUSES).optional().openapi({ description: 'Only records in this status (e.g. failed, to see what went wrong)' }),
          }),
        },
        responses: {
          200: {
            description: 'A page of content records; meta.status_counts counts every record the query selects (not only this page), so one request shows how a batch of uploads stands',
            content: { 'application/json': { schema: z.object({ data: z.array(ContentSchema), meta: PageMetaSchema.extend({ status_counts: StatusCountsSchema }) }) } },
          },
          ...standardErrors,
        },
      },
      async (c) => {
        const q = c.req.valid('query');
        const knowledge = await service.select(q.knowledge_id, q.db_id);
        const caller = contentCaller(ctx, c);
        const page = await service.list(knowledge, { parentId: q.parent_id, status: q.status, limit: q.limit, page: q.page, sortBy: q.sort_by, sortOrder: q.sort_order }, caller);
        return c.json(
          {
            data: page.data.map((record) => {
              const children = page.children?.get(record.id);
              return { ...toContent(record), ...(children ? { children } : {}) };
            }),
            meta: { page: q.page, limit: q.limit, total_pages: Math.ceil(page.total / q.limit), total_count: page.total, status_counts: page.counts },
          },
          200,
        );
      },
    ),
    apiRoute(
      scoped('knowledge:read'),
      {
        method: 'get',
        path: '/knowledge/content/{content_id}',
        operationId: 'getContent',
        tags: ['Knowledge'],
        summary: 'Get a content record',
        request: { params: idParam, query: SelectQuery },
        responses: { 200: { description: 'The content record', content: { 'application/json': { schema: ContentSchema } } }, ...standardErrors },
      },
      async (c) => {
        const q = c.req.valid('query');
        const knowledge = await service.select(q.knowledge_id, q.db_id);
        const { record, children } = await service.describe(knowledge, c.req.valid('param').content_id, contentCaller(ctx, c));
        return c.json({ ...toContent(record), ...(children ? { children } : {}) }, 200);
      },
    ),
    apiRoute(
      scoped('knowledge:read'),
      {
        method: 'get',
        path: '/knowledge/content/{content_id}/status',
        operationId: 'getContentStatus',
        tags: ['Knowledge'],
        summary: 'The processing status of a content record',
        request: { params: idParam, query: SelectQuery },
        responses: { 200: { description: 'The status', content: { 'application/json': { schema: StatusSchema } } }, ...standardErrors },
      },
      async (c) => {
        const q = c.req.valid('query');
        const knowledge = await service.select(q.knowledge_id, q.db_id);
        const r = await service.get(knowledge, c.req.valid('param').content_id, contentCaller(ctx, c).scope, contentCaller(ctx, c).tenant);
        return c.json({ id: r.id, status: r.status, status_message: r.status_message }, 200);
      },
    ),
    apiRoute(
      scoped('knowledge:write'),
      {
        method: 'patch',
        path: '/knowledge/content/{content_id}',
        operationId: 'updateContent',
        tags: ['Knowledge'],
        summary: "Edit a content record's name, description or metadata",
        request: {
          params: idParam,
          query: SelectQuery,
          body: {
            required: true,
            content: {
              'application/json': {
                schema: z.object({ name: NameField.optional(), description: DescriptionField.optional(), metadata: z.union([z.record(z.string(), z.unknown()), z.string()]).optional() }),
              },
            },
          },
        },
        responses: { 200: { description: 'The updated record', content: { 'application/json': { schema: ContentSchema } } }, ...standardErrors },
      },
      async (c) => {
        const q = c.req.valid('query');
        const body = c.req.valid('json');
        if (typeof body.metadata === 'string') checkJsonText(body.metadata, 'metadata');
        const knowledge = await service.select(q.knowledge_id, q.db_id);
        const caller = contentCaller(ctx, c);
        const updated = await service.update(knowledge, c.req.valid('param').content_id, { name: body.name, description: body.description, metadata: parseMetadata(body.metadata) }, caller);
        return c.json(toContent(updated), 200);
      },
    ),
    apiRoute(
      scoped('knowledge:delete'),
      {
        method: 'delete',
        path: '/knowledge/content/{content_id}',
        operationId: 'deleteContent',
        tags: ['Knowledge'],
        summary: 'Delete a content record and its chunks',
        request: { params: idParam, query: SelectQuery },
        responses: { 204: { description: 'Deleted' }, ...standardErrors },
      },
      async (c) => {
        const q = c.req.valid('query');
        const knowledge = await service.select(q.knowledge_id, q.db_id);
        await service.delete(knowledge, c.req.valid('param').content_id, contentCaller(ctx, c));
        return c.body(null, 204);
      },
    ),
    apiRoute(
      scoped('knowledge:delete'),
      {
        method: 'delete',
        path: '/knowledge/content',
        operationId: 'deleteAllContent',
        tags: ['Knowledge'],
        summary: 'Delete every content record of a knowledge base, with its chunks',
        request: { query: SelectQuery },
        responses: { 204: { description: 'Deleted' }, ...standardErrors },
      },
      async (c) => {
        const q = c.req.valid('query');
        const knowledge = await service.select(q.knowledge_id, q.db_id);
        // A confined caller deletes its own content only: shared content is left to admins.
        await service.deleteAll(knowledge, contentCaller(ctx, c));
        return c.body(null, 204);
      },
    ),
  ];
}
