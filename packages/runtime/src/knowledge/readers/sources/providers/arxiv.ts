/**
 * @module knowledge/readers/sources/providers/arxiv
 * arXiv's query API: `GET {base}/api/query?search_query=...&id_list=...&start=0&max_results=N
 * &sortBy=relevance&sortOrder=descending` answers an Atom feed: `<feed>` with
 * `opensearch:totalResults`, then one `<entry>` per paper: `id` (the abs URL, version
 * included), `published`, `updated`, `title`, `summary` (the abstract), `author/name`,
 * `link` (`rel="alternate"` the abs page, `title="pdf"` the PDF), `arxiv:primary_category`,
 * `category`, and optional `arxiv:doi`, `arxiv:comment`, `arxiv:journal_ref`. A bad query is
 * answered with one entry whose id is under `/api/errors` and whose summary says what was wrong.
 */
import { XMLParser } from 'fast-xml-parser';

export interface ArxivPaper {
  /** e.g. `2401.01234` or `hep-th/9901001`, without version. */
  id: string;
  /** e.g. `v2`; empty when the feed gives none. */
  version: string;
  title: string;
  summary: string;
  authors: string[];
  published: string | undefined;
  updated: string | undefined;
  absUrl: string;
  pdfUrl: string | undefined;
  primaryCategory: string | undefined;
  categories: string[];
  doi: string | undefined;
  comment: string | undefined;
  journalRef: string | undefined;
}

export interface ArxivFeed {
  totalResults: number | undefined;
  papers: ArxivPaper[];
  /** The message of an error entry, when arXiv refused the query. */
  error: string | undefined;
}

/** New-style (`2401.01234`) and old-style (`hep-th/9901001`, `math.GT/0309136`) ids, version optional. */
export const ARXIV_ID = /^(\d{4}\.\d{4,5}|[a-z-]+(\.[A-Z]{2})?\/\d{7})(v\d+)?$/;

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '',
  textNodeName: '#text',
  parseTagValue: false,
  parseAttributeValue: false,
  removeNSPrefix: true,
  isArray: (name) => ['entry', 'author', 'link', 'category'].includes(name),
});

function at(value: unknown, ...path: string[]): unknown {
  let current = value;
  for (const key of path) {
    if (typeof current !== 'object' || current === null) return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}

function textOf(value: unknown): string | undefined {
  const raw = typeof value === 'string' ? value : typeof at(value, '#text') === 'string' ? (at(value, '#text') as string) : undefined;
  const text = raw?.replace(/\s+/g, ' ').trim();
  return text ? text : undefined;
}

function list(value: unknown): unknown[] {
  return Array.isArray(value) ? (value as unknown[]) : value === undefined ? [] : [value];
}

/** The id and version of an abs URL (`http://arxiv.org/abs/2401.01234v2`). */
export function arxivIdOf(absUrl: string): { id: string; version: string } | undefined {
  const match = /\/abs\/(.+?)(v\d+)?$/.exec(absUrl.trim());
  if (!match) return undefined;
  return { id: match[1]!, version: match[2] ?? '' };
}

export function parseArxivFeed(xml: string): ArxivFeed {
  const doc: unknown = parser.parse(xml);
  const feed = at(doc, 'feed');
  if (feed === undefined) throw new Error('not an Atom feed');
  const total = Number(textOf(at(feed, 'totalResults')));
  const papers: ArxivPaper[] = [];
  let error: string | undefined;
  for (const entry of list(at(feed, 'entry'))) {
    const absUrl = textOf(at(entry, 'id')) ?? '';
    if (absUrl.includes('/api/errors')) {
      error = textOf(at(entry, 'summary')) ?? textOf(at(entry, 'title')) ?? 'arXiv reported an error';
      continue;
    }
    const ids = arxivIdOf(absUrl);
    if (!ids) continue;
    const links = list(at(entry, 'link'));
    const pdf = links.find((l) => at(l, 'title') === 'pdf' || at(l, 'type') === 'application/pdf');
    papers.push({
      ...ids,
      title: textOf(at(entry, 'title')) ?? ids.id,
      summary: textOf(at(entry, 'summary')) ?? '',
      authors: list(at(entry, 'author')).flatMap((a) => textOf(at(a, 'name')) ?? []),
      published: textOf(at(entry, 'published')),
      updated: textOf(at(entry, 'updated')),
      absUrl,
      pdfUrl: typeof at(pdf, 'href') === 'string' ? (at(pdf, 'href') as string) : undefined,
      primaryCategory: typeof at(entry, 'primary_category', 'term') === 'string' ? (at(entry, 'primary_category', 'term') as string) : undefined,
      categories: list(at(entry, 'category')).flatMap((c) => (typeof at(c, 'term') === 'string' ? [at(c, 'term') as string] : [])),
      doi: textOf(at(entry, 'doi')),
      comment: textOf(at(entry, 'comment')),
      journalRef: textOf(at(entry, 'journal_ref')),
    });
  }
  return { totalResults: Number.isFinite(total) ? total : undefined, papers, error };
}

/**
 * A free-text topic as an arXiv `search_query`: kept as is when it already uses the query
 * syntax (a field prefix such as `ti:` or `all:`), else every word must appear (`all:` terms
 * joined with AND), which is what a person typing words means.
 */
export function toSearchQuery(topic: string): string {
  const trimmed = topic.trim();
  if (/\b(ti|au|abs|co|jr|cat|rn|id|all):/.test(trimmed)) return trimmed;
  const words = trimmed.split(/\s+/).map((w) => w.replace(/["():]/g, '')).filter(Boolean);
  return words.map((w) => `all:${w}`).join(' AND ');
}
