/**
 * @module knowledge/readers/bytes/html
 * HTML: the page's main content as one markdown Document. linkedom builds the DOM (fast, no
 * browser), Readability picks the article out of navigation and boilerplate, and turndown turns
 * it into markdown so MarkdownChunker can split it at headings. A page Readability finds no
 * article in is converted whole, minus scripts, styles and page chrome. The three libraries
 * are imported on first use, so a runtime that never reads HTML does not load them.
 *
 * The page title goes to `meta_data.title`; URL ingestion names the document after it.
 *
 * Always read in the worker pool (offloaded.ts): what a page costs is not a function of its size.
 * Nesting is what hurts: linkedom's parse, Readability's passes (each element's text and
 * descendants, again at every level, up to five times) and turndown's recursion all grow with
 * depth times elements, so 2,000 nested `<div>`s (22 KB) took 30-60 s and 5,000 overflow
 * turndown's stack. Before any DOM is built, one linear pass of the same tokenizer linkedom uses
 * (htmlparser2, with its rules for implied and void elements) measures the nesting and refuses a
 * page deeper than KNOWLEDGE_MAX_DEPTH (256; browsers flatten past 512, real pages stay under
 * ~60). A page of more than 2 MiB skips all three for one streaming pass (html-stream.ts): the
 * DOM path held a 9.5 MB page three times over, past 1 GB. A crawl asks for the page's same-host links (`ReadOptions.links`), found on the same DOM
 * before Readability edits it.
 */
import { Parser } from 'htmlparser2';
import { unprocessable } from '../../../errors.js';
import type { Offload } from '../../../workers/offload.js';
import { INGEST_LIMIT_DEFAULTS, checkDocuments, tooDeep, type ReadLimits } from '../../limits.js';
import type { Document, ReaderInput } from '../../types.js';
import { decodeText, requireContent, stem, type ReadOptions, type Reader } from '../reader.js';
import { pageLinks } from '../sources/web/links.js';
import { LARGE_PAGE_CHARS, streamMarkdown } from './html-stream.js';
import { offloadFor, readInWorker, type ReadPayload, type ReadReply } from './offloaded.js';

interface HtmlLibraries {
  parseHTML: typeof import('linkedom').parseHTML;
  Readability: typeof import('@mozilla/readability').Readability;
  Turndown: typeof import('turndown');
}

let libraries: Promise<HtmlLibraries> | undefined;

function load(): Promise<HtmlLibraries> {
  libraries ??= Promise.all([import('linkedom'), import('@mozilla/readability'), import('turndown')]).then(([linkedom, readability, turndown]) => ({
    parseHTML: linkedom.parseHTML,
    Readability: readability.Readability,
    Turndown: turndown.default,
  }));
  return libraries;
}

const CHROME = ['script', 'style', 'noscript', 'template', 'iframe', 'nav', 'header', 'footer', 'aside', 'form'] as const;

export interface HtmlReaderOptions {
  /** Where parsing runs; default the process's worker pool (see workers/offload). */
  offload?: Offload;
}

export class HtmlReader implements Reader {
  readonly id = 'html';
  readonly name = 'HtmlReader';
  readonly description = "Reads an HTML page's main content (Readability) as markdown, chunked at headings by default";
  readonly chunkers = ['MarkdownChunker', 'AgenticChunker', 'DocumentChunker', 'FixedSizeChunker', 'RecursiveChunker', 'SemanticChunker'] as const;
  // `url` belongs to the url reader, which delegates web pages to this one.
  readonly contentTypes = ['.html', '.htm', '.xhtml', 'text/html', 'application/xhtml+xml'] as const;
  private readonly offload: Offload | undefined;

  constructor(options: HtmlReaderOptions = {}) {
    this.offload = options.offload;
  }

  async read(input: ReaderInput, options?: ReadOptions): Promise<Document[]> {
    const where = offloadFor(this.offload);
    if (where !== 'inline') return readInWorker(where, 'html', input, options);
    const { documents, links } = await readHtml(input, options?.limits, options?.links?.pageUrl);
    if (options?.links) options.links.found = links;
    return documents;
  }
}

/** The page's documents, and its same-host links when `linksOf` (the page's URL) is given. */
async function readHtml(input: ReaderInput, limits: ReadLimits | undefined, linksOf: string | undefined): Promise<{ documents: Document[]; links?: string[] }> {
  const raw = decodeText(input, 'html');
  requireContent(raw, input, 'html');
  // linkedom builds no <body> for a bare fragment, which would leave nothing to read.
  const html = /<html[\s>]/i.test(raw) ? raw : `<!doctype html><html><head></head><body>${raw}</body></html>`;
  checkNesting(html, input.name, limits?.maxDepth ?? INGEST_LIMIT_DEFAULTS.maxDepth);
  if (html.length > LARGE_PAGE_CHARS) return readLargePage(html, input, limits, linksOf);
  const { parseHTML, Readability, Turndown } = await load();
  const { document } = parseHTML(html);
  const links = linksOf !== undefined ? pageLinks(document, linksOf).map((url) => url.href) : undefined;
  const pageTitle = document.querySelector('title')?.textContent?.trim() || undefined;
  // Readability edits the DOM it reads; the fallback needs the page as it was.
  const fallbackHtml = document.body?.innerHTML ?? html;
  let article: { title?: string | null | undefined; content?: string | null | undefined } | null;
  try {
    article = new Readability(document).parse();
  } catch (cause) {
    throw unprocessable(`html reader: "${input.name}" could not be parsed (${cause instanceof Error ? cause.message : String(cause)})`, cause);
  }
  const turndown = new Turndown({ headingStyle: 'atx', codeBlockStyle: 'fenced', bulletListMarker: '-' });
  turndown.remove([...CHROME]);
  const markdown = turndown.turndown(article?.content || fallbackHtml).trim();
  if (markdown.length === 0) throw unprocessable(`html reader: "${input.name}" has no readable text`);
  const title = article?.title?.trim() || pageTitle;
  const name = stem(input.name);
  const documents = [{ content: markdown, name, id: name, meta_data: title ? { title } : {} }];
  checkDocuments(documents, input.name, limits);
  return { documents, ...(links ? { links } : {}) };
}

/**
 * A page past LARGE_PAGE_CHARS, read whole in one streaming pass (html-stream.ts); a crawl's
 * links come from the same tokenizer, without a DOM.
 */
function readLargePage(html: string, input: ReaderInput, limits: ReadLimits | undefined, linksOf: string | undefined): { documents: Document[]; links?: string[] } {
  const { markdown, title, links } = streamMarkdown(html, CHROME);
  if (markdown.length === 0) throw unprocessable(`html reader: "${input.name}" has no readable text`);
  const name = stem(input.name);
  const documents = [{ content: markdown, name, id: name, meta_data: title ? { title } : {} }];
  checkDocuments(documents, input.name, limits);
  return { documents, ...(linksOf !== undefined ? { links: pageLinks(links, linksOf).map((url) => url.href) } : {}) };
}

/** Stops the pass at the first element too deep. */
class TooDeep extends Error {}

/**
 * Refuses HTML whose elements nest more than `max` deep, in one pass of htmlparser2's tokenizer
 * (the parser linkedom builds its DOM with, with the same options, so implied and void elements
 * count as they will there). Stops at the first element past the limit.
 */
export function checkNesting(html: string, name: string, max: number): void {
  let depth = 0;
  const parser = new Parser(
    {
      onopentag() {
        if (++depth > max) throw new TooDeep();
      },
      onclosetag() {
        depth--;
      },
    },
    { lowerCaseAttributeNames: false, decodeEntities: true, xmlMode: false },
  );
  try {
    parser.write(html);
    parser.end();
  } catch (error) {
    if (error instanceof TooDeep) throw tooDeep(name, max, 'elements');
    throw error;
  }
}

/** The worker task (see offloaded.ts): this reader, inline, in a worker process. */
export async function readInline(payload: ReadPayload): Promise<ReadReply> {
  return readHtml({ data: payload.data, name: payload.name }, payload.limits, payload.linksOf);
}
