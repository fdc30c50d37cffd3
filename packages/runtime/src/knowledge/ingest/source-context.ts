/**
 * @module knowledge/ingest/source-context
 * How source readers reach the network: safeFetch under the knowledge base's rules. `fetch` is
 * for URLs a caller chose; `fetchService` for URLs built from the operator's settings, whose one
 * host may be internal.
 */
import { RuntimeError } from '../../errors.js';
import { checkUrl, safeFetch, type FetchedResource, type SafeFetchOptions } from '../../net/safe-fetch.js';
import { pageTooLarge, type IngestLimits } from '../limits.js';
import type { UrlFetchOptions } from '../options.js';
import type { ReaderLookup, SourceContext, SourceFetchOptions } from '../readers/sources/source-reader.js';

/**
 * The context source readers fetch through. A page a caller chose (`fetch`) is also held to the
 * page limit (KNOWLEDGE_MAX_PAGE_BYTES, far below the upload limit: an HTML page's parse cost is
 * not linear in its size), and a page refused for it fails naming that limit.
 */
export function sourceContext(rules: UrlFetchOptions, readers: ReaderLookup, maxBytes: number, signal: AbortSignal | undefined, limits?: IngestLimits): SourceContext {
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
  const page = async (url: string, o: SourceFetchOptions = {}): Promise<FetchedResource> => {
    const cap = o.maxBytes ?? maxBytes;
    const pageCap = limits?.maxPageBytes ?? Infinity;
    try {
      return await safeFetch(url, { ...request({ ...o, maxBytes: Math.min(cap, pageCap) }), allowPrivateHosts: rules.allowPrivateHosts });
    } catch (error) {
      if (pageCap < cap && RuntimeError.isInstance(error) && error.code === 'PAYLOAD_TOO_LARGE') throw pageTooLarge(url, pageCap);
      throw error;
    }
  };
  return {
    fetch: page,
    fetchService: (url, o) => safeFetch(url, { ...request(o), allowPrivateHosts: withHost(rules.allowPrivateHosts, url) }),
    checkUrl: (url) => checkUrl(url, { allowPrivateHosts: rules.allowPrivateHosts, resolve: rules.resolve, timeoutMs: rules.timeoutMs, signal }),
    readers,
    maxBytes,
    limits,
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
