/**
 * @module knowledge/remote-sources/remote-source
 * The contract every kind of remote content source implements, and the kinds' types.
 *
 * A remote content source is a place an operator configures on a knowledge base (a bucket, a
 * container, a SharePoint library, a repository) that users browse and ingest from by path.
 * One adapter per kind implements this interface; the routes and the ingestion code see only it.
 * The kinds themselves are listed in list.ts; this module knows none of them.
 *
 * Paths are full paths inside the place (an object key, a blob name, a path in the repository or
 * the drive), without a leading "/". A trailing "/" means a folder, and "" the source's root
 * folder, which is its `prefix` when it has one: a source with a prefix refuses paths outside it,
 * so an operator can expose one folder of a bucket.
 */
import { ConfigurationError } from '../../errors.js';

/**
 * The kinds, spelled as agno reports them (its config class name without `Config`, lower-cased).
 * list.ts must declare exactly these kinds, in this order: tsc refuses it otherwise.
 */
export const REMOTE_SOURCE_TYPES = ['s3', 'gcs', 'azureblob', 'sharepoint', 'github'] as const;
export type RemoteSourceType = (typeof REMOTE_SOURCE_TYPES)[number];

export interface RemoteFile {
  path: string;
  name: string;
  size?: number;
  /** ETag, content hash, blob sha, cTag: changes when the bytes change. */
  version?: string;
  /** Epoch ms. */
  modified_at?: number;
  content_type?: string;
}

export interface RemoteFolder {
  /** Ends with "/". */
  path: string;
  name: string;
  /** Set when the provider says (a SharePoint folder's child count); unknown otherwise. */
  is_empty?: boolean;
}

export interface RemoteListPage {
  files: RemoteFile[];
  folders: RemoteFolder[];
  /** Opaque; pass back as `page_token` for the next page. Absent on the last page. */
  next_page?: string;
}

export interface RemoteCallOptions {
  /** source_params, e.g. `{repo, branch}` for GitHub. */
  params?: Readonly<Record<string, unknown>>;
  signal?: AbortSignal;
}

export interface RemoteListOptions extends RemoteCallOptions {
  /** The folder to list (ends with "/", or "" for the root); default the source's root. */
  prefix?: string;
  /** Default "/": one level, with sub-folders. "" lists every file under the prefix, flat. */
  delimiter?: string;
  /** Entries per page, 1-1000; default 100. */
  limit?: number;
  page_token?: string;
}

export interface RemoteDownload {
  bytes: Uint8Array;
  content_type?: string;
  version?: string;
}

export interface RemoteSource {
  readonly id: string;
  readonly name: string;
  readonly type: RemoteSourceType;
  readonly metadata: Record<string, unknown> | null;
  readonly prefix: string | null;
  /** Validates a path and params without I/O (a 400 naming the problem); returns the normalised path. A trailing "/" means a folder. */
  check(path: string, params?: Readonly<Record<string, unknown>>): string;
  /** One page of a folder (files and sub-folders), as GET .../sources/{id}/files shows it. */
  list(options: RemoteListOptions): Promise<RemoteListPage>;
  /** Every file under a folder, recursively, in a stable order, lazily paged; at most `maxFiles`. */
  walk(folder: string, options?: RemoteCallOptions & { maxFiles?: number }): AsyncIterable<RemoteFile>;
  /** One file's bytes, refused past maxBytes without reading the rest. */
  download(path: string, options: RemoteCallOptions & { maxBytes: number }): Promise<RemoteDownload>;
  /** A stable identity for content ids: "s3:{bucket}:{key}", "github:{owner/repo}@{branch}:{path}", ... */
  identity(path: string, params?: Readonly<Record<string, unknown>>): string;
  /** Provider details recorded with ingested content (bucket, key, repo, site, drive...): no secrets. */
  describe(file: RemoteFile, params?: Readonly<Record<string, unknown>>): Record<string, unknown>;
}

/** What every kind's options share. */
export interface RemoteSourceBaseOptions {
  /** Unique among the knowledge base's sources; 1-128 letters, digits, ".", "_" or "-". */
  id: string;
  /** Display name; default the id. */
  name?: string;
  metadata?: Record<string, unknown> | null;
  /** The folder this source exposes (see the module notes); a trailing "/" is added. */
  prefix?: string | null;
  /** Per request (every retry its own); default 30 s. */
  timeoutMs?: number;
  /** Per connection; default 10 s. */
  connectTimeoutMs?: number;
  /** How often a throttled (429/503) request is retried; default 3. */
  maxRetries?: number;
  /**
   * The longest Retry-After waited for, in ms (default 30 s); a longer one fails at once with a
   * 503 that carries it, so the caller (an ingestion job) retries later instead of holding a slot.
   */
  maxRetryDelayMs?: number;
  /** Entries asked for per provider request while walking a folder, 1-1000; default 1000. */
  pageSize?: number;
  /** Told about retries; never given a credential. */
  logger?: { warn(message: string): void };
}

/** Structural, so it also holds across duplicated copies of this module. */
export function isRemoteSource(value: unknown): value is RemoteSource {
  if (typeof value !== 'object' || value === null) return false;
  const s = value as Partial<RemoteSource>;
  return (
    typeof s.id === 'string' &&
    typeof s.type === 'string' &&
    (REMOTE_SOURCE_TYPES as readonly string[]).includes(s.type) &&
    typeof s.list === 'function' &&
    typeof s.walk === 'function' &&
    typeof s.download === 'function' &&
    typeof s.check === 'function'
  );
}

/** Refuses two sources with one id (the routes and ingestion find sources by id). */
export function checkUniqueIds(sources: readonly { id: string }[], where: string): void {
  const seen = new Set<string>();
  for (const source of sources) {
    if (seen.has(source.id)) throw new ConfigurationError(`${where}: two content sources have the id "${source.id}"`);
    seen.add(source.id);
  }
}
