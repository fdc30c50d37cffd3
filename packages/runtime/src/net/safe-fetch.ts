/**
 * @module net/safe-fetch
 * Fetches a caller-supplied URL for ingestion without letting the caller aim the server at its
 * own network (SSRF):
 *
 * - only http and https;
 * - the host is resolved once, every address is checked (`classifyAddress`), and the socket
 *   connects to the checked address: the request's `lookup` hands back that address, so a DNS
 *   answer that changes between the check and the connect (rebinding) is never used;
 * - every redirect hop is checked the same way, at most `maxRedirects` of them;
 * - a connect timeout, a total timeout and a byte cap enforced while the body streams in.
 *
 * Only global unicast addresses pass (`net/addresses.ts`: the IANA special-purpose registries,
 * IPv4-embedding IPv6 forms decoded). `allowPrivateHosts` lifts the refusal of internal
 * addresses (an intranet wiki, tests on loopback: loopback, private, link-local, shared,
 * documentation, benchmarking); multicast, reserved space, anycast services and tunnels stay
 * refused, and the scheme, redirect, time and size limits still apply.
 *
 * The source readers also call services (a crawling or search API, object storage) through it,
 * so a request may carry a method, headers and a body. Those headers are meant for the URL's
 * own origin: a redirect to another origin drops them (and a 301/302/303 turns the request into
 * a GET without body, as browsers do), so an API key never follows a redirect elsewhere.
 */
import { lookup as dnsLookup } from 'node:dns/promises';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import { isIP } from 'node:net';
import { badRequest, RuntimeError } from '../errors.js';
import { refuseAddress } from './addresses.js';

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Resolves a host name to all its addresses; `dns.lookup` by default, injectable for tests. */
export type HostResolver = (hostname: string) => Promise<ResolvedAddress[]>;

export interface SafeFetchOptions {
  /** The largest body accepted, in bytes. */
  maxBytes: number;
  /**
   * Allow internal addresses (loopback, private, link-local, shared, documentation,
   * benchmarking; see `AddressRefusal.internal`): `true` for any host, or the host names (e.g.
   * `wiki.corp.example`) that may resolve to them. Default false.
   */
  allowPrivateHosts?: boolean | readonly string[] | undefined;
  /** Default 10 s per hop. */
  connectTimeoutMs?: number | undefined;
  /** For the whole fetch, redirects included; default 30 s. */
  timeoutMs?: number | undefined;
  /** Default 5. */
  maxRedirects?: number | undefined;
  resolve?: HostResolver | undefined;
  signal?: AbortSignal | undefined;
  /** Default GET. */
  method?: 'GET' | 'HEAD' | 'POST' | 'PUT' | 'DELETE' | undefined;
  /** Sent to the URL's origin only (dropped on a redirect to another origin); they override the defaults. */
  headers?: Readonly<Record<string, string>> | undefined;
  body?: string | Uint8Array | undefined;
  /**
   * Answer a non-2xx response (its body capped like any other) instead of refusing it, for
   * callers that read an API's error body or treat a 404 as an answer (robots.txt).
   */
  allowHttpErrors?: boolean | undefined;
  /** Decides whether to follow a redirect (after the usual checks); a refused one is a 400. */
  allowRedirect?: ((to: URL, from: URL) => boolean) | undefined;
  /**
   * Answer a redirect (status and Location, no body) instead of following it, for a caller that
   * follows it under rules of its own (a pre-authenticated download URL, fetched without credentials).
   */
  returnRedirects?: boolean | undefined;
  /**
   * Keep the first `maxBytes` of a larger body instead of refusing it (413), for a caller that
   * reads a prefix (robots.txt); the answer's `truncated` says whether bytes were left unread.
   */
  truncate?: boolean | undefined;
}

export interface FetchedResource {
  /** The URL the body came from, after redirects. */
  url: string;
  status: number;
  /** The media type without parameters, lower-cased; undefined when the server sent none. */
  mimeType: string | undefined;
  body: Uint8Array;
  /** Response headers, names lower-cased, repeated ones joined with ", ". */
  headers: Record<string, string>;
  /** The address the socket was connected to. */
  remoteAddress: string | undefined;
  /** True when the body was cut at `maxBytes` (only with `truncate`). */
  truncated?: boolean;
}

/** What one hop sends; a redirect may change it (see the module notes). */
interface Outgoing {
  method: NonNullable<SafeFetchOptions['method']>;
  headers: Readonly<Record<string, string>>;
  body: string | Uint8Array | undefined;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/** How the runtime names itself to the sites and services it fetches from (robots.txt matches on it). */
export const USER_AGENT = 'svc-runtime-knowledge/1';

const systemResolver: HostResolver = async (hostname) => {
  const found = await dnsLookup(hostname, { all: true, verbatim: true });
  return found.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
};

export async function safeFetch(url: string, options: SafeFetchOptions): Promise<FetchedResource> {
  const maxRedirects = options.maxRedirects ?? 5;
  const timeoutMs = options.timeoutMs ?? 30_000;
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(new RuntimeError('BAD_REQUEST', `Fetching ${url} took longer than ${timeoutMs} ms`)), timeoutMs);
  const signal = options.signal ? AbortSignal.any([options.signal, deadline.signal]) : deadline.signal;
  try {
    let current = parseUrl(url);
    let outgoing: Outgoing = { method: options.method ?? 'GET', headers: options.headers ?? {}, body: options.body };
    for (let hop = 0; ; hop++) {
      const target = await vet(current, options, signal);
      const response = await requestOnce(current, target, outgoing, options, signal);
      const status = response.statusCode ?? 0;
      if (REDIRECTS.has(status) && response.headers.location) {
        response.resume();
        if (options.returnRedirects) {
          return { url: current.href, status, mimeType: undefined, body: new Uint8Array(), headers: flatHeaders(response), remoteAddress: response.socket?.remoteAddress };
        }
        if (hop >= maxRedirects) throw badRequest(`${url} redirected more than ${maxRedirects} times`);
        const next = parseUrl(new URL(response.headers.location, current).href);
        if (options.allowRedirect && !options.allowRedirect(next, current)) throw badRequest(`${current.href} redirected to ${next.href}, which was not followed`);
        outgoing = redirected(outgoing, status, next.origin === current.origin);
        current = next;
        continue;
      }
      if ((status < 200 || status > 299) && !options.allowHttpErrors) {
        response.resume();
        throw badRequest(`${current.href} answered HTTP ${status}${response.statusMessage ? ` ${response.statusMessage}` : ''}`);
      }
      const remoteAddress = response.socket?.remoteAddress;
      const { body, truncated } = await readCapped(response, current.href, options.maxBytes, options.truncate === true);
      const type = response.headers['content-type'];
      return {
        url: current.href,
        status,
        mimeType: type ? type.split(';')[0]!.trim().toLowerCase() || undefined : undefined,
        body,
        headers: flatHeaders(response),
        remoteAddress,
        ...(truncated ? { truncated } : {}),
      };
    }
  } catch (error) {
    if (signal.aborted && RuntimeError.isInstance(signal.reason)) throw signal.reason;
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * What the next hop sends. 307/308 repeat the request as it was; 301/302/303 become a GET
 * without body. Headers the caller set go to the original origin only.
 */
function redirected(previous: Outgoing, status: number, sameOrigin: boolean): Outgoing {
  const keep = status === 307 || status === 308;
  return {
    method: keep || previous.method === 'HEAD' ? previous.method : 'GET',
    headers: sameOrigin ? previous.headers : {},
    body: keep ? previous.body : undefined,
  };
}

function flatHeaders(response: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(response.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return headers;
}

/**
 * Refuses (400) a URL safeFetch would refuse before connecting: malformed, not http(s), with
 * credentials, unresolvable, or (unless allowed) resolving to an internal address. For a URL
 * another service will fetch on our behalf (a hosted crawler), so the same rules apply to it.
 */
export async function checkUrl(url: string, options: Pick<SafeFetchOptions, 'allowPrivateHosts' | 'resolve' | 'timeoutMs' | 'signal'> = {}): Promise<URL> {
  const parsed = parseUrl(url);
  const timeoutMs = options.timeoutMs ?? 30_000;
  const deadline = AbortSignal.timeout(timeoutMs);
  const signal = options.signal ? AbortSignal.any([options.signal, deadline]) : deadline;
  await vet(parsed, { maxBytes: 0, ...options }, signal);
  return parsed;
}

/**
 * The one address a request for `url` may connect to, after checking all of the host's as
 * safeFetch does (400 when refused); for callers that stream (net/guarded-fetch.ts).
 */
export async function vetAddress(url: URL, options: Pick<SafeFetchOptions, 'allowPrivateHosts' | 'resolve'>, signal: AbortSignal): Promise<ResolvedAddress> {
  return vet(url, { maxBytes: 0, ...options }, signal);
}

/** A URL safeFetch would try: valid, http(s), no credentials. Refuses with a 400 otherwise. */
export function parseUrl(text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch (cause) {
    throw badRequest(`"${text}" is not a valid URL`, cause);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw badRequest(`Only http and https URLs can be fetched, not ${url.protocol.replace(/:$/, '')}`);
  if (url.username || url.password) throw badRequest('URLs with credentials cannot be fetched');
  return url;
}

/** The one address the request for `url` will connect to, after checking all of the host's. */
async function vet(url: URL, options: SafeFetchOptions, signal: AbortSignal): Promise<ResolvedAddress> {
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  let addresses: ResolvedAddress[];
  const literal = isIP(host);
  if (literal !== 0) {
    addresses = [{ address: host, family: literal === 6 ? 6 : 4 }];
  } else {
    try {
      // dns.lookup takes no signal; racing it keeps a slow resolver inside the total timeout.
      addresses = await untilAborted((options.resolve ?? systemResolver)(host), signal);
    } catch (cause) {
      throw badRequest(`Cannot resolve the host of ${url.href} (${(cause as NodeJS.ErrnoException).code ?? 'lookup failed'})`, cause);
    }
    if (addresses.length === 0) throw badRequest(`Cannot resolve the host of ${url.href}`);
  }
  const internalAllowed = privateAllowed(host, options.allowPrivateHosts);
  // All of them: a host that answers with one public and one private address could be
  // connected to either.
  for (const { address } of addresses) {
    const refused = refuseAddress(address);
    if (refused === undefined || (refused.internal && internalAllowed)) continue;
    const remedy = refused.internal ? '; set allowPrivateHosts to ingest from internal hosts' : ', which is never fetched: only global unicast addresses are';
    throw badRequest(`URL host resolves to a ${refused.class} address (${address})${remedy}`);
  }
  return addresses[0]!;
}

function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  signal.throwIfAborted();
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

function privateAllowed(host: string, allow: SafeFetchOptions['allowPrivateHosts']): boolean {
  if (allow === true) return true;
  if (!allow) return false;
  const name = host.toLowerCase().replace(/\.$/, '');
  return allow.some((h) => h.toLowerCase().replace(/\.$/, '') === name);
}

function requestOnce(url: URL, target: ResolvedAddress, outgoing: Outgoing, options: SafeFetchOptions, signal: AbortSignal): Promise<IncomingMessage> {
  const connectTimeoutMs = options.connectTimeoutMs ?? 10_000;
  // Pins the connection to the vetted address. net may ask for one address or for all of them
  // (happy eyeballs); either way it gets only this one.
  const pinned: LookupFunction = (_hostname, lookupOptions, callback) => {
    if (lookupOptions.all) callback(null, [{ address: target.address, family: target.family }]);
    else callback(null, target.address, target.family);
  };
  return new Promise((resolve, reject) => {
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const body = typeof outgoing.body === 'string' ? Buffer.from(outgoing.body, 'utf8') : outgoing.body;
    const req = send(url, {
      method: outgoing.method,
      lookup: pinned,
      // A pooled socket could have been opened to another address; each fetch gets its own.
      agent: false,
      signal,
      headers: {
        accept: '*/*',
        'accept-encoding': 'identity',
        'user-agent': USER_AGENT,
        ...outgoing.headers,
        ...(body !== undefined ? { 'content-length': String(body.byteLength) } : {}),
      },
    });
    const connectTimer = setTimeout(() => req.destroy(badRequest(`Could not connect to ${url.host} within ${connectTimeoutMs} ms`)), connectTimeoutMs);
    req.once('socket', (socket) => {
      if (!socket.connecting) clearTimeout(connectTimer);
      else socket.once('connect', () => clearTimeout(connectTimer));
    });
    req.once('response', (response) => {
      clearTimeout(connectTimer);
      resolve(response);
    });
    req.once('error', (error) => {
      clearTimeout(connectTimer);
      reject(RuntimeError.isInstance(error) ? error : badRequest(`Cannot fetch ${url.href} (${(error as NodeJS.ErrnoException).code ?? error.message})`, error));
    });
    req.end(body);
  });
}

/** The body, refused past `maxBytes` or, with `truncate`, cut there. */
async function readCapped(response: IncomingMessage, url: string, maxBytes: number, truncate: boolean): Promise<{ body: Uint8Array; truncated: boolean }> {
  const tooLarge = () => new RuntimeError('PAYLOAD_TOO_LARGE', `${url} is larger than the knowledge limit of ${maxBytes} bytes`);
  const declared = Number(response.headers['content-length']);
  if (!truncate && Number.isFinite(declared) && declared > maxBytes) {
    response.destroy();
    throw tooLarge();
  }
  const parts: Buffer[] = [];
  let size = 0;
  try {
    for await (const part of response) {
      const chunk = part as Buffer;
      // Checked per chunk, so a body without (or lying about) Content-Length stops at the cap.
      if (size + chunk.byteLength > maxBytes) {
        response.destroy();
        if (!truncate) throw tooLarge();
        parts.push(chunk.subarray(0, maxBytes - size));
        return { body: new Uint8Array(Buffer.concat(parts)), truncated: true };
      }
      size += chunk.byteLength;
      parts.push(chunk);
    }
  } catch (error) {
    if (RuntimeError.isInstance(error)) throw error;
    throw badRequest(`Reading ${url} failed (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`, error);
  }
  return { body: new Uint8Array(Buffer.concat(parts)), truncated: false };
}
