/**
 * @module knowledge/readers/sources/web/links
 * Page URLs for crawling: one spelling per page (no fragment, tracking parameters dropped, the
 * remaining query sorted), and the links of an HTML page that a same-host crawl follows.
 */

/** Query parameters that only track the visitor; two URLs differing in them are one page. */
const TRACKING = /^(utm_[a-z_]+|fbclid|gclid|dclid|msclkid|mc_cid|mc_eid|_ga|_gl|yclid|igshid|ref_src)$/i;

/** Files a text crawl cannot use (agno skips .pdf/.jpg/.png; media and archives likewise). */
const BINARY = /\.(pdf|jpe?g|png|gif|webp|avif|svg|ico|bmp|tiff?|css|js|mjs|json|xml|rss|atom|zip|gz|tgz|tar|rar|7z|bz2|xz|mp3|mp4|m4a|avi|mov|mkv|webm|wav|ogg|flac|woff2?|ttf|otf|eot|exe|dmg|iso|apk|deb|rpm|msi)$/i;

/**
 * The one spelling of a page URL, or undefined when it is not a page a crawl can fetch (not
 * http(s), credentials in it, unparsable).
 */
export function normalizePageUrl(raw: string, base?: string | URL): URL | undefined {
  let url: URL;
  try {
    url = new URL(raw.trim(), base);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  if (url.username || url.password) return undefined;
  url.hash = '';
  const params = [...url.searchParams].filter(([key]) => !TRACKING.test(key)).toSorted(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  url.search = params.length > 0 ? new URLSearchParams(params).toString() : '';
  return url;
}

/** Same host and port (the scheme may differ: a site linking from http to https is one site). */
export function sameHost(a: URL, b: URL): boolean {
  return a.host === b.host;
}

export function looksBinary(url: URL): boolean {
  return BINARY.test(url.pathname);
}

/** The minimal DOM this needs; linkedom's document satisfies it. */
export interface LinkDocument {
  querySelector(selector: string): { getAttribute(name: string): string | null } | null;
  querySelectorAll(selector: string): Iterable<{ getAttribute(name: string): string | null }>;
}

/**
 * The same-host page links of a document, normalised, in document order, each once. `<base
 * href>` is honoured; `rel="nofollow"` links are not followed.
 */
export function pageLinks(document: LinkDocument, pageUrl: string): URL[] {
  const page = new URL(pageUrl);
  const declared = document.querySelector('base[href]')?.getAttribute('href');
  const base = (declared && normalizePageUrl(declared, page)) || page;
  const found = new Map<string, URL>();
  for (const anchor of document.querySelectorAll('a[href]')) {
    if (/\bnofollow\b/i.test(anchor.getAttribute('rel') ?? '')) continue;
    const url = normalizePageUrl(anchor.getAttribute('href') ?? '', base);
    if (!url || !sameHost(url, page) || looksBinary(url) || found.has(url.href)) continue;
    found.set(url.href, url);
  }
  return [...found.values()];
}
