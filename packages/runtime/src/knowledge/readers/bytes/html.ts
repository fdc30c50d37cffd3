/**
 * @module knowledge/readers/bytes/html
 * HTML: the page's main content as one markdown Document. linkedom builds the DOM (fast, no
 * browser), Readability picks the article out of navigation and boilerplate, and turndown turns
 * it into markdown so MarkdownChunker can split it at headings. A page Readability finds no
 * article in is converted whole, minus scripts, styles and page chrome. The three libraries
 * are imported on first use, so a runtime that never reads HTML does not load them.
 *
 * The page title goes to `meta_data.title`; URL ingestion names the document after it.
 */
import { unprocessable } from '../../../errors.js';
import type { Document, ReaderInput } from '../../types.js';
import { decodeText, requireContent, stem, type Reader } from '../reader.js';

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

export class HtmlReader implements Reader {
  readonly id = 'html';
  readonly name = 'HtmlReader';
  readonly description = "Reads an HTML page's main content (Readability) as markdown, chunked at headings by default";
  readonly chunkers = ['MarkdownChunker', 'AgenticChunker', 'DocumentChunker', 'FixedSizeChunker', 'RecursiveChunker', 'SemanticChunker'] as const;
  // `url` belongs to the url reader, which delegates web pages to this one.
  readonly contentTypes = ['.html', '.htm', '.xhtml', 'text/html', 'application/xhtml+xml'] as const;

  async read(input: ReaderInput): Promise<Document[]> {
    const html = decodeText(input, this.id);
    requireContent(html, input, this.id);
    const { parseHTML, Readability, Turndown } = await load();
    // linkedom builds no <body> for a bare fragment, which would leave nothing to read.
    const { document } = parseHTML(/<html[\s>]/i.test(html) ? html : `<!doctype html><html><head></head><body>${html}</body></html>`);
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
    return [{ content: markdown, name, id: name, meta_data: title ? { title } : {} }];
  }
}
