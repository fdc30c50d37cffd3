/**
 * @module knowledge/content/remote-content
 * Content from a remote content source (a bucket, a container, a SharePoint library, a GitHub
 * repository) by path: what POST /knowledge/remote-content checks before it answers, and what
 * its ingestion job reads. A path with a trailing "/" is a folder, ingested as a collection (one
 * child record per file, see collection-job.ts); any other path is one file, one record.
 *
 * Provider details (source, path, bucket, repository...) go on every chunk under the reserved
 * metadata key `remote`, so callers' metadata can neither set nor overwrite them.
 */
import { badRequest, RuntimeError } from '../../errors.js';
import type { ChildContent, FailedChild, SourceChild } from '../readers/sources/source-reader.js';
import type { RemoteFile, RemoteSource } from '../remote-sources/remote-source.js';

/** A remote path as an ingestion job carries it. */
export interface RemoteLocation {
  source_id: string;
  /** Normalised by the source's check(); ends with "/" for a folder. */
  path: string;
  params?: Record<string, unknown> | undefined;
}

/** Files a folder ingestion reads at most; a larger folder is truncated with a note. */
export const MAX_FOLDER_FILES = 10_000;

export function isFolder(path: string): boolean {
  return path === '' || path.endsWith('/');
}

/** The source a request names, or the 400 users of the reference implementation know. */
export function findSource(sources: readonly RemoteSource[] | undefined, id: string): RemoteSource {
  const source = sources?.find((s) => s.id === id);
  if (!source) throw badRequest(`Unknown content source: ${id}. Check /knowledge/config for available sources.`);
  return source;
}

/** source_params as sent: a JSON object, as an object or as its JSON text. */
export function parseSourceParams(raw: unknown): Record<string, unknown> | undefined {
  if (raw === undefined || raw === '' || raw === null) return undefined;
  let value = raw;
  if (typeof raw === 'string') {
    try {
      value = JSON.parse(raw);
    } catch {
      throw badRequest('source_params must be a valid JSON object');
    }
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw badRequest('source_params must be a JSON object');
  return value as Record<string, unknown>;
}

/** What a chunk of this file records about where it came from. */
export function remoteMeta(source: RemoteSource, file: RemoteFile, params: Record<string, unknown> | undefined): Record<string, unknown> {
  return { remote: { ...source.describe(file, params), source_id: source.id, source_type: source.type, path: file.path } };
}

/**
 * A child's record name: the file's path, or, when the upload named the folder, that name with
 * the path inside the folder (as the reference implementation names them).
 */
export function childName(folder: string, file: RemoteFile, name: string | undefined): string {
  if (name === undefined) return file.path;
  const inside = file.path.startsWith(folder) ? file.path.slice(folder.length) : file.path;
  return `${name.replace(/\/+$/, '')}/${inside}`;
}

/** The bytes of one file, with its details, ready for Knowledge.insertChild. */
export async function downloadFile(
  source: RemoteSource,
  file: RemoteFile,
  params: Record<string, unknown> | undefined,
  maxBytes: number,
  signal: AbortSignal | undefined,
): Promise<ChildContent & { version?: string | undefined }> {
  const got = await source.download(file.path, { maxBytes, ...(params ? { params } : {}), ...(signal ? { signal } : {}) });
  const mimeType = got.content_type ?? file.content_type;
  return {
    bytes: got.bytes,
    fileName: file.name,
    ...(mimeType ? { mimeType } : {}),
    meta: remoteMeta(source, file, params),
    version: got.version ?? file.version,
  };
}

/**
 * Every file under a folder as a collection child: listed lazily (the walk pages as it goes),
 * each downloaded only when the collection job reads it, so an unchanged version is skipped
 * without a download. A walk that fails part-way ends the job (it is retried): a listing that
 * stopped short must not read as "these files were removed".
 */
export async function* remoteChildren(
  source: RemoteSource,
  location: RemoteLocation,
  options: { name?: string | undefined; maxBytes: number; signal?: AbortSignal | undefined; notes: string[] },
): AsyncIterable<SourceChild | FailedChild> {
  const { params } = location;
  let count = 0;
  for await (const file of source.walk(location.path, { maxFiles: MAX_FOLDER_FILES + 1, ...(params ? { params } : {}), ...(options.signal ? { signal: options.signal } : {}) })) {
    if (++count > MAX_FOLDER_FILES) {
      options.notes.push(`only the first ${MAX_FOLDER_FILES} files of ${location.path || '/'} were read`);
      return;
    }
    const name = childName(location.path, file, options.name);
    if (file.size !== undefined && file.size > options.maxBytes) {
      yield { key: file.path, name, error: new RuntimeError('PAYLOAD_TOO_LARGE', `${file.path} is larger than the knowledge limit of ${options.maxBytes} bytes`) };
      continue;
    }
    if (file.size === 0) {
      options.notes.push(`${file.path}: empty`);
      continue;
    }
    yield {
      key: file.path,
      name,
      ...(file.version !== undefined ? { version: file.version } : {}),
      read: () => downloadFile(source, file, params, options.maxBytes, options.signal),
    };
  }
  // A folder the source does not have (object stores have no folders, only keys) lists nothing:
  // the parent's failure then says where nothing was found.
  if (count === 0) options.notes.push(`remote source "${source.id}" (${source.type}) has no files under "${location.path || '/'}"`);
}
