/**
 * @module knowledge/readers/sources/bucket
 * `bucket`: objects in S3-compatible storage. `url` is `s3://bucket/key` (one object) or
 * `s3://bucket/prefix/` / `s3://bucket` (every object under the prefix, at most S3_MAX_OBJECTS
 * or `reader_options.max_objects`). Each object is read by the reader its extension (then its
 * Content-Type) picks, so its documents chunk as that reader's do; they carry `bucket`, `key`
 * and `url` (`s3://bucket/key`) metadata. Under a prefix, an object that cannot be read is
 * skipped with a note; a single object's failure fails the read.
 *
 * Settings: S3_ENDPOINT (S3-compatible storage; unset means AWS), S3_REGION, S3_ACCESS_KEY_ID,
 * S3_SECRET_ACCESS_KEY, S3_SESSION_TOKEN (the AWS_* names are read when these are unset),
 * S3_FORCE_PATH_STYLE (default true), S3_MAX_OBJECTS (default 100).
 *
 * SSRF: the endpoint is the operator's, like any configured service: requests to its host may
 * reach an internal address (MinIO on the LAN), pinned to the address checked, with timeouts,
 * no redirects, and each object capped at what is left of maxContentBytes. The caller chooses
 * only the bucket and key: the bucket must be a valid bucket name and, with path-style
 * addressing, is never part of the host name. Without S3_ENDPOINT (AWS), the knowledge base's
 * address rules apply as to any URL.
 */
import { badRequest, RuntimeError, unprocessable } from '../../../errors.js';
import { redact } from '../../../net/redact.js';
import type { Document, ReaderInput } from '../../types.js';
import { s3Access, type S3Access } from './providers/s3.js';
import { chunkersWithDefault } from '../reader.js';
import { knownOptions, optionalInt, refuseBytes, type CollectionReader, type FailedChild, type SourceChild, type SourceContext, type SourceInput, type SourceResult } from './source-reader.js';
import { readChild, readWholeCollection } from './collection.js';
import type { S3Settings } from '../../../settings/sources.js';

export interface S3Location {
  bucket: string;
  /** One object... */
  key?: string | undefined;
  /** ...or every object under this prefix ('' for the whole bucket). */
  prefix?: string | undefined;
}

const BUCKET = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;

/** A name S3 accepts for a bucket (3-63 lower-case letters, digits, dots, hyphens; not an IP address), which also cannot bend a host name. */
export function isBucketName(name: string): boolean {
  return BUCKET.test(name) && !name.includes('..') && !/^\d+\.\d+\.\d+\.\d+$/.test(name);
}

/** `s3://bucket/key`, `s3://bucket/prefix/` or `s3://bucket`; a trailing `/` means a prefix. */
export function parseS3Url(raw: string): S3Location {
  const text = raw.trim();
  if (!/^s3:\/\//i.test(text)) throw badRequest(`bucket reader: "${raw}" is not an s3:// location (s3://bucket/key or s3://bucket/prefix/)`);
  const rest = text.slice(5);
  const slash = rest.indexOf('/');
  const bucket = slash === -1 ? rest : rest.slice(0, slash);
  const path = slash === -1 ? '' : rest.slice(slash + 1);
  if (!isBucketName(bucket)) {
    throw badRequest(`bucket reader: "${bucket}" is not a valid bucket name (3-63 lower-case letters, digits, dots and hyphens)`);
  }
  if (path.length > 1024) throw badRequest('bucket reader: an object key is at most 1024 characters');
  if ([...path].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f)) throw badRequest('bucket reader: an object key cannot contain control characters');
  return path === '' || path.endsWith('/') ? { bucket, prefix: path } : { bucket, key: path };
}

export class BucketReader implements CollectionReader {
  readonly id = 'bucket';
  readonly name = 'BucketReader';
  readonly description = 'Reads objects from S3-compatible storage (one object, or every object under a prefix), each by the reader its extension picks';
  readonly chunkers = chunkersWithDefault('FixedSizeChunker');
  readonly contentTypes = ['url', 'file'] as const;
  readonly source = 'url';

  constructor(
    private readonly settings: S3Settings = {
      endpoint: undefined,
      region: 'us-east-1',
      accessKeyId: undefined,
      secretAccessKey: undefined,
      sessionToken: undefined,
      forcePathStyle: true,
      maxObjects: 100,
    },
  ) {}

  read(input: ReaderInput): Promise<Document[]> {
    return Promise.reject(refuseBytes(this, input));
  }

  check(input: SourceInput): { url: string } {
    if (input.url === undefined) throw badRequest('The bucket reader needs a url: s3://bucket/key or s3://bucket/prefix/');
    knownOptions(input.options, this.id, ['max_objects']);
    optionalInt(input.options, 'max_objects', this.id, 1, this.settings.maxObjects);
    const location = parseS3Url(input.url);
    return { url: `s3://${location.bucket}/${location.key ?? location.prefix ?? ''}` };
  }

  isCollection(input: SourceInput): boolean {
    return parseS3Url(this.check(input).url).prefix !== undefined;
  }

  async readSource(input: SourceInput, context: SourceContext): Promise<SourceResult> {
    const { url } = this.check(input);
    const location = parseS3Url(url);
    if (location.key === undefined) {
      const notes: string[] = [];
      return readWholeCollection(this.children(input, context, notes), context, notes, {
        name: input.name,
        title: url,
        empty: () => unprocessable(`bucket reader: no objects to read under ${url}`),
      });
    }
    const { s3, secrets } = this.access(context);
    const where = `s3://${location.bucket}/${location.key}`;
    try {
      const content = await this.object(s3, location.bucket, location.key, context.maxBytes).read();
      const read = await readChild(content, context);
      const documents = read.documents.map((doc) => ({ ...doc, name: input.name ?? location.key }));
      return { parts: [{ reader: read.reader, documents }], title: location.key.split('/').pop() || location.key, size: read.size, hash: read.hash, notes: [] };
    } catch (error) {
      throw s3Failure(error, where, secrets);
    }
  }

  /** Every object under the prefix (at most max_objects), one child each. */
  async *children(input: SourceInput, context: SourceContext, notes: string[] = []): AsyncIterable<SourceChild | FailedChild> {
    const { url } = this.check(input);
    const location = parseS3Url(url);
    const { s3, secrets } = this.access(context);
    if (location.key !== undefined) {
      yield this.child(this.object(s3, location.bucket, location.key, context.maxBytes), secrets);
      return;
    }
    const max = optionalInt(input.options, 'max_objects', this.id, 1, this.settings.maxObjects) ?? this.settings.maxObjects;
    const listing = await s3.list(location.bucket, location.prefix ?? '', max).catch((e: unknown) => {
      throw s3Failure(e, url, secrets);
    });
    if (listing.truncated) notes.push(`only the first ${max} objects under ${url} were read`);
    for (const object of listing.objects) {
      // Folder markers and empty objects hold nothing to read.
      if (object.key.endsWith('/') || object.size === 0) continue;
      yield this.child(this.object(s3, location.bucket, object.key, context.maxBytes, object.etag), secrets);
    }
  }

  private access(context: SourceContext): { s3: S3Access; secrets: (string | undefined)[] } {
    const { accessKeyId, secretAccessKey } = this.settings;
    if (!accessKeyId || !secretAccessKey) {
      throw badRequest('The bucket reader is not configured: set S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY (with S3_ENDPOINT and S3_REGION for storage other than AWS)');
    }
    return { s3: s3Access({ ...this.settings, accessKeyId, secretAccessKey }, context), secrets: [accessKeyId, secretAccessKey, this.settings.sessionToken] };
  }

  private object(s3: S3Access, bucket: string, key: string, maxBytes: number, etag?: string): SourceChild {
    const url = `s3://${bucket}/${key}`;
    const fileName = key.split('/').pop() || key;
    return {
      key: url,
      name: key,
      ...(etag ? { version: etag } : {}),
      read: async () => {
        const { body, contentType } = await s3.get(bucket, key, maxBytes);
        return { bytes: body, fileName, mimeType: contentType, documentId: url, meta: { bucket, key, url } };
      },
    };
  }

  /** A child whose failures are typed and name the object, never a credential. */
  private child(object: SourceChild, secrets: readonly (string | undefined)[]): SourceChild {
    return {
      ...object,
      read: () =>
        object.read().catch((e: unknown) => {
          throw s3Failure(e, object.key, secrets);
        }),
    };
  }
}

/** An S3 or transport failure as a typed error that names the object and never a credential. */
export function s3Failure(error: unknown, where: string, secrets: readonly (string | undefined)[]): RuntimeError {
  const clean = (text: string) => redact(text, secrets);
  if (RuntimeError.isInstance(error)) return new RuntimeError(error.code, clean(error.message), { cause: error });
  const e = error as { name?: unknown; message?: unknown; $metadata?: { httpStatusCode?: unknown } };
  const code = typeof e.name === 'string' ? e.name : 'Error';
  const status = typeof e.$metadata?.httpStatusCode === 'number' ? e.$metadata.httpStatusCode : undefined;
  const said = typeof e.message === 'string' && e.message && e.message !== code && !/^UnknownError$/.test(e.message) ? `: ${e.message}` : '';
  if (code === 'NoSuchKey' || (code === 'NotFound' && status === 404)) return new RuntimeError('NOT_FOUND', clean(`bucket reader: ${where} does not exist (NoSuchKey)`), { cause: error });
  if (code === 'NoSuchBucket') return new RuntimeError('NOT_FOUND', clean(`bucket reader: the bucket of ${where} does not exist (NoSuchBucket)`), { cause: error });
  if (['InvalidAccessKeyId', 'SignatureDoesNotMatch', 'AccessDenied', 'InvalidToken', 'ExpiredToken'].includes(code) || status === 401 || status === 403) {
    return badRequest(clean(`bucket reader: S3 refused access to ${where} (${code}); check S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY`), error);
  }
  if ((status !== undefined && status >= 500) || code === 'SlowDown' || status === 429) {
    return new RuntimeError('SERVICE_UNAVAILABLE', clean(`bucket reader: S3 answered ${code}${status ? ` (HTTP ${status})` : ''} for ${where}`), { cause: error });
  }
  return badRequest(clean(`bucket reader: S3 answered ${code}${status ? ` (HTTP ${status})` : ''} for ${where}${said}`), error);
}
