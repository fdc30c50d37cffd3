/**
 * @module server/routes/knowledge/schemas
 * The knowledge content API's wire shapes (zod, for validation and the OpenAPI document), and
 * the mapping from content records to them.
 */
import { z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { RuntimeError } from '../../../errors.js';
import type { ContentRecord } from '../../../knowledge/content/content-store.js';
import { WRITE_MODES } from '../../../knowledge/content/submit.js';
import { SEARCH_TYPES } from '../../../knowledge/vector-stores/vector-store.js';
import type { AppEnv } from '../../context.js';
import { checkJsonText } from '../../input-guard.js';

export const CONTENT_STATUSES = ['processing', 'completed', 'failed'] as const;

export const StatusCountsSchema = z
  .object({ processing: z.number().int(), completed: z.number().int(), failed: z.number().int() })
  .openapi('KnowledgeContentStatusCounts', { description: 'How many records are in each status' });

export const ContentSchema = z
  .object({
    id: z.string(),
    name: z.string().nullable(),
    description: z.string().nullable(),
    metadata: z.record(z.string(), z.unknown()).nullable(),
    type: z.string().nullable(),
    size: z.number().int().nullable(),
    reader_id: z.string().nullable().openapi({ description: 'The reader asked for, else the one that read it (for a file or text, known from the upload)' }),
    chunker: z
      .string()
      .nullable()
      .openapi({ description: 'The chunker asked for, else the one that chunked it (for a file or text, known from the upload); several joined by ", " when parts were chunked differently' }),
    chunker_settings: z
      .record(z.string(), z.unknown())
      .nullable()
      .openapi({ description: "What the chunker was built with, defaults included (chunk_size, chunk_overlap, ...); keyed by chunker when there were several; null until chunked" }),
    status: z.enum(CONTENT_STATUSES),
    status_message: z.string().nullable(),
    user_id: z.string().nullable().openapi({ description: 'The user who uploaded it; null for shared content' }),
    created_at: z.number().int().openapi({ description: 'Epoch seconds' }),
    updated_at: z.number().int().openapi({ description: 'Epoch seconds' }),
    content_hash: z.string().nullable().openapi({ description: 'SHA-256 of the source bytes (for a collection, of its children\'s digests); null until read' }),
    chunks: z.number().int().nullable().openapi({ description: 'Chunks stored for this record (for a collection, for all its children)' }),
    parent_id: z.string().nullable().openapi({ description: 'The collection (website, prefix, folder) this record is a page or file of; null for top-level content' }),
    source: z.string().nullable().openapi({ description: "A collection child's place in its collection (its URL, object key or path)" }),
    children: z
      .object({ processing: z.number().int(), completed: z.number().int(), failed: z.number().int() })
      .optional()
      .openapi({ description: 'For a collection, how its children stand (list them with GET /knowledge/content?parent_id=...)' }),
  })
  .openapi('KnowledgeContent');

export const AcceptedSchema = z
  .object({
    id: z.string(),
    name: z.string().nullable(),
    description: z.string().nullable(),
    metadata: z.record(z.string(), z.unknown()).nullable(),
    status: z.enum(['processing', 'completed', 'failed']),
  })
  .openapi('KnowledgeContentAccepted');

export const StatusSchema = z
  .object({ id: z.string(), status: z.enum(['processing', 'completed', 'failed']), status_message: z.string().nullable() })
  .openapi('KnowledgeContentStatus');

export const PageMetaSchema = z.object({ page: z.number().int(), limit: z.number().int(), total_pages: z.number().int(), total_count: z.number().int() });

export const HitSchema = z
  .object({
    id: z.string().openapi({ description: "`{content_id}_{n}`, n the chunk's 1-based position in its content: unique in a result list, stable while the content is" }),
    content: z.string(),
    name: z.string().nullable(),
    meta_data: z.record(z.string(), z.unknown()),
    content_id: z.string(),
    score: z.number(),
  })
  .openapi('KnowledgeSearchHit');

export const SelectQuery = z.object({
  knowledge_id: z.string().optional().openapi({ description: 'Required when the runtime hosts more than one knowledge base that takes content (read-only ones do not count)' }),
  db_id: z.string().optional().openapi({ description: 'The database the knowledge base is stored in' }),
});

export const idParam = z.object({ content_id: z.string().min(1).max(200).openapi({ param: { name: 'content_id', in: 'path' } }) });

export const NameField = z.string().max(500);
export const DescriptionField = z.string().max(5000);
const uploadFields = {
  name: NameField.optional(),
  description: DescriptionField.optional(),
  text_content: z.string().optional(),
  url: z.string().optional().openapi({
    description:
      'An http(s) URL, or a JSON array of up to 20 of them (one content record each). With reader_id website, crawler or video_site: ' +
      'the site, page or video to read; with bucket: s3://bucket/key or s3://bucket/prefix/',
  }),
  topic: z.string().max(1000).optional().openapi({ description: 'A search query or topic, for reader_id web_search or preprint (arXiv search, or arXiv ids)' }),
  reader_id: z.string().max(200).optional(),
  chunker: z.string().max(200).optional(),
  chunk_size: z.coerce.number().int().min(1).max(1_000_000).optional(),
  chunk_overlap: z.coerce.number().int().min(0).max(1_000_000).optional(),
  write_mode: z.enum(WRITE_MODES).optional().openapi({
    description:
      'What to do when this content (same source and settings) exists, or another version under the same name (the name given, else the file\'s name). ' +
      'upsert (default): the same content is kept (a URL is re-read, failed content retried); a new version replaces the earlier ones when it completes, ' +
      'which stay searchable until then and leave searches in the same step. skip: the same content or a name already used is left as it is (200, its record). ' +
      'insert: the same content answers 409; a name already used gets one more record, replacing nothing',
  }),
};
const FileSchema = z.custom<File>((v) => v instanceof File, { message: 'must be a file' }).openapi({ type: 'string', format: 'binary' });
const readerOptionsHelp = { description: "Options of the source reader named in reader_id, a JSON object (e.g. {\"max_pages\": 5} for website); unknown ones are refused" };
export const FormUploadSchema = z.object({
  ...uploadFields,
  metadata: z.string().optional().openapi({ description: 'JSON object' }),
  reader_options: z.string().optional().openapi(readerOptionsHelp),
  file: FileSchema.optional(),
});
export const JsonUploadSchema = z.object({
  ...uploadFields,
  metadata: z.union([z.record(z.string(), z.unknown()), z.string()]).optional(),
  reader_options: z.union([z.record(z.string(), z.unknown()), z.string()]).optional().openapi(readerOptionsHelp),
});

const remoteFields = {
  config_id: z.string().min(1).max(200).openapi({ description: 'The id of one of the knowledge base\'s remote content sources (see /knowledge/config)' }),
  path: z.string().min(1).max(2048).openapi({ description: 'A file, or a folder when it ends with "/" (every file under it becomes a child record)' }),
  name: z.string().max(1000).optional().openapi({ description: 'The record\'s name; default the path' }),
  description: uploadFields.description,
  reader_id: uploadFields.reader_id,
  chunker: uploadFields.chunker,
  chunk_size: uploadFields.chunk_size,
  chunk_overlap: uploadFields.chunk_overlap,
  write_mode: uploadFields.write_mode,
};
const sourceParamsHelp = { description: 'Per-request source settings, a JSON object; only GitHub sources take them ({"repo": "owner/repo", "branch": "..."})' };
export const FormRemoteSchema = z.object({
  ...remoteFields,
  metadata: z.string().optional().openapi({ description: 'JSON object' }),
  source_params: z.string().optional().openapi(sourceParamsHelp),
});
export const JsonRemoteSchema = z.object({
  ...remoteFields,
  metadata: z.union([z.record(z.string(), z.unknown()), z.string()]).optional(),
  source_params: z.union([z.record(z.string(), z.unknown()), z.string()]).optional().openapi(sourceParamsHelp),
});

export const SearchBodySchema = z
  .object({
    query: z.string().min(1).max(10_000),
    knowledge_id: z.string().optional(),
    db_id: z.string().optional(),
    search_type: z.enum(SEARCH_TYPES).optional(),
    max_results: z.number().int().min(1).max(1000).optional().openapi({
      description: "How many hits the search returns (default the knowledge base's maxResults, 10). They all come on one page unless meta.limit pages them",
    }),
    rerank: z.boolean().optional().openapi({ description: 'With a reranker configured: false skips it. Default true' }),
    similarity_threshold: z.number().min(0).max(1).optional().openapi({ description: 'Drop hits scored below this' }),
    filters: z
      .union([z.record(z.string(), z.unknown()), z.array(z.record(z.string(), z.unknown()))])
      .optional()
      .openapi({
        description:
          'A plain object of type-exact equalities, or a list of expressions that must all hold: {"op": EQ|NEQ|GT|GTE|LT|LTE|CONTAINS|STARTSWITH, "key", "value"}, ' +
          '{"op": "IN", "key", "values"}, {"op": AND|OR, "conditions"}, {"op": "NOT", "condition"}. A key no stored chunk has is a 422 listing the valid keys.',
      }),
    meta: z
      .object({
        limit: z.number().int().min(1).max(1000).optional().openapi({ description: 'Hits per page, paging the max_results hits in memory; default all of them on one page' }),
        page: z.number().int().min(1).max(1_000_000).default(1),
      })
      .optional(),
  })
  .openapi('KnowledgeSearchRequest');

export function toContent(r: ContentRecord): z.infer<typeof ContentSchema> {
  return {
    id: r.id,
    name: r.name,
    description: r.description,
    metadata: r.metadata,
    type: r.file_type,
    size: r.size,
    reader_id: r.reader_id,
    chunker: r.chunker,
    chunker_settings: r.chunker_settings,
    status: r.status,
    status_message: r.status_message,
    user_id: r.user_id,
    created_at: Math.floor(r.created_at / 1000),
    updated_at: Math.floor(r.updated_at / 1000),
    content_hash: r.content_hash,
    chunks: r.chunks,
    parent_id: r.parent_id,
    source: r.source_key,
  };
}

export function accepted(r: ContentRecord): z.infer<typeof AcceptedSchema> {
  return { id: r.id, name: r.name, description: r.description, metadata: r.metadata, status: r.status };
}

export type Upload = z.infer<typeof JsonUploadSchema> & { file?: File | undefined };

/** The fields that may carry a JSON object or array as text. */
const JSON_TEXT_FIELDS = ['metadata', 'reader_options', 'source_params', 'url'] as const;

/**
 * The request's fields, already validated by the schema of its media type. JSON sent as text
 * in a field goes through the input guard's depth and text rules too, as a JSON body does.
 */
export function readUpload<T = Upload>(c: Context<AppEnv>): T {
  const type = c.req.header('content-type') ?? '';
  let fields: Record<string, unknown>;
  if (/^application\/json/i.test(type)) fields = c.req.valid('json' as never);
  else if (/^(multipart\/form-data|application\/x-www-form-urlencoded)/i.test(type)) fields = c.req.valid('form' as never);
  else throw new RuntimeError('UNSUPPORTED_MEDIA_TYPE', 'Send multipart/form-data (for a file) or application/json');
  for (const name of JSON_TEXT_FIELDS) {
    const value = fields[name];
    if (typeof value === 'string') checkJsonText(value, name);
  }
  return fields as T;
}

