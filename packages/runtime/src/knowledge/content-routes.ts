/**
 * @module knowledge/content-routes
 * The knowledge content API: upload content (a file, or text) that is read, chunked, embedded
 * and stored in the background; list, read, edit and delete the content records; and search.
 *
 * An upload records the content and a durable ingestion job in one transaction and answers 202
 * with a `processing` record (see ingest-job); the record becomes `completed` or `failed` (with a
 * `status_message`) when the job ends, in whichever runtime ran it. Refusals that need no reading
 * (an unknown reader, an unsupported chunker, bad metadata, an oversized file) are answered at
 * once. A content id is a digest of the source and the settings that build it (not metadata),
 * so uploading the same bytes again is the same content: `write_mode` `upsert` (default) leaves
 * completed content as it is (200) and re-reads a URL, `skip` never re-reads, `insert` answers
 * 409.
 *
 * URL content (`url`: one URL, or a JSON array of them, one record each) is fetched in the
 * background too, by the Knowledge, under its SSRF rules (see fetch/safe-fetch); a URL that is
 * malformed or not http(s) is refused at once, a private address ends as a `failed` record.
 * `reader_id` may name a source reader (website, crawler, video_site, bucket for a `url`;
 * web_search, preprint for a `topic`), with its `reader_options`; what that reader can check
 * without I/O (a video link it cannot parse, a malformed s3:// location, unknown options) is
 * refused at once, anything found while reading (a 404, robots.txt, no captions, a missing
 * key) ends as a `failed` record saying so.
 *
 * Content belongs to the authenticated caller that uploaded it (its user id; none for the
 * security key or an open runtime, which makes it shared), and the owner is part of the content
 * id. A confined caller (a JWT user under user isolation, a service account always; see
 * auth/user-scope.ts) reads shared content and its own, changes only its own (shared content is
 * the admins'), and gets 404 for another user's ids; admins, the security key and open
 * runtimes are not confined.
 */
import { z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { KnowledgeComponent } from '../components/component.js';
import { RuntimeError } from '../errors.js';
import type { StagedData } from '../jobs/job-store.js';
import type { AppEnv, ServerContext } from '../server/context.js';
import { apiRoute, scoped, type RouteDefinition } from '../server/route.js';
import { standardErrors } from '../server/standard-errors.js';
import { isUniqueViolation } from '../storage/sql-errors.js';
import { sha256Sliced } from '../util/utf8-slices.js';
import { ContentStore, type ContentRecord } from './content-store.js';
import type { CollectionKnowledge } from './collection-job.js';
import { ingestHandler, ingestKind, ingestRef, type IngestPayload } from './ingest-job.js';
import { findSource, isFolder, parseSourceParams, type RemoteLocation } from './remote-content.js';
import { badRequest } from './errors.js';
import type { InsertChoices, InsertOptions, InsertResult, KnowledgeHit, KnowledgeSearchOptions, SourceLocation } from './knowledge.js';
import type { FailedChild, SourceChild } from './readers/reader.js';
import type { RemoteSource } from './sources/remote-source.js';
import type { Metadata } from './types.js';
import { SEARCH_TYPES } from './vector-stores/vector-store.js';

/** What these routes need of a hosted knowledge base; Knowledge implements it. */
export interface ContentKnowledge extends KnowledgeComponent {
  readonly maxContentBytes: number;
  checkInsert(choices: InsertChoices): void;
  /** Checks a url or topic and the choices for it without I/O; returns the normalised location. */
  checkSource(choices: InsertChoices, location: SourceLocation): { url?: string; topic?: string };
  /** `sha256`: the SHA-256 (hex) of the bytes or of the text's UTF-8, computed by the caller. */
  contentIdentity(choices: InsertChoices, source: { bytes: Uint8Array } | { text: string } | { sha256: string } | SourceLocation | { remote: string }): string;
  insert(options: InsertOptions): Promise<InsertResult>;
  search(query: string, options?: KnowledgeSearchOptions): Promise<KnowledgeHit[]>;
  remove(contentId: string, options?: { userId?: string | undefined }): Promise<boolean>;
  /** Collections (a website, a prefix, a crawl) are ingested as a parent with a child per item. */
  collectionReader?(choices: InsertChoices, location: SourceLocation): string | undefined;
  children?(choices: InsertChoices, location: SourceLocation, signal: AbortSignal | undefined, notes: string[]): AsyncIterable<SourceChild | FailedChild>;
  insertChild?: CollectionKnowledge['insertChild'];
  /** Remote places content is ingested from by path (POST /knowledge/remote-content). */
  readonly contentSources?: readonly RemoteSource[];
}

/** Structural, so it also holds across duplicated copies of the knowledge module. */
function isContentKnowledge(value: KnowledgeComponent): value is ContentKnowledge {
  const k = value as Partial<ContentKnowledge>;
  return (
    typeof k.insert === 'function' &&
    typeof k.search === 'function' &&
    typeof k.remove === 'function' &&
    typeof k.checkInsert === 'function' &&
    typeof k.checkSource === 'function' &&
    typeof k.contentIdentity === 'function'
  );
}

const INTERRUPTED = 'interrupted: no job is left to finish it';
const WRITE_MODES = ['upsert', 'insert', 'skip'] as const;
type WriteMode = (typeof WRITE_MODES)[number];
// A bound on the records (and background fetches) one request can start.
const MAX_URLS = 20;

/**
 * The `url` field: one URL, or a JSON array of them. Each is checked by the reader that will
 * read it (an http(s) URL for most, an s3:// location for the bucket reader).
 */
function parseUrls(raw: string): string[] {
  const text = raw.trim();
  let urls: unknown = [text];
  if (text.startsWith('[')) {
    try {
      urls = JSON.parse(text);
    } catch (cause) {
      throw badRequest('url must be a URL or a JSON array of URLs', cause);
    }
  }
  if (!Array.isArray(urls) || urls.length === 0 || !urls.every((u): u is string => typeof u === 'string')) {
    throw badRequest('url must be a URL or a non-empty JSON array of URLs');
  }
  if (urls.length > MAX_URLS) throw badRequest(`url lists ${urls.length} URLs; send at most ${MAX_URLS} per request`);
  return urls.map((u) => u.trim());
}

/** `reader_options`: a JSON object (or its text, from a form). */
function parseReaderOptions(raw: string | Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  if (raw === undefined || raw === '') return undefined;
  let value: unknown = raw;
  if (typeof raw === 'string') {
    try {
      value = JSON.parse(raw);
    } catch (cause) {
      throw badRequest('reader_options must be a JSON object', cause);
    }
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw badRequest('reader_options must be a JSON object');
  return value as Record<string, unknown>;
}

const ContentSchema = z
  .object({
    id: z.string(),
    name: z.string().nullable(),
    description: z.string().nullable(),
    metadata: z.record(z.string(), z.unknown()).nullable(),
    type: z.string().nullable(),
    size: z.number().int().nullable(),
    reader_id: z.string().nullable(),
    chunker: z.string().nullable(),
    status: z.enum(['processing', 'completed', 'failed']),
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

const AcceptedSchema = z
  .object({
    id: z.string(),
    name: z.string().nullable(),
    description: z.string().nullable(),
    metadata: z.record(z.string(), z.unknown()).nullable(),
    status: z.enum(['processing', 'completed', 'failed']),
  })
  .openapi('KnowledgeContentAccepted');

const StatusSchema = z
  .object({ id: z.string(), status: z.enum(['processing', 'completed', 'failed']), status_message: z.string().nullable() })
  .openapi('KnowledgeContentStatus');

const PageMetaSchema = z.object({ page: z.number().int(), limit: z.number().int(), total_pages: z.number().int(), total_count: z.number().int() });

const HitSchema = z
  .object({
    id: z.string(),
    content: z.string(),
    name: z.string().nullable(),
    meta_data: z.record(z.string(), z.unknown()),
    content_id: z.string(),
    score: z.number(),
  })
  .openapi('KnowledgeSearchHit');

const SelectQuery = z.object({
  knowledge_id: z.string().optional().openapi({ description: 'Required when the runtime hosts more than one knowledge base that takes content (read-only ones do not count)' }),
  db_id: z.string().optional().openapi({ description: 'The database the knowledge base is stored in' }),
});

const idParam = z.object({ content_id: z.string().min(1).max(200).openapi({ param: { name: 'content_id', in: 'path' } }) });

const name = z.string().max(500);
const description = z.string().max(5000);
const uploadFields = {
  name: name.optional(),
  description: description.optional(),
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
      'What to do when this content (same source and settings) exists: upsert (default) keeps completed content and re-reads a URL, ' +
      'retrying failed content; skip leaves it as it is; insert answers 409',
  }),
};
const FileSchema = z.custom<File>((v) => v instanceof File, { message: 'must be a file' }).openapi({ type: 'string', format: 'binary' });
const readerOptionsHelp = { description: "Options of the source reader named in reader_id, a JSON object (e.g. {\"max_pages\": 5} for website); unknown ones are refused" };
const FormUploadSchema = z.object({
  ...uploadFields,
  metadata: z.string().optional().openapi({ description: 'JSON object' }),
  reader_options: z.string().optional().openapi(readerOptionsHelp),
  file: FileSchema.optional(),
});
const JsonUploadSchema = z.object({
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
const FormRemoteSchema = z.object({
  ...remoteFields,
  metadata: z.string().optional().openapi({ description: 'JSON object' }),
  source_params: z.string().optional().openapi(sourceParamsHelp),
});
const JsonRemoteSchema = z.object({
  ...remoteFields,
  metadata: z.union([z.record(z.string(), z.unknown()), z.string()]).optional(),
  source_params: z.union([z.record(z.string(), z.unknown()), z.string()]).optional().openapi(sourceParamsHelp),
});

const SearchBodySchema = z
  .object({
    query: z.string().min(1).max(10_000),
    knowledge_id: z.string().optional(),
    db_id: z.string().optional(),
    search_type: z.enum(SEARCH_TYPES).optional(),
    max_results: z.number().int().min(1).max(1000).optional(),
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
    meta: z.object({ limit: z.number().int().min(1).max(1000).default(20), page: z.number().int().min(1).max(1_000_000).default(1) }).optional(),
  })
  .openapi('KnowledgeSearchRequest');

/** agno's rule: metadata that is not a JSON object is kept, under `value`. */
function parseMetadata(raw: string | Record<string, unknown> | undefined): Metadata | undefined {
  if (raw === undefined || raw === '') return undefined;
  if (typeof raw === 'object') return raw;
  try {
    const parsed: unknown = JSON.parse(raw);
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) return parsed as Metadata;
  } catch {
    // Not JSON: kept as text below.
  }
  return { value: raw };
}

/**
 * A confined caller changes only its own content. It reaches no other user's (those are not
 * found), so what remains is shared content: visible to every user, changed by admins only.
 */
function mustOwn(record: ContentRecord, scope: string | undefined): void {
  if (scope !== undefined && record.user_id !== scope) {
    throw new RuntimeError('FORBIDDEN', `Content with id '${record.id}' is shared with every user: only an admin can change or delete it`);
  }
}

function toContent(r: ContentRecord): z.infer<typeof ContentSchema> {
  return {
    id: r.id,
    name: r.name,
    description: r.description,
    metadata: r.metadata,
    type: r.file_type,
    size: r.size,
    reader_id: r.reader_id,
    chunker: r.chunker,
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

function accepted(r: ContentRecord): z.infer<typeof AcceptedSchema> {
  return { id: r.id, name: r.name, description: r.description, metadata: r.metadata, status: r.status };
}

type Upload = z.infer<typeof JsonUploadSchema> & { file?: File | undefined };

/** The request's fields, already validated by the schema of its media type. */
function readUpload<T = Upload>(c: Context<AppEnv>): T {
  const type = c.req.header('content-type') ?? '';
  if (/^application\/json/i.test(type)) return c.req.valid('json' as never) as T;
  if (/^(multipart\/form-data|application\/x-www-form-urlencoded)/i.test(type)) return c.req.valid('form' as never) as T;
  throw new RuntimeError('UNSUPPORTED_MEDIA_TYPE', 'Send multipart/form-data (for a file) or application/json');
}

export function knowledgeContentRoutes(ctx: ServerContext): RouteDefinition[] {
  const store = new ContentStore(ctx.db);
  const swept = new Map<string, Promise<void>>();
  for (const knowledge of ctx.knowledge.filter(isContentKnowledge)) ctx.jobs.register(ingestKind(knowledge.id), ingestHandler(knowledge, store, ctx.log));

  const select = async (knowledgeId: string | undefined, dbId: string | undefined): Promise<ContentKnowledge> => {
    const hosted = ctx.knowledge.filter(isContentKnowledge);
    if (hosted.length === 0) throw new RuntimeError('NOT_FOUND', 'This runtime hosts no knowledge base that accepts content');
    let knowledge: ContentKnowledge | undefined;
    if (knowledgeId !== undefined) {
      knowledge = hosted.find((k) => k.id === knowledgeId);
      if (!knowledge && ctx.knowledge.some((k) => k.id === knowledgeId)) {
        // Hosted, but not a base that takes content (a read-only one, such as bundled docs): "not found" would mislead.
        throw badRequest(`Knowledge base "${knowledgeId}" is read-only: it takes no content and is not searched here. Use ${hosted.map((k) => `"${k.id}"`).join(' or ')}`);
      }
      if (!knowledge) throw new RuntimeError('NOT_FOUND', `Knowledge base "${knowledgeId}" not found`);
    } else if (hosted.length > 1) {
      throw badRequest(`knowledge_id is required: this runtime hosts ${hosted.length} knowledge bases that take content (${hosted.map((k) => k.id).join(', ')})`);
    } else {
      knowledge = hosted[0]!;
    }
    if (dbId !== undefined && (knowledge.dbId ?? ctx.db.id) !== dbId) {
      throw new RuntimeError('NOT_FOUND', `Knowledge base "${knowledge.id}" is not stored in database "${dbId}"`);
    }
    await sweep(knowledge.id);
    return knowledge;
  };

  // Once per knowledge base and runtime: a record `processing` with no job left to finish it
  // (from before ingestion was durable) would never end.
  const sweep = (knowledgeId: string): Promise<void> => {
    let done = swept.get(knowledgeId);
    if (!done) {
      done = store
        .failOrphans(knowledgeId, INTERRUPTED)
        .then((n) => {
          if (n > 0) ctx.log.warn(`knowledge "${knowledgeId}": marked ${n} interrupted upload(s) as failed`);
        })
        .catch((e: unknown) => {
          swept.delete(knowledgeId);
          throw e;
        });
      swept.set(knowledgeId, done);
    }
    return done;
  };

  /** The user the caller is confined to under user isolation (undefined: not confined). */
  const scopeOf = (c: Context<AppEnv>): string | undefined => ctx.auth.scopedUserId(c.get('principal'));

  /** Another user's content is "not found" to a confined caller, so its ids tell nothing. */
  const mustGet = async (knowledge: ContentKnowledge, id: string, visibleTo: string | undefined): Promise<ContentRecord> => {
    const record = await store.get(knowledge.id, id, visibleTo);
    if (!record) throw new RuntimeError('NOT_FOUND', `Content with id '${id}' not found`);
    return record;
  };

  type Source = { file: Uint8Array } | { text: string } | SourceLocation | { remote: RemoteLocation; identity: string };
  type Outcome = { record: ContentRecord; queued: boolean };

  /**
   * Records content and its ingestion job in one transaction, or (same content already there)
   * applies the write mode: `insert` refuses, `skip` changes nothing, `upsert` changes nothing
   * for completed bytes but queues a URL (to re-read) or failed content (to retry).
   */
  const submit = async (
    knowledge: ContentKnowledge,
    mode: WriteMode,
    choices: InsertChoices,
    source: Source,
    fields: { name: string | null; description: string | null; metadata: Metadata | null; file_type: string | null; size: number | null; reader_id: string | null; chunker: string | null },
  ): Promise<Outcome> => {
    // The owner travels in the choices: it is part of the id, and the job stores chunks under it.
    const owner = choices.userId ?? null;
    // Bytes and text are hashed a slice at a time: 10 MB in one call held the event loop ~12 ms.
    const identity =
      'file' in source ? { sha256: await sha256Sliced(source.file) } : 'text' in source ? { sha256: await sha256Sliced(source.text) } : 'remote' in source ? { remote: source.identity } : source;
    const id = knowledge.contentIdentity(choices, identity);
    const payload: IngestPayload = {
      content_id: id,
      source: 'file' in source ? 'file' : 'text' in source ? 'text' : 'url' in source ? 'url' : 'remote' in source ? 'remote' : 'topic',
      choices,
      ...('remote' in source ? { remote: source.remote } : {}),
      ...('url' in source ? { url: source.url, titleFromPage: choices.name === undefined } : {}),
      ...('topic' in source ? { topic: source.topic, titleFromPage: choices.name === undefined } : {}),
    };
    const kind = ingestKind(knowledge.id);
    const ref = ingestRef(knowledge.id, id);
    /** What an upload does to the record it finds: `insert` refuses, a refresh queues a job again. */
    const decide = (existing: ContentRecord): 'keep' | 'refresh' => {
      if (mode === 'insert') {
        throw new RuntimeError('CONFLICT', `Content ${id} already exists (status ${existing.status}); send write_mode upsert or skip to keep it`);
      }
      // A url, topic or remote path is read again (the page or the results may have changed); bytes are not.
      const refresh = mode === 'upsert' && existing.status !== 'processing' && ('url' in source || 'topic' in source || 'remote' in source || existing.status === 'failed');
      return refresh ? 'refresh' : 'keep';
    };
    const record = (data: StagedData | undefined) =>
      ctx.db.transaction(async (tx): Promise<Outcome> => {
        const job = { kind, ref, payload: payload as unknown as Record<string, unknown>, data };
        const records = new ContentStore(tx);
        const existing = await records.get(knowledge.id, id);
        if (!existing) {
          const created = await records.create({ id, knowledge_id: knowledge.id, ...fields, user_id: owner, status: 'processing', status_message: null });
          await ctx.jobs.store.enqueue(job, tx);
          return { record: created, queued: true };
        }
        if (decide(existing) === 'keep') return { record: existing, queued: false };
        const updated = await records.update(knowledge.id, id, { status: 'processing', status_message: null, description: fields.description ?? undefined, metadata: fields.metadata ?? undefined });
        await ctx.jobs.store.deleteByRef(ref, tx);
        await ctx.jobs.store.enqueue(job, tx);
        return { record: updated!, queued: true };
      });
    const data = 'file' in source ? source.file : 'text' in source ? source.text : undefined;
    let outcome: Outcome;
    try {
      if (data === undefined) {
        outcome = await record(undefined);
      } else {
        // Content that is there already and stays as it is needs its bytes stored nowhere.
        const known = await store.get(knowledge.id, id);
        outcome = known && decide(known) === 'keep' ? { record: known, queued: false } : await ctx.jobs.store.withData(data, record);
      }
    } catch (error) {
      // Two identical uploads at once: the other one created it.
      if (!isUniqueViolation(error)) throw error;
      const existing = await store.get(knowledge.id, id);
      if (!existing) throw error;
      outcome = { record: existing, queued: false };
    }
    if (outcome.queued) ctx.jobs.wake();
    return outcome;
  };

  /**
   * Chunks first: a failure then leaves the record, so the delete can be retried. A job still
   * running finds its record gone when it ends and removes what it stored.
   */
  const removeContent = async (knowledge: ContentKnowledge, id: string, ownedBy: string | undefined): Promise<void> => {
    // A collection's children go with it (they have its owner), chunks first as for the parent itself.
    for (const child of await store.children(knowledge.id, id)) await knowledge.remove(child.id, { userId: ownedBy });
    await knowledge.remove(id, { userId: ownedBy });
    await ctx.db.transaction(async (tx) => {
      await ctx.jobs.store.deleteByRef(ingestRef(knowledge.id, id), tx);
      await new ContentStore(tx).delete(knowledge.id, id);
    });
  };

  return [
    apiRoute(
      scoped('knowledge:write'),
      {
        method: 'post',
        path: '/knowledge/content',
        operationId: 'uploadContent',
        tags: ['Knowledge'],
        summary: 'Upload content (a file, text or URLs); it is processed in the background',
        request: {
          query: SelectQuery,
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
        const upload = readUpload(c as unknown as Context<AppEnv>);
        const knowledge = await select(q.knowledge_id, q.db_id);
        const sources = [upload.file, upload.text_content, upload.url, upload.topic].filter((s) => s !== undefined && s !== '');
        if (sources.length !== 1) throw badRequest('Send exactly one of file, text_content, url and topic');
        const metadata = parseMetadata(upload.metadata);
        const readerOptions = parseReaderOptions(upload.reader_options);
        const mode: WriteMode = upload.write_mode ?? 'upsert';
        // Refuses a token that isolation cannot place; the owner is the caller, whatever it sends.
        scopeOf(c);
        const owner = c.get('principal')?.userId;
        if ((upload.url !== undefined && upload.url !== '') || (upload.topic !== undefined && upload.topic !== '')) {
          // Without a named reader, a URL's reader follows the fetched content type, so a chunker
          // can only be checked up front against an explicitly chosen reader; otherwise a
          // mismatch fails the record.
          const choices: InsertChoices = {
            ...(upload.name !== undefined ? { name: upload.name } : {}),
            ...(upload.reader_id !== undefined ? { reader: upload.reader_id } : {}),
            ...(upload.chunker !== undefined ? { chunker: upload.chunker } : {}),
            ...(upload.chunk_size !== undefined ? { chunkSize: upload.chunk_size } : {}),
            ...(upload.chunk_overlap !== undefined ? { chunkOverlap: upload.chunk_overlap } : {}),
            ...(metadata ? { metadata } : {}),
            ...(readerOptions ? { readerOptions } : {}),
            ...(owner !== undefined ? { userId: owner } : {}),
          };
          const requested: SourceLocation[] = upload.url ? parseUrls(upload.url).map((url) => ({ url })) : [{ topic: upload.topic! }];
          // Every location is checked before any record is made, so one bad URL refuses the request.
          const locations = requested.map((location): SourceLocation => {
            const checked = knowledge.checkSource(choices, location);
            return checked.url !== undefined ? { url: checked.url } : { topic: checked.topic ?? ('topic' in location ? location.topic : '') };
          });
          const outcomes: Outcome[] = [];
          for (const location of locations) {
            outcomes.push(
              await submit(knowledge, mode, choices, location, {
                name: upload.name ?? ('url' in location ? location.url : location.topic),
                description: upload.description ?? null,
                metadata: metadata ?? null,
                file_type: null,
                size: null,
                reader_id: upload.reader_id ?? null,
                chunker: upload.chunker ?? null,
              }),
            );
          }
          // A single URL answers like any upload; an array answers one record per URL.
          if (upload.url?.trim().startsWith('[')) return c.json(outcomes.map((o) => accepted(o.record)), 202);
          return c.json(accepted(outcomes[0]!.record), outcomes[0]!.queued ? 202 : 200);
        }
        if (readerOptions) throw badRequest('reader_options are for a url or topic read by a source reader');
        const file = upload.file;
        if (file && file.size > knowledge.maxContentBytes) {
          throw new RuntimeError('PAYLOAD_TOO_LARGE', `"${file.name}" is larger than the knowledge limit of ${knowledge.maxContentBytes} bytes`);
        }
        // The reader is picked by the file's own name; the record shows the caller's name.
        const readAs = file ? file.name || upload.name : upload.name;
        const choices: InsertChoices = {
          ...(readAs ? { name: readAs } : {}),
          ...(file?.type ? { mimeType: file.type } : {}),
          ...(upload.reader_id !== undefined ? { reader: upload.reader_id } : {}),
          ...(upload.chunker !== undefined ? { chunker: upload.chunker } : {}),
          ...(upload.chunk_size !== undefined ? { chunkSize: upload.chunk_size } : {}),
          ...(upload.chunk_overlap !== undefined ? { chunkOverlap: upload.chunk_overlap } : {}),
          ...(metadata ? { metadata } : {}),
          ...(owner !== undefined ? { userId: owner } : {}),
        };
        knowledge.checkInsert(choices);

        // Read into memory before the record exists (the request body is gone once the response
        // is sent), so a body that cannot be read leaves no record behind.
        const source: Source = file ? { file: new Uint8Array(await file.arrayBuffer()) } : { text: upload.text_content ?? '' };
        const outcome = await submit(knowledge, mode, choices, source, {
          name: upload.name ?? file?.name ?? null,
          description: upload.description ?? null,
          metadata: metadata ?? null,
          file_type: file?.type || null,
          size: file ? file.size : Buffer.byteLength(upload.text_content ?? ''),
          reader_id: upload.reader_id ?? null,
          chunker: upload.chunker ?? null,
        });
        return c.json(accepted(outcome.record), outcome.queued ? 202 : 200);
      },
    ),
    apiRoute(
      scoped('knowledge:write'),
      {
        method: 'post',
        path: '/knowledge/remote-content',
        operationId: 'uploadRemoteContent',
        tags: ['Knowledge'],
        summary: 'Ingest a file or a folder of a remote content source; it is processed in the background',
        request: {
          query: SelectQuery,
          body: {
            content: {
              'multipart/form-data': { schema: FormRemoteSchema },
              'application/json': { schema: JsonRemoteSchema },
            },
          },
        },
        responses: {
          200: {
            description: 'This content exists already and was left as it is (write_mode skip); its record',
            content: { 'application/json': { schema: AcceptedSchema } },
          },
          202: { description: 'Accepted; poll the status. A folder is one record with a child record per file.', content: { 'application/json': { schema: AcceptedSchema } } },
          409: standardErrors[400],
          ...standardErrors,
        },
      },
      async (c) => {
        const q = c.req.valid('query');
        const body = readUpload<z.infer<typeof JsonRemoteSchema>>(c as unknown as Context<AppEnv>);
        const knowledge = await select(q.knowledge_id, q.db_id);
        // Refuses a token that isolation cannot place; the owner is the caller, whatever it sends.
        scopeOf(c);
        const owner = c.get('principal')?.userId;
        const source = findSource(knowledge.contentSources, body.config_id);
        const params = parseSourceParams(body.source_params);
        // The source checks the path and params without I/O (outside its prefix, params it does not take...).
        const path = source.check(body.path, params);
        const folder = isFolder(path);
        const metadata = parseMetadata(body.metadata);
        const choices: InsertChoices = {
          ...(body.name !== undefined ? { name: body.name } : {}),
          ...(body.reader_id !== undefined ? { reader: body.reader_id } : {}),
          ...(body.chunker !== undefined ? { chunker: body.chunker } : {}),
          ...(body.chunk_size !== undefined ? { chunkSize: body.chunk_size } : {}),
          ...(body.chunk_overlap !== undefined ? { chunkOverlap: body.chunk_overlap } : {}),
          ...(metadata ? { metadata } : {}),
          ...(owner !== undefined ? { userId: owner } : {}),
        };
        // Checked as the file would be read: by its name, or, in a folder, by the reader named
        // (without one each file's own reader takes the chunker, and a mismatch fails that file).
        const fileName = path.slice(path.lastIndexOf('/', path.length - 2) + 1);
        knowledge.checkInsert(folder && body.reader_id === undefined ? { ...choices, name: 'folder.txt', chunker: undefined } : { ...choices, name: fileName });
        const remote: RemoteLocation = { source_id: source.id, path, ...(params ? { params } : {}) };
        const outcome = await submit(knowledge, body.write_mode ?? 'upsert', choices, { remote, identity: `${source.id}\n${source.identity(path, params)}` }, {
          // The root of a source without a prefix is the path "": its record is named "/".
          name: body.name ?? (path === '' ? '/' : path),
          description: body.description ?? null,
          metadata: metadata ?? null,
          file_type: null,
          size: null,
          reader_id: body.reader_id ?? null,
          chunker: body.chunker ?? null,
        });
        return c.json(accepted(outcome.record), outcome.queued ? 202 : 200);
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
          }),
        },
        responses: {
          200: { description: 'A page of content records', content: { 'application/json': { schema: z.object({ data: z.array(ContentSchema), meta: PageMetaSchema }) } } },
          ...standardErrors,
        },
      },
      async (c) => {
        const q = c.req.valid('query');
        const knowledge = await select(q.knowledge_id, q.db_id);
        const visibleTo = scopeOf(c);
        if (q.parent_id !== undefined) await mustGet(knowledge, q.parent_id, visibleTo);
        const page = await store.list({
          knowledgeId: knowledge.id,
          parentId: q.parent_id,
          limit: q.limit,
          page: q.page,
          sortBy: q.sort_by,
          sortOrder: q.sort_order,
          visibleTo,
        });
        return c.json(
          { data: page.data.map(toContent), meta: { page: q.page, limit: q.limit, total_pages: Math.ceil(page.total / q.limit), total_count: page.total } },
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
        const knowledge = await select(q.knowledge_id, q.db_id);
        const record = await mustGet(knowledge, c.req.valid('param').content_id, scopeOf(c));
        const counts = record.parent_id === null ? await store.childCounts(knowledge.id, record.id) : undefined;
        const isCollection = counts !== undefined && counts.processing + counts.completed + counts.failed > 0;
        return c.json({ ...toContent(record), ...(isCollection ? { children: counts } : {}) }, 200);
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
        const knowledge = await select(q.knowledge_id, q.db_id);
        const r = await mustGet(knowledge, c.req.valid('param').content_id, scopeOf(c));
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
                schema: z.object({ name: name.optional(), description: description.optional(), metadata: z.union([z.record(z.string(), z.unknown()), z.string()]).optional() }),
              },
            },
          },
        },
        responses: { 200: { description: 'The updated record', content: { 'application/json': { schema: ContentSchema } } }, ...standardErrors },
      },
      async (c) => {
        const q = c.req.valid('query');
        const body = c.req.valid('json');
        const knowledge = await select(q.knowledge_id, q.db_id);
        const id = c.req.valid('param').content_id;
        const scope = scopeOf(c);
        mustOwn(await mustGet(knowledge, id, scope), scope);
        const metadata = parseMetadata(body.metadata);
        // Only the record changes: stored chunks keep the metadata they were indexed with.
        if (metadata) knowledge.checkInsert({ metadata });
        const updated = await store.update(knowledge.id, id, { name: body.name, description: body.description, metadata });
        if (!updated) throw new RuntimeError('NOT_FOUND', `Content with id '${id}' not found`);
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
        const knowledge = await select(q.knowledge_id, q.db_id);
        const id = c.req.valid('param').content_id;
        const scope = scopeOf(c);
        mustOwn(await mustGet(knowledge, id, scope), scope);
        await removeContent(knowledge, id, scope);
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
        const knowledge = await select(q.knowledge_id, q.db_id);
        // A confined caller deletes its own content only: shared content is left to admins.
        const scope = scopeOf(c);
        for (const id of await store.ids(knowledge.id, { ownedBy: scope })) await removeContent(knowledge, id, scope);
        return c.body(null, 204);
      },
    ),
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
        const knowledge = await select(body.knowledge_id ?? q.knowledge_id, body.db_id ?? q.db_id);
        const started = performance.now();
        const hits = await knowledge.search(body.query, {
          ...(body.max_results !== undefined ? { limit: body.max_results } : {}),
          ...(body.search_type !== undefined ? { searchType: body.search_type } : {}),
          ...(body.filters !== undefined ? { filters: body.filters as KnowledgeSearchOptions['filters'] } : {}),
          ...(body.rerank !== undefined ? { rerank: body.rerank } : {}),
          ...(body.similarity_threshold !== undefined ? { similarityThreshold: body.similarity_threshold } : {}),
          userId: scopeOf(c),
        });
        const searchTimeMs = Math.round((performance.now() - started) * 100) / 100;
        // agno pages in memory over the hits of one search.
        const { limit, page } = body.meta ?? { limit: 20, page: 1 };
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
