/**
 * @module knowledge/readers/bytes/html-stream
 * Markdown from a large HTML page in one streaming pass of htmlparser2, with no DOM. The html
 * reader's usual path (linkedom, Readability, turndown) holds the page three times over: a
 * 9.5 MB flat page took ~700 MB and 5 s in it, over 1 GB in a worker thread. Past
 * LARGE_PAGE_CHARS a page is an export, a specification or a dump rather than an article
 * between navigation, so its whole text is the content: this pass keeps headings, paragraphs,
 * list items, quotes, preformatted text and table rows as markdown blocks, drops what
 * `skip` names (scripts, styles, page chrome), and costs about the size of its output.
 */
import { Parser } from 'htmlparser2';
import type { LinkDocument } from '../sources/web/links.js';

/** Pages of more characters than this are read by `streamMarkdown`. */
export const LARGE_PAGE_CHARS = 2 * 1024 * 1024;

const HEADING = /^h([1-6])$/;
// Elements that never hold content: they open and close at once, so they do not count as depth.
const VOID = new Set(['area', 'base', 'br', 'col', 'embed', 'hr', 'img', 'input', 'link', 'meta', 'source', 'track', 'wbr']);
const BLOCKS = new Set(['p', 'div', 'section', 'article', 'main', 'li', 'dt', 'dd', 'blockquote', 'pre', 'tr', 'table', 'ul', 'ol', 'dl', 'figure', 'figcaption', 'br', 'hr', 'body']);

export interface StreamedPage {
  markdown: string;
  title: string | undefined;
  /** The page's links as a minimal document, for sources/web/links.ts's pageLinks. */
  links: LinkDocument;
}

type Attributes = Record<string, string>;

/** Anchors and `<base>` gathered in the pass, answering the two selectors pageLinks asks. */
function linkDocument(anchors: Attributes[], base: Attributes | undefined): LinkDocument {
  const element = (attributes: Attributes) => ({ getAttribute: (name: string) => attributes[name] ?? null });
  return {
    querySelector: (selector) => (selector === 'base[href]' && base ? element(base) : null),
    querySelectorAll: (selector) => (selector === 'a[href]' ? anchors.map(element) : []),
  };
}

/** The page's text as markdown blocks, skipping every element named in `skip` and its content. */
export function streamMarkdown(html: string, skip: readonly string[]): StreamedPage {
  const skipped = new Set([...skip, 'head', 'svg', 'math']);
  const blocks: string[] = [];
  let line = '';
  let prefix = '';
  let skipDepth = 0;
  let inTitle = false;
  let title = '';
  let preDepth = 0;
  const anchors: Attributes[] = [];
  let base: Attributes | undefined;
  const flush = () => {
    const text = preDepth > 0 ? line.replace(/^\n+|\n+$/g, '') : line.replace(/\s+/g, ' ').trim();
    if (text.length > 0) blocks.push(preDepth > 0 ? `\`\`\`\n${text}\n\`\`\`` : `${prefix}${text}`);
    line = '';
    prefix = '';
  };
  const parser = new Parser(
    {
      onopentag(name, attributes) {
        if (name === 'title') inTitle = true;
        // Links count wherever they are (a crawl follows navigation too), as on the DOM path.
        if (name === 'a' && attributes.href !== undefined) anchors.push(attributes);
        if (name === 'base' && attributes.href !== undefined) base ??= attributes;
        if (skipDepth > 0 || skipped.has(name)) {
          if (!VOID.has(name)) skipDepth++;
          return;
        }
        const heading = HEADING.exec(name);
        if (heading) {
          flush();
          prefix = `${'#'.repeat(Number(heading[1]))} `;
        } else if (BLOCKS.has(name)) {
          flush();
          if (name === 'li') prefix = '- ';
          else if (name === 'blockquote') prefix = '> ';
          else if (name === 'pre') preDepth++;
        } else if (name === 'td' || name === 'th') {
          if (line.length > 0) line += ' | ';
        }
      },
      ontext(text) {
        if (inTitle) title += text;
        if (skipDepth === 0) line += text;
      },
      onclosetag(name) {
        if (name === 'title') inTitle = false;
        if (skipDepth > 0) {
          if (!VOID.has(name)) skipDepth--;
          return;
        }
        if (HEADING.test(name) || BLOCKS.has(name)) {
          flush();
          if (name === 'pre') preDepth = Math.max(0, preDepth - 1);
        }
      },
    },
    { decodeEntities: true, lowerCaseTags: true },
  );
  parser.write(html);
  parser.end();
  flush();
  return { markdown: blocks.join('\n\n'), title: title.replace(/\s+/g, ' ').trim() || undefined, links: linkDocument(anchors, base) };
}
