/**
 * @module knowledge/content/source-browser
 * Browsing a knowledge base's remote content sources (read-only): which sources it has, and one
 * page of a folder (its files and sub-folders, as the provider lists them).
 *
 * Pages are numbered (as in the reference API) but providers page with opaque tokens, so the
 * token that starts each page is remembered (a small LRU per source, prefix, delimiter, limit and
 * params); reaching page n cold walks the tokens from the nearest page known, a request per page.
 * `total_pages` is `page + 1` while the provider says there is more, and `total_count` counts
 * the entries up to this page: providers do not say how many entries a folder has.
 *
 * A provider's failure keeps its meaning (404 not found, 403 credentials refused, 503 throttled
 * with Retry-After); it never becomes a 500.
 */
import type { KnowledgeComponent } from '../../components/component.js';
import { badRequest, RuntimeError } from '../../errors.js';
import { isConfigurableKnowledge } from '../configurable.js';
import type { RemoteFile, RemoteFolder, RemoteListPage, RemoteSource } from '../remote-sources/remote-source.js';

/** Page tokens remembered, across all sources. */
const TOKEN_CACHE_SIZE = 2000;

const TYPES: Record<string, string> = {
  md: 'text/markdown',
  markdown: 'text/markdown',
  txt: 'text/plain',
  csv: 'text/csv',
  json: 'application/json',
  html: 'text/html',
  htm: 'text/html',
  xml: 'application/xml',
  pdf: 'application/pdf',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  pptx: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  doc: 'application/msword',
  xls: 'application/vnd.ms-excel',
  ppt: 'application/vnd.ms-powerpoint',
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  svg: 'image/svg+xml',
  zip: 'application/zip',
  yaml: 'application/yaml',
  yml: 'application/yaml',
};

function guessType(name: string): string | null {
  const dot = name.lastIndexOf('.');
  return dot > 0 ? (TYPES[name.slice(dot + 1).toLowerCase()] ?? null) : null;
}

function parseParams(text: string | undefined): Record<string, unknown> | undefined {
  if (text === undefined || text.trim() === '') return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw badRequest('source_params must be a valid JSON object');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw badRequest('source_params must be a JSON object');
  return value as Record<string, unknown>;
}

/** Remembers which token starts page n of a listing; least recently used first out. */
class PageTokens {
  private readonly tokens = new Map<string, string>();

  get(key: string): string | undefined {
    const token = this.tokens.get(key);
    if (token !== undefined) {
      this.tokens.delete(key);
      this.tokens.set(key, token);
    }
    return token;
  }

  set(key: string, token: string): void {
    this.tokens.delete(key);
    this.tokens.set(key, token);
    if (this.tokens.size > TOKEN_CACHE_SIZE) this.tokens.delete(this.tokens.keys().next().value!);
  }
}

/** One page of a folder, as the browse API answers it. */
export interface FolderPage {
  source: RemoteSource;
  /** The normalised prefix listed. */
  prefix: string;
  folders: RemoteFolder[];
  files: (RemoteFile & { content_type: string | undefined })[];
  /** The page asked for, or the last one when that is past the end. */
  reached: number;
  /** Whether the page asked for exists (else the answer is an empty page). */
  exists: boolean;
  hasMore: boolean;
  /** Entries up to and including this page. */
  countSoFar: number;
}

export interface FolderQuery {
  prefix?: string | undefined;
  delimiter: string;
  limit: number;
  page: number;
  /** JSON text of per-request source parameters. */
  source_params?: string | undefined;
}

export class SourceBrowser {
  private readonly tokens = new PageTokens();

  constructor(
    private readonly hosted: readonly KnowledgeComponent[],
    /** The runtime's own database, where knowledge bases that name none are stored. */
    private readonly defaultDbId: string,
  ) {}

  /** The sources of a knowledge base ([] when it has none). */
  sources(knowledgeId: string, dbId: string | undefined): readonly RemoteSource[] {
    const knowledge = this.hosted.find((k) => k.id === knowledgeId);
    if (!knowledge) throw new RuntimeError('NOT_FOUND', `Knowledge base "${knowledgeId}" not found`);
    if (dbId !== undefined && (knowledge.dbId ?? this.defaultDbId) !== dbId) throw new RuntimeError('NOT_FOUND', `Knowledge base "${knowledgeId}" is not stored in database "${dbId}"`);
    return isConfigurableKnowledge(knowledge) ? (knowledge.contentSources ?? []) : [];
  }

  /** One page of a folder of a source. */
  async folder(knowledgeId: string, sourceId: string, dbId: string | undefined, q: FolderQuery, signal: AbortSignal): Promise<FolderPage> {
    const source = this.sources(knowledgeId, dbId).find((s) => s.id === sourceId);
    if (!source) throw new RuntimeError('NOT_FOUND', `Content source not found: ${sourceId}`);
    const params = parseParams(q.source_params);
    const prefix = source.check(q.prefix ?? '', params);
    const base = JSON.stringify([knowledgeId, sourceId, prefix, q.delimiter, q.limit, params ?? null]);
    // The nearest page whose starting token is known (page 1 needs none).
    let at = q.page;
    let token: string | undefined;
    while (at > 1) {
      token = this.tokens.get(`${base}#${at}`);
      if (token !== undefined) break;
      at--;
    }
    let page: RemoteListPage;
    for (;;) {
      page = await source.list({ prefix, delimiter: q.delimiter, limit: q.limit, ...(token ? { page_token: token } : {}), ...(params ? { params } : {}), signal });
      if (page.next_page) this.tokens.set(`${base}#${at + 1}`, page.next_page);
      if (at === q.page || !page.next_page) break;
      token = page.next_page;
      at++;
    }
    // `at` is the page read: the one asked for, or the last one when that is past the end.
    const exists = at === q.page;
    const countSoFar = (at - 1) * q.limit + page.files.length + page.folders.length;
    // Past the end: an empty page, as any paged list.
    if (!exists) page = { files: [], folders: [] };
    return {
      source,
      prefix,
      folders: page.folders,
      files: page.files.map((f) => ({ ...f, content_type: f.content_type ?? guessType(f.name) ?? undefined })),
      reached: at,
      exists,
      hasMore: Boolean(page.next_page),
      countSoFar,
    };
  }
}
