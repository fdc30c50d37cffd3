/**
 * @module knowledge/readers/sources/website
 * `website`: a breadth-first crawl from a start URL, within its host. robots.txt is fetched
 * first and honoured (a disallowed start URL fails the read; other disallowed pages are skipped
 * with a note); its Crawl-delay raises the politeness pause between requests. Links are taken
 * from HTML pages only, normalised (no fragment, no tracking parameters, sorted query) so one
 * page is read once, and followed up to `max_depth` hops and `max_pages` read pages. Each page
 * is read by the reader its content type picks (HTML through Readability and turndown) and
 * becomes one document (`url` and `title` in its metadata). A site is a collection: through the
 * HTTP API each page is a child record of the site's record, and a page that fails fails only
 * its own child; read whole (the SDK), the read fails only when no page could be read.
 *
 * Every request goes through the knowledge base's SSRF rules (`context.fetch`): the start URL,
 * robots.txt, every page and every redirect hop. All pages together are capped at the knowledge
 * base's maxContentBytes.
 */
import { badRequest, RuntimeError, unprocessable } from '../../../errors.js';
import { parseUrl } from '../../../net/safe-fetch.js';
import { sha256Sliced } from '../../../util/utf8-slices.js';
import type { Document, ReaderInput } from '../../types.js';
import { chunkersWithDefault, type PageLinks } from '../reader.js';
import { knownOptions, optionalInt, pause, refuseBytes, type CollectionReader, type FailedChild, type SourceChild, type SourceContext, type SourceInput, type SourceResult } from './source-reader.js';
import { readWholeCollection } from './collection.js';
import type { WebsiteSettings } from '../../../settings/sources.js';
import { normalizePageUrl, sameHost } from './web/links.js';
import { loadRobots } from './web/robots.js';

/** A robots.txt Crawl-delay above this is capped, so one site cannot stall a job for hours. */
const MAX_CRAWL_DELAY_MS = 30_000;

interface Page {
  url: string;
  title: string | undefined;
  content: string;
  depth: number;
  /** SHA-256 (hex) of the fetched bytes. */
  hash: string;
  size: number;
}

export class WebsiteReader implements CollectionReader {
  readonly id = 'website';
  readonly name = 'WebsiteReader';
  readonly description = 'Crawls a website breadth-first within its host (robots.txt honoured), one document per page';
  readonly chunkers = chunkersWithDefault('FixedSizeChunker');
  readonly contentTypes = ['url'] as const;
  readonly source = 'url';

  constructor(private readonly settings: WebsiteSettings = { maxDepth: 3, maxPages: 10, delayMs: 1000 }) {}

  read(input: ReaderInput): Promise<Document[]> {
    return Promise.reject(refuseBytes(this, input));
  }

  check(input: SourceInput): { url: string } {
    if (input.url === undefined) throw badRequest('The website reader needs a url to start from');
    knownOptions(input.options, this.id, ['max_depth', 'max_pages']);
    this.limits(input);
    const start = normalizePageUrl(parseUrl(input.url).href);
    if (!start) throw badRequest(`website reader: "${input.url}" is not a page URL`);
    return { url: start.href };
  }

  /** The request may lower the configured limits, not raise them: they are the operator's. */
  private limits(input: SourceInput): { maxDepth: number; maxPages: number } {
    const { maxDepth, maxPages } = this.settings;
    return {
      maxDepth: optionalInt(input.options, 'max_depth', this.id, 0, maxDepth) ?? maxDepth,
      maxPages: optionalInt(input.options, 'max_pages', this.id, 1, maxPages) ?? maxPages,
    };
  }

  isCollection(): boolean {
    return true;
  }

  async readSource(input: SourceInput, context: SourceContext): Promise<SourceResult> {
    const notes: string[] = [];
    return readWholeCollection(this.children(input, context, notes), context, notes, {
      name: input.name,
      empty: () => unprocessable(`website reader: no readable text at ${this.check(input).url}`),
    });
  }

  /** The crawl: each page read becomes a child; a page that fails is a failed child. */
  async *children(input: SourceInput, context: SourceContext, notes: string[] = []): AsyncIterable<SourceChild | FailedChild> {
    const { url } = this.check(input);
    const { maxDepth, maxPages } = this.limits(input);
    const start = new URL(url);
    const robots = await loadRobots(start, context);
    if (!robots.isAllowed(start.href)) {
      throw badRequest(`website reader: robots.txt of ${start.host} disallows ${start.href}${robots.note ? ` (${robots.note})` : ''}`);
    }
    const delayMs = Math.max(this.settings.delayMs, Math.min(robots.crawlDelayMs ?? 0, MAX_CRAWL_DELAY_MS));
    if (robots.note) notes.push(robots.note);
    const queue: { url: string; depth: number }[] = [{ url: start.href, depth: 0 }];
    const seen = new Set([start.href]);
    let pages = 0;
    let budget = context.maxBytes;
    let attempts = 0;
    // Failures count too, so a site of broken links cannot keep the crawl going forever.
    while (queue.length > 0 && pages < maxPages && attempts < maxPages * 3) {
      if (budget <= 0) {
        notes.push(`stopped after ${pages} page(s): the knowledge limit of ${context.maxBytes} bytes was reached`);
        break;
      }
      const next = queue.shift()!;
      if (!robots.isAllowed(next.url)) {
        notes.push(`${next.url}: disallowed by robots.txt`);
        continue;
      }
      if (attempts > 0) await pause(delayMs, context.signal);
      attempts++;
      let page: Page;
      let links: URL[] = [];
      try {
        // A redirect off the site is not followed: the crawl stays on the start host.
        const fetched = await context.fetch(next.url, { maxBytes: budget, allowRedirect: (to) => sameHost(to, start) });
        budget -= fetched.body.byteLength;
        const final = normalizePageUrl(fetched.url) ?? new URL(fetched.url);
        if (final.href !== next.url && seen.has(final.href)) continue;
        seen.add(final.href);
        const file = final.pathname.split('/').pop() || '';
        const reader = context.readers.forMimeType(fetched.mimeType) ?? context.readers.forFile(file || 'index.html');
        // The html reader finds the page's links on the DOM it builds (in the worker pool).
        const pageLinks: PageLinks | undefined = reader.id === 'html' && next.depth < maxDepth ? { pageUrl: final.href } : undefined;
        const documents = await reader.read({ data: fetched.body, name: file || start.host }, { signal: context.signal, limits: context.limits, links: pageLinks });
        const content = documents
          .map((d) => d.content)
          .join('\n\n')
          .trim();
        const title = documents.map((d) => d.meta_data.title).find((t): t is string => typeof t === 'string' && t.length > 0);
        page = { url: final.href, title, content, depth: next.depth, hash: await sha256Sliced(fetched.body, undefined, context.signal), size: fetched.body.byteLength };
        links = linksFound(pageLinks);
      } catch (error) {
        // Only a typed refusal is a page's own failure; cancellation and bugs end the read.
        if (!RuntimeError.isInstance(error) || context.signal?.aborted) throw error;
        yield { key: next.url, name: next.url, error };
        continue;
      }
      for (const link of links) {
        if (seen.has(link.href)) continue;
        seen.add(link.href);
        queue.push({ url: link.href, depth: next.depth + 1 });
      }
      if (page.content.length === 0) {
        notes.push(`${page.url}: no readable text`);
        continue;
      }
      pages++;
      yield this.child(page, input.name);
    }
  }

  private child(page: Page, name: string | undefined): SourceChild {
    const document: Document = {
      content: page.content,
      name: name ?? page.title ?? page.url,
      id: page.url,
      meta_data: { url: page.url, ...(page.title ? { title: page.title } : {}), depth: page.depth },
    };
    return {
      key: page.url,
      name: page.title ?? page.url,
      read: () => Promise.resolve({ documents: [document], reader: this, hash: page.hash, size: page.size }),
    };
  }
}

/** The links a page's reader found, or none when it found none (a reader other than html). */
function linksFound(links: PageLinks | undefined): URL[] {
  return (links?.found ?? []).map((href) => new URL(href));
}
