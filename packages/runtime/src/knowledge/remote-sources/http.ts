/**
 * @module knowledge/remote-sources/http
 * The one way a remote source talks HTTP, to the origins the operator configured only.
 *
 * Through safeFetch (address pinned, connect and total timeouts, the caller's signal, a byte
 * cap enforced while the body streams in), with bounded retries of throttled requests and every
 * failure turned into a RemoteSourceError naming the source and the path.
 *
 * Rules that hold for every request:
 * - the URL's origin must be one the source was configured with; URLs are built from settings,
 *   and nothing a caller sends can name a host (the Graph download redirect is the one
 *   exception, checked by its adapter);
 * - a request that carries credentials over plain HTTP to a host that is not loopback is refused
 *   (checked at construction too, so this is the backstop);
 * - 429 and 503 are retried up to `maxRetries` times, after the Retry-After the provider sent
 *   (seconds or an HTTP date) or a short exponential backoff; a Retry-After longer than
 *   `maxRetryDelayMs` is not waited for, and the 503 carries it;
 * - a 401 on a request made with a token from a cache is retried once with a fresh token (a
 *   token revoked or rotated before its expiry);
 * - messages never contain a URL (a SAS token or a signature lives in the query) nor a secret.
 */
import { ConfigurationError, RuntimeError } from '../../errors.js';
import { redact } from '../../net/redact.js';
import { retryAfterMs } from '../../net/retry-after.js';
import { withRetries } from '../../net/retry.js';
import { safeFetch, type FetchedResource, type HostResolver } from '../../net/safe-fetch.js';
import { isLoopbackHost } from '../../util/loopback.js';
import { RemoteSourceError, describeFailure, failureForStatus, shortText, type RemoteFailure } from './errors.js';
import type { RemoteSourceBaseOptions, RemoteSourceType } from './remote-source.js';

/** How much of an error answer is read for its code and message. */
const ERROR_BODY_BYTES = 64 * 1024;

export interface SourceHttpSettings {
  sourceId: string;
  type: RemoteSourceType;
  /** Origins (`https://host:port`) requests may go to. */
  origins: readonly string[];
  timeoutMs: number;
  connectTimeoutMs: number;
  maxRetries: number;
  maxRetryDelayMs: number;
  logger: RemoteSourceBaseOptions['logger'];
  /** The secrets to cut out of any message. */
  secrets: () => readonly (string | undefined)[];
  /** Host resolution for tests; default dns.lookup. */
  resolve?: HostResolver | undefined;
}

export interface SourceRequest {
  url: string;
  method?: 'GET' | 'POST' | 'HEAD';
  headers?: Readonly<Record<string, string>>;
  body?: string | Uint8Array;
  /** The largest answer accepted. */
  maxBytes: number;
  /** The path the request is about, for messages. */
  path: string;
  signal?: AbortSignal | undefined;
  /** Headers carrying credentials, asked for before each attempt (a token cache). */
  auth?: (() => Promise<Readonly<Record<string, string>>>) | undefined;
  /** Forgets a cached token, so the next `auth()` fetches a new one. */
  reauth?: (() => void) | undefined;
  /** True when the request carries credentials in its URL or body (a SAS token, a client secret). */
  credentials?: boolean;
  /** Statuses answered to the caller rather than failing (e.g. 302 for a Graph download). */
  accept?: ((status: number) => boolean) | undefined;
  /** The provider's error code and message from an error answer, e.g. `NoSuchKey: The key does not exist`. */
  explain?: ((response: FetchedResource) => string | undefined) | undefined;
  /** Statuses beyond 429 and 503 that mean throttling (GitHub's 403 with an exhausted rate limit). */
  throttled?: ((response: FetchedResource) => boolean) | undefined;
  /** The failure an error answer means when its status alone does not say (S3 refuses bad keys with a 403). */
  classify?: ((response: FetchedResource) => RemoteFailure | undefined) | undefined;
  /** How long a throttled answer asks to wait, in ms, when not (only) in Retry-After (GitHub's x-ratelimit-reset). */
  retryDelay?: ((response: FetchedResource) => number | undefined) | undefined;
  /** Answer a redirect (its Location in the headers) rather than follow it or fail. */
  returnRedirects?: boolean;
  /** Follow at most this many redirects (default none); see safeFetch for the header rules. */
  maxRedirects?: number;
  allowRedirect?: (to: URL, from: URL) => boolean;
  /**
   * A URL the provider handed out (Graph's pre-authenticated download URL) rather than one built
   * from settings: any origin, but https unless loopback, no credentials, and the address checks
   * of any fetch (only a loopback host may be internal).
   */
  handedOut?: boolean;
}

/** An http(s) URL for a setting: no credentials, query or fragment; returned without a trailing slash. */
export function settingUrl(raw: string, field: string, where: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigurationError(`${where}: ${field} must be an http(s) URL, got "${raw}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ConfigurationError(`${where}: ${field} must be an http(s) URL, got "${raw}"`);
  if (url.username || url.password) throw new ConfigurationError(`${where}: ${field} must not contain credentials`);
  if (url.search || url.hash) throw new ConfigurationError(`${where}: ${field} must not have a query or fragment`);
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname)) {
    throw new ConfigurationError(`${where}: ${field} is plain http to ${url.hostname}; credentials are only sent over https (or to loopback)`);
  }
  return url;
}

/** An answer that means "too many requests": retried after `waitMs` (what the provider asked) or a backoff. */
class Throttled {
  constructor(
    readonly status: number,
    readonly said: string,
    readonly waitMs: number | undefined,
  ) {}
}

/** A cached token was refused and dropped: the request goes again at once with a fresh one. */
class Reauthorized extends Error {
  constructor() {
    super('the cached token was refused');
  }
}

export class SourceHttp {
  constructor(private readonly settings: SourceHttpSettings) {}

  failure(reason: RemoteFailure, path: string, said?: string, headers?: Record<string, string>): RemoteSourceError {
    const s = this.settings;
    const secrets = s.secrets();
    return new RemoteSourceError(reason, s.sourceId, path, redact(describeFailure(reason, { id: s.sourceId, type: s.type }, path, said), secrets), headers, said === undefined ? undefined : redact(said, secrets));
  }

  /** A refusal before any I/O, e.g. a path this source cannot read. */
  invalid(path: string, said: string): RemoteSourceError {
    return this.failure('invalid_request', path, said);
  }

  /** The provider answered something its API does not promise. */
  badAnswer(path: string, said: string): RemoteSourceError {
    return this.failure('bad_answer', path, said);
  }

  notFound(path: string, said?: string): RemoteSourceError {
    return this.failure('not_found', path, said);
  }

  tooLarge(path: string, maxBytes: number, size?: number): RemoteSourceError {
    return this.failure('too_large', path, `${size !== undefined ? `${size} bytes, ` : ''}limit ${maxBytes} bytes`);
  }

  /** Checks a URL against the rules above without sending anything. */
  private vet(url: URL, path: string, credentials: boolean): void {
    if (!this.settings.origins.includes(url.origin)) {
      throw this.failure('invalid_request', path, `a request to ${url.origin} is not to the source's configured endpoint`);
    }
    if (credentials && url.protocol === 'http:' && !isLoopbackHost(url.hostname)) {
      throw this.failure('invalid_request', path, `credentials are not sent over plain http to ${url.hostname}`);
    }
  }

  async request(request: SourceRequest): Promise<FetchedResource> {
    const s = this.settings;
    let url: URL;
    try {
      url = new URL(request.url);
    } catch {
      throw this.failure('invalid_request', request.path, 'the request URL is malformed');
    }
    if (request.handedOut) {
      if (request.auth || request.credentials) throw this.failure('invalid_request', request.path, 'credentials are not sent to a URL the provider handed out');
      if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLoopbackHost(url.hostname))) {
        throw this.failure('bad_answer', request.path, `the provider handed out a ${url.protocol.replace(':', '')} URL; only https is followed`);
      }
    } else {
      this.vet(url, request.path, request.credentials === true || request.auth !== undefined);
    }
    const state = { reauthorized: false };
    return withRetries(() => this.attempt(url, request, state), {
      policy: { maxRetries: s.maxRetries, baseDelayMs: 500, maxBackoffMs: 8000, jitter: false, maxWaitMs: s.maxRetryDelayMs, longWait: 'give-up' },
      signal: request.signal,
      retryable: (error) => (error instanceof Reauthorized ? { retry: 'now' } : error instanceof Throttled ? { retry: 'after', afterMs: error.waitMs } : false),
      // The caller's own abort reason, as for an abort during the request.
      aborted: (reason) => reason,
      onRetry: (error, delay, attempt) => {
        s.logger?.warn(`remote source "${s.sourceId}" (${s.type}): HTTP ${(error as Throttled).status} for "${redact(request.path, s.secrets())}", retry ${attempt + 1} of ${s.maxRetries} in ${delay} ms`);
      },
      // A wait not taken is handed on, so the caller's client can come back then.
      giveUp: (error, delay) => this.failure('throttled', request.path, (error as Throttled).said, { 'retry-after': String(Math.max(1, Math.ceil(delay / 1000))) }),
    });
  }

  /** One try: the answer, or why not (Throttled and Reauthorized are for `request` to retry). */
  private async attempt(url: URL, request: SourceRequest, state: { reauthorized: boolean }): Promise<FetchedResource> {
    const s = this.settings;
    request.signal?.throwIfAborted();
    let authHeaders: Readonly<Record<string, string>> = {};
    if (request.auth) authHeaders = await this.authorize(request.auth, request.path);
    let response: FetchedResource;
    try {
      response = await safeFetch(url.href, {
        method: request.method ?? 'GET',
        headers: { ...request.headers, ...authHeaders },
        body: request.body,
        // An error answer is read whole up to 64 KiB even under a smaller cap, so a missing file
        // is a 404 rather than "too large"; a success past the cap is refused just below.
        maxBytes: Math.max(request.maxBytes, ERROR_BODY_BYTES),
        timeoutMs: s.timeoutMs,
        connectTimeoutMs: s.connectTimeoutMs,
        maxRedirects: request.maxRedirects ?? 0,
        allowRedirect: request.allowRedirect,
        returnRedirects: request.returnRedirects,
        allowHttpErrors: true,
        // The operator's own endpoint may be internal (MinIO, an emulator, a GitHub Enterprise).
        allowPrivateHosts: !request.handedOut || isLoopbackHost(url.hostname) ? [url.hostname.replace(/^\[|\]$/g, '')] : [],
        signal: request.signal,
        resolve: s.resolve,
      });
    } catch (error) {
      throw this.transportFailure(error, request);
    }
    const status = response.status;
    if ((status >= 200 && status < 300) || request.accept?.(status)) {
      if (response.body.length > request.maxBytes) throw this.tooLarge(request.path, request.maxBytes);
      return response;
    }
    if (status === 401 && request.reauth && !state.reauthorized) {
      // A cached token the provider no longer takes: one more try with a fresh one.
      state.reauthorized = true;
      request.reauth();
      throw new Reauthorized();
    }
    const said = this.explain(response, request);
    if (status === 429 || status === 503 || request.throttled?.(response)) {
      throw new Throttled(status, said, retryAfterMs(response.headers['retry-after']) ?? request.retryDelay?.(response));
    }
    let reason: RemoteFailure | undefined;
    try {
      reason = request.classify?.(response);
    } catch {
      reason = undefined;
    }
    throw this.failure(reason ?? failureForStatus(status), request.path, said);
  }

  /**
   * The credential headers of a request. A token request that fails is about no file (its path
   * is "(access token)"): the failure names the path this request was for, so an ingestion
   * record says which file could not be read, and the token request in its detail.
   */
  private async authorize(auth: () => Promise<Readonly<Record<string, string>>>, path: string): Promise<Readonly<Record<string, string>>> {
    try {
      return await auth();
    } catch (error) {
      if (error instanceof RemoteSourceError && error.path !== path && /^\(.*\)$/.test(error.path)) {
        throw this.failure(error.reason, path, `${error.path.slice(1, -1)}: ${error.said ?? 'no token'}`, error.headers);
      }
      throw error;
    }
  }

  private explain(response: FetchedResource, request: SourceRequest): string {
    let detail: string | undefined;
    try {
      detail = shortText(request.explain?.(response));
    } catch {
      detail = undefined;
    }
    return `HTTP ${response.status}${detail ? ` ${detail}` : ''}`;
  }

  /** safeFetch's refusals name the URL (and so a SAS query): our own words instead. */
  private transportFailure(error: unknown, request: SourceRequest): unknown {
    if (request.signal?.aborted) return request.signal.reason ?? error;
    if (RuntimeError.isInstance(error)) {
      if (error.code === 'PAYLOAD_TOO_LARGE') return this.tooLarge(request.path, request.maxBytes);
      const text = error.message;
      if (/took longer than/.test(text)) return this.failure('unavailable', request.path, `no answer within ${this.settings.timeoutMs} ms`);
      if (/Could not connect/.test(text)) return this.failure('unavailable', request.path, `could not connect within ${this.settings.connectTimeoutMs} ms`);
      if (/redirected/.test(text)) return this.failure('bad_answer', request.path, 'a redirect that is not followed');
      const code = (error.cause as NodeJS.ErrnoException | undefined)?.code;
      if (/Cannot resolve/.test(text)) return this.failure('unavailable', request.path, `the host cannot be resolved${code ? ` (${code})` : ''}`);
      return this.failure('unavailable', request.path, `the request failed${code ? ` (${code})` : ''}`);
    }
    return this.failure('unavailable', request.path, 'the request failed');
  }
}

/** Joins an encoded path under a base URL's path (which has no trailing slash). */
export function under(base: URL, path: string, query?: Record<string, string | undefined>): string {
  const url = new URL(base.href);
  url.pathname = `${base.pathname.replace(/\/+$/, '')}${path}`;
  for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined) url.searchParams.set(k, v);
  return url.href;
}

/** Each segment of a path percent-encoded, the slashes kept. */
export function encodePath(path: string): string {
  return path
    .split('/')
    .map((segment) => encodeURIComponent(segment))
    .join('/');
}

/** The body of an answer as text (UTF-8), for error bodies. */
export function textOf(response: FetchedResource): string {
  return Buffer.from(response.body).toString('utf8');
}

/** The body as JSON, or undefined. */
export function jsonOf(response: FetchedResource): unknown {
  try {
    return JSON.parse(textOf(response));
  } catch {
    return undefined;
  }
}
