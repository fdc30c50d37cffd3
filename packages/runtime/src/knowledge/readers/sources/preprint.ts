/**
 * @module knowledge/readers/sources/preprint
 * `preprint`: papers from arXiv, found by a search (`topic`) or named by id
 * (`reader_options.id_list`). Each paper's abstract is one document (title and abstract as
 * content; `arxiv_id`, `title`, `authors`, `published`, `updated`, `pdf_url`, `abs_url`,
 * `primary_category` metadata). With `reader_options.include_pdf` the paper's PDF is fetched
 * too and read by the pdf reader, one document per page with the same paper metadata; a PDF
 * that cannot be read keeps the abstract, with a note.
 *
 * Settings: ARXIV_BASE_URL (the API, default https://export.arxiv.org), ARXIV_PDF_BASE_URL
 * (default https://arxiv.org), ARXIV_MAX_RESULTS (default 5). SSRF: both are the operator's;
 * PDFs are fetched from ARXIV_PDF_BASE_URL by id, never from a URL taken from the feed.
 */
import { badRequest, RuntimeError, unprocessable } from '../../../errors.js';
import type { Document, ReaderInput } from '../../types.js';
import { ARXIV_ID, parseArxivFeed, toSearchQuery, type ArxivFeed, type ArxivPaper } from './providers/arxiv.js';
import { chunkersWithDefault } from '../reader.js';
import { knownOptions, optionalBool, optionalEnum, optionalInt, refuseBytes, type SourceContext, type SourceInput, type SourcePart, type SourceReader, type SourceResult } from './source-reader.js';
import type { ArxivSettings } from '../../../settings/sources.js';

const SORTS = ['relevance', 'lastUpdatedDate', 'submittedDate'] as const;
const MAX_IDS = 50;

export class PreprintReader implements SourceReader {
  readonly id = 'preprint';
  readonly name = 'PreprintReader';
  readonly description = 'Reads arXiv papers found by a search or named by id: abstracts, and optionally the PDFs';
  readonly chunkers = chunkersWithDefault('FixedSizeChunker');
  readonly contentTypes = ['topic'] as const;
  readonly source = 'topic';

  constructor(private readonly settings: ArxivSettings = { baseUrl: 'https://export.arxiv.org', pdfBaseUrl: 'https://arxiv.org', maxResults: 5 }) {}

  read(input: ReaderInput): Promise<Document[]> {
    return Promise.reject(refuseBytes(this, input));
  }

  check(input: SourceInput): { topic: string } {
    knownOptions(input.options, this.id, ['id_list', 'max_results', 'sort_by', 'include_pdf']);
    optionalInt(input.options, 'max_results', this.id, 1, 50);
    optionalEnum(input.options, 'sort_by', this.id, SORTS);
    optionalBool(input.options, 'include_pdf', this.id);
    idList(input.options.id_list);
    const topic = input.topic?.trim() ?? '';
    if (!topic) throw badRequest('The preprint reader needs a topic: an arXiv search, or arXiv ids (e.g. "2401.01234, 1706.03762")');
    if (topic.length > 1000) throw badRequest('preprint reader: the topic is longer than 1000 characters');
    return { topic };
  }

  async readSource(input: SourceInput, context: SourceContext): Promise<SourceResult> {
    const { topic } = this.check(input);
    // A topic made only of arXiv ids names papers; anything else is a search (within id_list, if given).
    const named = idsIn(topic);
    const ids = [...new Set([...(named ?? []), ...idList(input.options.id_list)])];
    const query = named ? '' : toSearchQuery(topic);
    const maxResults = optionalInt(input.options, 'max_results', this.id, 1, 50) ?? (ids.length > 0 ? ids.length : this.settings.maxResults);
    const sortBy = optionalEnum(input.options, 'sort_by', this.id, SORTS) ?? 'relevance';
    const params = new URLSearchParams({
      search_query: query,
      id_list: ids.join(','),
      start: '0',
      max_results: String(maxResults),
      sortBy,
      sortOrder: 'descending',
    });
    const fetched = await context.fetchService(`${this.settings.baseUrl}/api/query?${params.toString()}`, { maxBytes: Math.min(context.maxBytes, 16 * 1024 * 1024), allowHttpErrors: true });
    let feed: ArxivFeed;
    try {
      feed = parseArxivFeed(Buffer.from(fetched.body).toString('utf8'));
    } catch (cause) {
      if (fetched.status >= 500 || fetched.status === 429) throw new RuntimeError('SERVICE_UNAVAILABLE', `arXiv answered HTTP ${fetched.status}`, { cause });
      throw new RuntimeError(fetched.status >= 400 ? 'BAD_REQUEST' : 'SERVICE_UNAVAILABLE', `arXiv answered HTTP ${fetched.status} without an Atom feed`, { cause });
    }
    // arXiv reports a bad query (a malformed id) as an error entry, with HTTP 400 or 200.
    if (feed.error) throw badRequest(`preprint reader: arXiv refused the query: ${feed.error}`);
    if (fetched.status >= 400) throw badRequest(`arXiv answered HTTP ${fetched.status}`);
    const papers = feed.papers.filter((p) => p.summary !== '' || p.title !== '');
    if (papers.length === 0) throw unprocessable(`preprint reader: arXiv found no papers for ${query ? `"${topic}"` : `the ids ${ids.join(', ')}`}`);

    const parts: SourcePart[] = [{ documents: papers.map((p) => abstractDocument(p, input.name)), reader: this }];
    const notes: string[] = [];
    if (optionalBool(input.options, 'include_pdf', this.id)) {
      const pdfReader = context.readers.forFile('paper.pdf', 'application/pdf');
      let budget = context.maxBytes;
      for (const paper of papers) {
        if (budget <= 0) {
          notes.push(`${paper.id}: PDF not read, the knowledge limit of ${context.maxBytes} bytes was reached`);
          continue;
        }
        const pdfUrl = `${this.settings.pdfBaseUrl}/pdf/${paper.id}${paper.version}`;
        try {
          const pdf = await context.fetchService(pdfUrl, { maxBytes: budget });
          budget -= pdf.body.byteLength;
          const pages = await pdfReader.read({ data: pdf.body, name: `${paper.id}.pdf` }, { signal: context.signal });
          parts.push({
            reader: pdfReader,
            documents: pages.map((page, i) => ({
              content: page.content,
              name: input.name ?? paper.title,
              id: `arxiv:${paper.id}#page-${typeof page.meta_data.page === 'number' ? page.meta_data.page : i + 1}`,
              meta_data: { ...paperMetadata(paper), ...page.meta_data, pdf_url: pdfUrl },
            })),
          });
        } catch (error) {
          if (!RuntimeError.isInstance(error) || context.signal?.aborted) throw error;
          notes.push(`${paper.id}: PDF not read (${error.message}); its abstract was kept`);
        }
      }
    }
    const title = query ? topic : papers.length === 1 ? papers[0]!.title : `arXiv ${ids.join(', ')}`;
    return { parts, title, notes };
  }
}

/** The ids of a topic that lists only arXiv ids (comma or space separated), else undefined. */
export function idsIn(topic: string): string[] | undefined {
  const tokens = topic
    .split(/[\s,]+/)
    .map((t) => t.replace(/^arxiv:/i, ''))
    .filter(Boolean);
  return tokens.length > 0 && tokens.length <= MAX_IDS && tokens.every((t) => ARXIV_ID.test(t)) ? tokens : undefined;
}

/** `id_list` as an array or a comma-separated string; each id must look like an arXiv id. */
function idList(value: unknown): string[] {
  if (value === undefined || value === null || value === '') return [];
  const raw = typeof value === 'string' ? value.split(',') : Array.isArray(value) ? value : undefined;
  if (!raw || !raw.every((v): v is string => typeof v === 'string')) throw badRequest('preprint reader: reader_options.id_list must be a list of arXiv ids');
  const ids = raw.map((v) => v.trim().replace(/^arxiv:/i, '')).filter(Boolean);
  if (ids.length > MAX_IDS) throw badRequest(`preprint reader: reader_options.id_list names ${ids.length} ids; at most ${MAX_IDS}`);
  const bad = ids.find((id) => !ARXIV_ID.test(id));
  if (bad) throw badRequest(`preprint reader: "${bad}" is not an arXiv id (e.g. 2401.01234 or hep-th/9901001)`);
  return ids;
}

function paperMetadata(paper: ArxivPaper): Record<string, string> {
  return {
    arxiv_id: paper.id,
    title: paper.title,
    authors: paper.authors.join(', '),
    ...(paper.published ? { published: paper.published } : {}),
    ...(paper.updated ? { updated: paper.updated } : {}),
    abs_url: paper.absUrl,
    ...(paper.pdfUrl ? { pdf_url: paper.pdfUrl } : {}),
    ...(paper.primaryCategory ? { primary_category: paper.primaryCategory } : {}),
    ...(paper.doi ? { doi: paper.doi } : {}),
  };
}

function abstractDocument(paper: ArxivPaper, name: string | undefined): Document {
  return {
    content: `${paper.title}\n\n${paper.summary}`.trim(),
    name: name ?? paper.title,
    id: `arxiv:${paper.id}`,
    meta_data: { ...paperMetadata(paper), authors_list: paper.authors, categories: paper.categories },
  };
}
