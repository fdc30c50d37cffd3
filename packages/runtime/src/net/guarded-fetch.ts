/**
 * @module net/guarded-fetch
 * A `fetch` for long-lived API conversations (an MCP server over streamable HTTP: a POST answered
 * with a server-sent event stream, a GET stream left open) under the same SSRF rules as
 * safeFetch: http(s) only, no credentials in the URL, every address of the host checked and the
 * socket pinned to the checked one (no DNS rebinding), internal hosts only when allowed. Unlike
 * safeFetch it hands the body back as a stream, unread, and never follows a redirect: the 3xx
 * is the answer (an API that moves is a configuration error, not something to chase).
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import { Readable } from 'node:stream';
import { parseUrl, vetAddress, type SafeFetchOptions } from './safe-fetch.js';

export interface GuardedFetchOptions {
  /** As safeFetch's: `true`, or the host names that may resolve to internal addresses. */
  allowPrivateHosts?: SafeFetchOptions['allowPrivateHosts'];
  resolve?: SafeFetchOptions['resolve'];
  /** Until the response headers arrive; default 30 s. The body may stream for as long as it lasts. */
  headersTimeoutMs?: number;
}

/** A `fetch`-shaped function that refuses what safeFetch refuses (a TypeError, as fetch fails). */
export function guardedFetch(options: GuardedFetchOptions = {}): (input: string | URL | Request, init?: RequestInit) => Promise<Response> {
  return async (input, init = {}) => {
    const url = parseUrl(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url);
    const signal = init.signal ?? undefined;
    const target = await vetAddress(url, options, signal ?? new AbortController().signal).catch((error: unknown) => {
      throw new TypeError(error instanceof Error ? error.message : String(error), { cause: error });
    });
    const pinned: LookupFunction = (_hostname, lookupOptions, callback) => {
      if (lookupOptions.all) callback(null, [{ address: target.address, family: target.family }]);
      else callback(null, target.address, target.family);
    };
    const headers: Record<string, string> = {};
    new Headers(init.headers).forEach((value, name) => (headers[name] = value));
    // A form (an OAuth token request) is sent as fetch sends it.
    if (init.body instanceof URLSearchParams && !('content-type' in headers)) headers['content-type'] = 'application/x-www-form-urlencoded;charset=UTF-8';
    const text = typeof init.body === 'string' ? init.body : init.body instanceof URLSearchParams ? init.body.toString() : undefined;
    const body = text !== undefined ? Buffer.from(text, 'utf8') : init.body instanceof Uint8Array ? init.body : init.body instanceof ArrayBuffer ? new Uint8Array(init.body) : undefined;
    if (init.body !== null && init.body !== undefined && body === undefined) throw new TypeError('guardedFetch sends only text, form or byte bodies');
    if (body) headers['content-length'] = String(body.byteLength);
    const response = await new Promise<IncomingMessage>((resolve, reject) => {
      const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
      // A pooled socket could have been opened to another address; each request gets its own.
      const req = send(url, { method: init.method ?? 'GET', headers, lookup: pinned, agent: false, ...(signal ? { signal } : {}) });
      const timer = setTimeout(() => req.destroy(new Error(`${url.origin} sent no answer within ${options.headersTimeoutMs ?? 30_000} ms`)), options.headersTimeoutMs ?? 30_000);
      req.once('response', (res) => {
        clearTimeout(timer);
        resolve(res);
      });
      req.once('error', (error) => {
        clearTimeout(timer);
        reject(signal?.aborted ? signal.reason : new TypeError(`Cannot reach ${url.origin} (${(error as NodeJS.ErrnoException).code ?? error.message})`, { cause: error }));
      });
      req.end(body);
    });
    const responseHeaders = new Headers();
    for (const [name, value] of Object.entries(response.headers)) {
      if (value === undefined) continue;
      for (const v of Array.isArray(value) ? value : [value]) responseHeaders.append(name, v);
    }
    const status = response.statusCode ?? 502;
    const noBody = status === 204 || status === 304 || init.method === 'HEAD';
    if (noBody) response.resume();
    return new Response(noBody ? null : (Readable.toWeb(response) as ReadableStream<Uint8Array>), { status, statusText: response.statusMessage ?? '', headers: responseHeaders });
  };
}
