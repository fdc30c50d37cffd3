/**
 * @module knowledge/remote-sources/s3
 * S3 and S3-compatible storage (MinIO, Ceph, R2...) through @aws-sdk/client-s3.
 *
 * The SDK signs each request (SigV4) and parses S3's XML. Its transport is the shared
 * SignedRequestHandler (the one the bucket reader uses), sending through SourceHttp: the
 * configured endpoint only, timeouts, the byte cap, retries of SlowDown/429 after Retry-After.
 * The SDK's own retries are off so there is one retry policy. Each call's cap, path and signal
 * travel to the handler in an AsyncLocalStorage, since the SDK hands the handler nothing of ours.
 *
 * Credentials come only from the options: the SDK's default provider chain (profile files,
 * environment, instance metadata) is never consulted.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { GetObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { ConfigurationError, RuntimeError } from '../../errors.js';
import { isBucketName } from '../readers/sources/bucket.js';
import { SignedRequestHandler } from '../readers/sources/providers/s3.js';
import { BaseRemoteSource, baseName, optionalText, requiredText } from './base.js';
import { settingUrl, textOf } from './http.js';
import { defineRemoteSource } from './kind.js';
import type { RemoteCallOptions, RemoteDownload, RemoteFile, RemoteListOptions, RemoteListPage, RemoteSourceBaseOptions } from './remote-source.js';

export interface S3SourceOptions extends RemoteSourceBaseOptions {
  bucket: string;
  /** Default us-east-1. */
  region?: string;
  /** An S3-compatible server (`https://minio.example:9000`); default AWS for the region. */
  endpoint?: string;
  /** Bucket in the path rather than the host name; default true with an endpoint, false for AWS. */
  forcePathStyle?: boolean;
  credentials: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
}

interface CallScope {
  maxBytes: number;
  path: string;
  signal: AbortSignal | undefined;
}

/** S3's codes (sent with a 403) for credentials it does not accept, as opposed to a key that may not read this. */
const CREDENTIAL_ERRORS = new Set(['InvalidAccessKeyId', 'SignatureDoesNotMatch', 'ExpiredToken', 'InvalidToken', 'TokenRefreshRequired']);

/** Listing answers are XML of at most 1000 keys; this is far above what one can be. */
const MAX_LISTING_BYTES = 16 * 1024 * 1024;

function xmlElement(xml: string, tag: string): string | undefined {
  const match = new RegExp(`<${tag}>([^<]*)</${tag}>`).exec(xml);
  return match?.[1]?.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&apos;/g, "'").replace(/&amp;/g, '&');
}

/** `NoSuchKey: The specified key does not exist.` from an S3 error body. */
export function s3ErrorText(xml: string): string | undefined {
  const code = xmlElement(xml, 'Code');
  const message = xmlElement(xml, 'Message');
  return code ? `${code}${message ? `: ${message}` : ''}` : undefined;
}

function unquote(etag: string | undefined): string | undefined {
  return etag?.replace(/^W\//, '').replace(/^"|"$/g, '') || undefined;
}

export class S3Source extends BaseRemoteSource {
  readonly type = 's3' as const;
  readonly bucket: string;
  readonly region: string;
  readonly endpoint: string | undefined;
  private readonly client: S3Client;
  private readonly scope = new AsyncLocalStorage<CallScope>();

  constructor(options: S3SourceOptions) {
    super(options, 's3');
    const where = this.where();
    this.bucket = requiredText(options.bucket, 'bucket', where);
    if (!isBucketName(this.bucket)) throw new ConfigurationError(`${where}: bucket "${this.bucket}" is not a valid bucket name (3-63 lower-case letters, digits, dots and hyphens)`);
    this.region = optionalText(options.region, 'region', where) ?? 'us-east-1';
    if (!/^[a-z0-9-]{1,40}$/.test(this.region)) throw new ConfigurationError(`${where}: region "${this.region}" is not a region name`);
    const credentials = options.credentials as Partial<S3SourceOptions['credentials']> | undefined;
    const accessKeyId = requiredText(credentials?.accessKeyId, 'credentials.accessKeyId', where);
    const secretAccessKey = requiredText(credentials?.secretAccessKey, 'credentials.secretAccessKey', where);
    const sessionToken = optionalText(credentials?.sessionToken, 'credentials.sessionToken', where);
    const endpoint = options.endpoint !== undefined ? settingUrl(options.endpoint, 'endpoint', where) : undefined;
    this.endpoint = endpoint?.href.replace(/\/+$/, '');
    const pathStyle = options.forcePathStyle ?? endpoint !== undefined;
    const origins = endpoint
      ? [endpoint.origin, `${endpoint.protocol}//${this.bucket}.${endpoint.host}`]
      : [`https://s3.${this.region}.amazonaws.com`, `https://${this.bucket}.s3.${this.region}.amazonaws.com`, 'https://s3.amazonaws.com', `https://${this.bucket}.s3.amazonaws.com`];
    this.http = this.makeHttp(origins, () => [secretAccessKey, sessionToken]);

    const handler = new SignedRequestHandler(async (request, abortSignal) => {
      const scope = this.scope.getStore();
      const answer = await this.http.request({
        url: request.url,
        method: request.method as 'GET',
        headers: request.headers,
        ...(request.body !== undefined ? { body: request.body } : {}),
        maxBytes: scope?.maxBytes ?? MAX_LISTING_BYTES,
        path: scope?.path ?? '',
        signal: scope?.signal ?? abortSignal,
        credentials: true,
        explain: (response) => s3ErrorText(textOf(response)),
        classify: (response) => (CREDENTIAL_ERRORS.has(xmlElement(textOf(response), 'Code') ?? '') ? 'unauthorized' : undefined),
      });
      return { status: answer.status, headers: answer.headers, body: answer.body };
    });
    this.client = new S3Client({
      region: this.region,
      forcePathStyle: pathStyle,
      credentials: { accessKeyId, secretAccessKey, ...(sessionToken ? { sessionToken } : {}) },
      requestHandler: handler,
      maxAttempts: 1,
      ...(this.endpoint ? { endpoint: this.endpoint } : {}),
    });
  }

  /** Runs one SDK call with its scope; anything the SDK throws on its own (a body it cannot parse) is the provider's fault. */
  private async call<T>(scope: CallScope, run: () => Promise<T>): Promise<T> {
    try {
      return await this.scope.run(scope, run);
    } catch (error) {
      if (RuntimeError.isInstance(error)) throw error;
      if (scope.signal?.aborted) throw scope.signal.reason;
      const name = (error as { name?: unknown }).name;
      throw this.http.badAnswer(scope.path, `the S3 client could not read the answer${typeof name === 'string' ? ` (${name})` : ''}`);
    }
  }

  async list(options: RemoteListOptions): Promise<RemoteListPage> {
    const prefix = this.folderFor(options);
    const limit = this.listLimit(options.limit);
    const delimiter = this.checkDelimiter(options.delimiter);
    const page = await this.call({ maxBytes: MAX_LISTING_BYTES, path: prefix, signal: options.signal }, () =>
      this.client.send(
        new ListObjectsV2Command({
          Bucket: this.bucket,
          ...(prefix ? { Prefix: prefix } : {}),
          ...(delimiter ? { Delimiter: delimiter } : {}),
          MaxKeys: limit,
          ...(options.page_token ? { ContinuationToken: options.page_token } : {}),
        }),
        options.signal ? { abortSignal: options.signal } : {},
      ),
    );
    const files: RemoteFile[] = [];
    for (const object of page.Contents ?? []) {
      // A folder marker ("docs/", size 0) is not a file.
      if (!object.Key || object.Key.endsWith('/')) continue;
      const version = unquote(object.ETag);
      files.push({
        path: object.Key,
        name: baseName(object.Key),
        ...(object.Size !== undefined ? { size: object.Size } : {}),
        ...(version ? { version } : {}),
        ...(object.LastModified ? { modified_at: object.LastModified.getTime() } : {}),
      });
    }
    const folders = (page.CommonPrefixes ?? []).flatMap((p) => (p.Prefix ? [{ path: p.Prefix, name: baseName(p.Prefix) }] : []));
    return { files, folders, ...(page.IsTruncated && page.NextContinuationToken ? { next_page: page.NextContinuationToken } : {}) };
  }

  async download(path: string, options: RemoteCallOptions & { maxBytes: number }): Promise<RemoteDownload> {
    const key = this.check(path, options.params);
    if (key === '' || key.endsWith('/')) throw this.http.invalid(key, 'the path is a folder, not an object');
    const answer = await this.call({ maxBytes: options.maxBytes, path: key, signal: options.signal }, () =>
      this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: key }), options.signal ? { abortSignal: options.signal } : {}),
    );
    const bytes = answer.Body ? await answer.Body.transformToByteArray() : new Uint8Array();
    const version = unquote(answer.ETag);
    return { bytes, ...(answer.ContentType ? { content_type: answer.ContentType } : {}), ...(version ? { version } : {}) };
  }

  identity(path: string, params?: Readonly<Record<string, unknown>>): string {
    return `s3:${this.bucket}:${this.check(path, params)}`;
  }

  describe(file: RemoteFile): Record<string, unknown> {
    return {
      source_type: 's3',
      source_config_id: this.id,
      source_config_name: this.name,
      s3_bucket: this.bucket,
      s3_object_name: file.path,
      s3_region: this.region,
      url: `s3://${this.bucket}/${file.path}`,
      ...(file.version ? { version: file.version } : {}),
    };
  }
}

/**
 * S3 as `KNOWLEDGE_CONTENT_SOURCES` configures it: `bucket_name` (or `bucket`), `region`, `endpoint`,
 * `force_path_style`, `access_key_id_env`, `secret_access_key_env`, `session_token_env`.
 */
export const S3_KIND = defineRemoteSource({
  type: 's3',
  fromSettings: (e) => {
    const sessionToken = e.secret('session_token');
    const endpoint = e.text('endpoint');
    const region = e.text('region');
    const forcePathStyle = e.boolean('force_path_style');
    return new S3Source({
      ...e.base(),
      bucket: e.text('bucket') ?? e.required('bucket_name'),
      ...(region ? { region } : {}),
      ...(endpoint ? { endpoint } : {}),
      ...(forcePathStyle !== undefined ? { forcePathStyle } : {}),
      credentials: { accessKeyId: e.requiredSecret('access_key_id'), secretAccessKey: e.requiredSecret('secret_access_key'), ...(sessionToken ? { sessionToken } : {}) },
    });
  },
});
