/**
 * @module knowledge/ingest/source-context
 * How source readers reach the network: safeFetch under the knowledge base's rules. `fetch` is
 * for URLs a caller chose; `fetchService` for URLs built from the operator's settings, whose one
 * host may be internal.
 */
import { checkUrl, safeFetch, type SafeFetchOptions } from '../../net/safe-fetch.js';
import type { UrlFetchOptions } from '../options.js';
import type { ReaderLookup, SourceContext, SourceFetchOptions } from '../readers/sources/source-reader.js';

export function sourceContext(rules: UrlFetchOptions, readers: ReaderLookup, maxBytes: number, signal: AbortSignal | undefined): SourceContext {
  const request = (o: SourceFetchOptions = {}): SafeFetchOptions => ({
    maxBytes: o.maxBytes ?? maxBytes,
    connectTimeoutMs: rules.connectTimeoutMs,
    timeoutMs: o.timeoutMs ?? rules.timeoutMs,
    maxRedirects: o.maxRedirects ?? rules.maxRedirects,
    resolve: rules.resolve,
    signal,
    method: o.method,
    headers: o.headers,
    body: o.body,
    allowHttpErrors: o.allowHttpErrors,
    allowRedirect: o.allowRedirect,
    truncate: o.truncate,
  });
  return {
    fetch: (url, o) => safeFetch(url, { ...request(o), allowPrivateHosts: rules.allowPrivateHosts }),
    fetchService: (url, o) => safeFetch(url, { ...request(o), allowPrivateHosts: withHost(rules.allowPrivateHosts, url) }),
    checkUrl: (url) => checkUrl(url, { allowPrivateHosts: rules.allowPrivateHosts, resolve: rules.resolve, timeoutMs: rules.timeoutMs, signal }),
    readers,
    maxBytes,
    signal,
  };
}

/** Lets a source reader reach the host of a URL built from the operator's settings, whatever it resolves to. */
function withHost(allow: UrlFetchOptions['allowPrivateHosts'], url: string): boolean | string[] {
  if (allow === true) return true;
  let host: string;
  try {
    host = new URL(url).hostname.replace(/^\[|\]$/g, '');
  } catch {
    return allow ? [...allow] : [];
  }
  return [...(allow || []), host];
}
