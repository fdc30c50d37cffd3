/**
 * @module knowledge/content/upload
 * Uploads: content (a file, text, URLs or a topic) or a remote path becomes a `processing`
 * record and a durable ingestion job, in one transaction (see submit.ts); the job reads,
 * chunks, embeds and stores it (ingest-job.ts). Refusals that need no reading (an unknown
 * reader, an unsupported chunker, bad metadata, an oversized file, a URL that is not http(s))
 * are thrown here, before any record exists.
 *
 * URL content (`url`: one URL, or a JSON array of them, one record each) is fetched in the
 * background by the Knowledge, under its SSRF rules; a private address ends as a `failed`
 * record. `reader_id` may name a source reader (website, crawler, video_site, bucket for a url;
 * web_search, preprint for a topic) with its `reader_options`; what it can check without I/O is
 * refused at once, anything found while reading ends as a `failed` record saying so.
 */
import { badRequest, RuntimeError } from '../../errors.js';
import { sha256Sliced } from '../../util/utf8-slices.js';
import type { InsertChoices, SourceLocation } from '../options.js';
import type { ContentKnowledge } from './content-knowledge.js';
import { findSource, isFolder, parseSourceParams, type RemoteLocation } from './remote-content.js';
import type { ContentCaller, ContentService } from './service.js';
import { submit, type Outcome, type WriteMode } from './submit.js';
import { parseMetadata, parseReaderOptions, parseUrls } from './upload-fields.js';

/** A file as the web platform hands one over (a `File`). */
export interface UploadFile {
  readonly name: string;
  readonly type: string;
  readonly size: number;
  arrayBuffer(): Promise<ArrayBuffer>;
}

/** An upload's fields, by their wire names. */
export interface UploadRequest {
  name?: string | undefined;
  description?: string | undefined;
  metadata?: string | Record<string, unknown> | undefined;
  text_content?: string | undefined;
  url?: string | undefined;
  topic?: string | undefined;
  file?: UploadFile | undefined;
  reader_id?: string | undefined;
  reader_options?: string | Record<string, unknown> | undefined;
  chunker?: string | undefined;
  chunk_size?: number | undefined;
  chunk_overlap?: number | undefined;
  write_mode?: WriteMode | undefined;
}

/** What an upload made: one record, or one per URL when `url` was a JSON array. */
export type UploadOutcome = { kind: 'one'; outcome: Outcome } | { kind: 'many'; outcomes: Outcome[] };

/** The choices every kind of upload shares. */
function sharedChoices(request: Pick<UploadRequest, 'reader_id' | 'chunker' | 'chunk_size' | 'chunk_overlap'>, metadata: ReturnType<typeof parseMetadata>, owner: string | undefined, tenant: string | undefined): InsertChoices {
  return {
    ...(request.reader_id !== undefined ? { reader: request.reader_id } : {}),
    ...(request.chunker !== undefined ? { chunker: request.chunker } : {}),
    ...(request.chunk_size !== undefined ? { chunkSize: request.chunk_size } : {}),
    ...(request.chunk_overlap !== undefined ? { chunkOverlap: request.chunk_overlap } : {}),
    ...(metadata ? { metadata } : {}),
    ...(owner !== undefined ? { userId: owner } : {}),
    // Part of the content id: two tenants uploading the same bytes store two contents.
    ...(tenant !== undefined ? { tenantId: tenant } : {}),
  };
}

/**
 * Uploads a file, a text, URLs or a topic. `caller` is asked after the request's own checks, so
 * a malformed request is a 400 whoever sends it; the owner is the caller, whatever it sends.
 */
export async function upload(service: ContentService, knowledge: ContentKnowledge, request: UploadRequest, caller: () => ContentCaller): Promise<UploadOutcome> {
  const sources = [request.file, request.text_content, request.url, request.topic].filter((s) => s !== undefined && s !== '');
  if (sources.length !== 1) throw badRequest('Send exactly one of file, text_content, url and topic');
  const metadata = parseMetadata(request.metadata);
  const readerOptions = parseReaderOptions(request.reader_options);
  const mode: WriteMode = request.write_mode ?? 'upsert';
  const { owner, tenant } = caller();
  const fields = {
    description: request.description ?? null,
    metadata: metadata ?? null,
    reader_id: request.reader_id ?? null,
    chunker: request.chunker ?? null,
    ...(tenant !== undefined ? { tenant_id: tenant } : {}),
  };
  if ((request.url !== undefined && request.url !== '') || (request.topic !== undefined && request.topic !== '')) {
    // Without a named reader, a URL's reader follows the fetched content type, so a chunker
    // can only be checked up front against an explicitly chosen reader; otherwise a mismatch
    // fails the record.
    const choices: InsertChoices = {
      ...(request.name !== undefined ? { name: request.name } : {}),
      ...sharedChoices(request, metadata, owner, tenant),
      ...(readerOptions ? { readerOptions } : {}),
    };
    const requested: SourceLocation[] = request.url ? parseUrls(request.url).map((url) => ({ url })) : [{ topic: request.topic! }];
    // Every location is planned (and so checked) before any record is made, so one bad URL refuses the request.
    const plans = requested.map((location) => knowledge.plan(choices, location));
    const outcomes: Outcome[] = [];
    for (const plan of plans) {
      const location: SourceLocation = plan.url !== undefined ? { url: plan.url } : { topic: plan.topic ?? '' };
      const name = request.name ?? ('url' in location ? location.url : location.topic);
      // A name given to one page or topic makes it a version of that name; a name shared by a
      // list of URLs does not (they are not versions of one another), nor does a collection.
      const version = plans.length === 1 && request.name !== undefined && !knowledge.collectionReader?.(choices, location) ? request.name : undefined;
      outcomes.push(await submit(service, knowledge, mode, choices, { plan, ...location }, { name, ...fields, file_type: null, size: null }, version));
    }
    // A single URL answers like any upload; an array answers one record per URL.
    return request.url?.trim().startsWith('[') ? { kind: 'many', outcomes } : { kind: 'one', outcome: outcomes[0]! };
  }
  if (readerOptions) throw badRequest('reader_options are for a url or topic read by a source reader');
  const file = request.file;
  if (file && file.size > knowledge.maxContentBytes) {
    throw new RuntimeError('PAYLOAD_TOO_LARGE', `"${file.name}" is larger than the knowledge limit of ${knowledge.maxContentBytes} bytes`);
  }
  // The reader is picked by the file's own name; the record shows the caller's name.
  const readAs = file ? file.name || request.name : request.name;
  const choices: InsertChoices = {
    ...(readAs ? { name: readAs } : {}),
    ...(file?.type ? { mimeType: file.type } : {}),
    ...sharedChoices(request, metadata, owner, tenant),
  };
  // Read into memory before the record exists (the request body is gone once the response is
  // sent), so a body that cannot be read leaves no record behind.
  const source = file ? { file: new Uint8Array(await file.arrayBuffer()) } : { text: request.text_content ?? '' };
  // Hashed a slice at a time (10 MB in one call held the event loop ~12 ms), then planned: the
  // checks, the reader and chunker and the content id, once.
  const plan = knowledge.plan(choices, { sha256: await sha256Sliced(source.file ?? source.text ?? '') });
  const name = request.name ?? file?.name ?? null;
  const record = {
    name,
    ...fields,
    // Bytes are planned with their reader and chunker, so the record names them from the start.
    reader_id: plan.reader,
    chunker: plan.chunker ?? fields.chunker,
    file_type: file?.type || null,
    size: file ? file.size : Buffer.byteLength(request.text_content ?? ''),
  };
  // A named file or text is a version of its name: uploading it again, edited, replaces it.
  const outcome = await submit(service, knowledge, mode, choices, { plan, ...source }, record, name || undefined);
  return { kind: 'one', outcome };
}

/** A file or folder of one of the knowledge base's remote content sources, by path. */
export interface RemoteUploadRequest {
  config_id: string;
  path: string;
  name?: string | undefined;
  description?: string | undefined;
  metadata?: string | Record<string, unknown> | undefined;
  source_params?: string | Record<string, unknown> | undefined;
  reader_id?: string | undefined;
  chunker?: string | undefined;
  chunk_size?: number | undefined;
  chunk_overlap?: number | undefined;
  write_mode?: WriteMode | undefined;
}

/** Uploads a remote file (one record) or folder (a record with a child per file). */
export async function uploadRemote(service: ContentService, knowledge: ContentKnowledge, request: RemoteUploadRequest, caller: ContentCaller): Promise<Outcome> {
  const source = findSource(knowledge.contentSources, request.config_id);
  const params = parseSourceParams(request.source_params);
  // The source checks the path and params without I/O (outside its prefix, params it does not take...).
  const path = source.check(request.path, params);
  const folder = isFolder(path);
  const metadata = parseMetadata(request.metadata);
  const choices: InsertChoices = { ...(request.name !== undefined ? { name: request.name } : {}), ...sharedChoices(request, metadata, caller.owner, caller.tenant) };
  // Checked as the file would be read: by its name, or, in a folder, by the reader named
  // (without one each file's own reader takes the chunker, and a mismatch fails that file).
  const fileName = path.slice(path.lastIndexOf('/', path.length - 2) + 1);
  knowledge.checkInsert(folder && request.reader_id === undefined ? { ...choices, name: 'folder.txt', chunker: undefined } : { ...choices, name: fileName });
  const remote: RemoteLocation = { source_id: source.id, path, ...(params ? { params } : {}) };
  const contentId = knowledge.contentIdentity(choices, { remote: `${source.id}\n${source.identity(path, params)}` });
  return submit(service, knowledge, request.write_mode ?? 'upsert', choices, { remote, contentId }, {
    // The root of a source without a prefix is the path "": its record is named "/".
    name: request.name ?? (path === '' ? '/' : path),
    description: request.description ?? null,
    metadata: metadata ?? null,
    file_type: null,
    size: null,
    reader_id: request.reader_id ?? null,
    chunker: request.chunker ?? null,
  });
}
