/**
 * @module knowledge/readers/sources/providers/s3
 * S3-compatible object storage through @aws-sdk/client-s3, with every request sent through
 * safeFetch: the client's request handler is replaced by one that calls the SourceContext, so
 * DNS pinning, timeouts and the byte cap apply to object storage as to any fetch. The SDK signs
 * the request (SigV4) before it reaches the handler; the handler sends it as signed and hands
 * the answer back, error statuses included (the SDK reads S3's XML errors itself).
 *
 * Credentials come only from the settings: the SDK's default provider chain (profile files,
 * the instance metadata service) is never consulted.
 */
import { Readable } from 'node:stream';
import { GetObjectCommand, ListObjectsV2Command, S3Client, type S3ClientConfig } from '@aws-sdk/client-s3';
import type { SourceContext } from '../source-reader.js';
import type { S3Settings } from '../../../../settings/sources.js';

/** The parts of the SDK's HttpRequest a handler reads. */
export interface SignedRequest {
  method: string;
  protocol: string;
  hostname: string;
  port?: number | undefined;
  path: string;
  query?: Record<string, string | (string | null)[] | null> | undefined;
  headers: Record<string, string>;
  body?: unknown;
}

/** The SDK's escaping of query values (RFC 3986: also `!'()*`), so the query sent is the one signed. */
function escape(value: string): string {
  return encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

function queryString(query: SignedRequest['query']): string {
  const parts: string[] = [];
  for (const key of Object.keys(query ?? {}).toSorted()) {
    const value = query![key];
    if (value === null || value === undefined) parts.push(escape(key));
    else for (const v of Array.isArray(value) ? value : [value]) parts.push(v === null ? escape(key) : `${escape(key)}=${escape(v)}`);
  }
  return parts.length > 0 ? `?${parts.join('&')}` : '';
}

/** What a handler sends: the signed request as a URL, method, headers (without Host) and body. */
export interface OutgoingSigned {
  url: string;
  hostname: string;
  method: string;
  headers: Record<string, string>;
  body: string | Uint8Array | undefined;
}

/** The answer a handler hands back to the SDK, error statuses included (the SDK reads S3's XML errors). */
export interface SignedAnswer {
  status: number;
  headers: Record<string, string>;
  body: Uint8Array;
}

/**
 * An SDK request handler that sends each signed request through `send` (safeFetch underneath),
 * so DNS pinning, timeouts and byte caps apply to object storage as to any fetch.
 */
export class SignedRequestHandler {
  readonly metadata = { handlerProtocol: 'http/1.1' };

  constructor(private readonly send: (request: OutgoingSigned, abortSignal: AbortSignal | undefined) => Promise<SignedAnswer>) {}

  async handle(request: SignedRequest, options?: { abortSignal?: AbortSignal | { aborted: boolean } }): Promise<{ response: { statusCode: number; reason?: string; headers: Record<string, string>; body: Readable } }> {
    const host = request.hostname.includes(':') && !request.hostname.startsWith('[') ? `[${request.hostname}]` : request.hostname;
    const url = `${request.protocol}//${host}${request.port ? `:${request.port}` : ''}${request.path}${queryString(request.query)}`;
    const body = typeof request.body === 'string' || request.body instanceof Uint8Array ? request.body : undefined;
    const headers = Object.fromEntries(Object.entries(request.headers).filter(([name]) => name.toLowerCase() !== 'host'));
    const signal = options?.abortSignal instanceof AbortSignal ? options.abortSignal : undefined;
    const answer = await this.send({ url, hostname: request.hostname, method: request.method, headers, body }, signal);
    return { response: { statusCode: answer.status, headers: answer.headers, body: Readable.from([Buffer.from(answer.body)]) } };
  }

  updateHttpClientConfig(): void {}

  httpHandlerConfigs(): Record<string, never> {
    return {};
  }

  destroy(): void {}
}

export interface S3Object {
  key: string;
  size: number | undefined;
  /** Changes when the object's bytes change, so a refresh can skip it unread. */
  etag?: string;
}

export interface S3Access {
  list(bucket: string, prefix: string, max: number): Promise<{ objects: S3Object[]; truncated: boolean }>;
  get(bucket: string, key: string, maxBytes: number): Promise<{ body: Uint8Array; contentType: string | undefined }>;
}

/** A client for one read; `undefined` credentials are refused by the caller first. */
export function s3Access(settings: S3Settings & { accessKeyId: string; secretAccessKey: string }, context: SourceContext): S3Access {
  const endpointHost = settings.endpoint ? new URL(settings.endpoint).hostname.toLowerCase() : undefined;
  // Path-style keeps the bucket in the path; virtual-hosted puts it in a subdomain of the endpoint.
  const trusted = (hostname: string) => endpointHost !== undefined && (hostname.toLowerCase() === endpointHost || hostname.toLowerCase().endsWith(`.${endpointHost}`));
  // Each answer may have at most this many bytes; a download lowers it to what is left of the budget.
  let bodyLimit = context.maxBytes;
  const handler = new SignedRequestHandler(async (request) => {
    const options = { method: request.method as 'GET', headers: request.headers, body: request.body, maxBytes: Math.max(bodyLimit, 0), maxRedirects: 0, allowHttpErrors: true };
    const fetched = trusted(request.hostname) ? await context.fetchService(request.url, options) : await context.fetch(request.url, options);
    return { status: fetched.status, headers: fetched.headers, body: fetched.body };
  });
  const config: S3ClientConfig = {
    region: settings.region,
    forcePathStyle: settings.forcePathStyle,
    credentials: { accessKeyId: settings.accessKeyId, secretAccessKey: settings.secretAccessKey, ...(settings.sessionToken ? { sessionToken: settings.sessionToken } : {}) },
    requestHandler: handler,
    maxAttempts: 2,
    ...(settings.endpoint ? { endpoint: settings.endpoint } : {}),
  };
  const client = new S3Client(config);
  return {
    async list(bucket, prefix, max) {
      const objects: S3Object[] = [];
      let token: string | undefined;
      do {
        const page = await client.send(
          new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix || undefined, ContinuationToken: token, MaxKeys: Math.min(1000, max - objects.length + 1) }),
          { abortSignal: context.signal },
        );
        for (const o of page.Contents ?? []) if (o.Key) objects.push({ key: o.Key, size: o.Size, ...(o.ETag ? { etag: o.ETag } : {}) });
        token = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (token && objects.length <= max);
      return { objects: objects.slice(0, max), truncated: objects.length > max || token !== undefined };
    },
    async get(bucket, key, maxBytes) {
      bodyLimit = maxBytes;
      const answer = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }), { abortSignal: context.signal });
      const body = answer.Body ? await answer.Body.transformToByteArray() : new Uint8Array();
      bodyLimit = context.maxBytes;
      return { body, contentType: answer.ContentType };
    },
  };
}
