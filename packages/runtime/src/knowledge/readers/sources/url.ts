/**
 * @module knowledge/readers/sources/url
 * `url`: one URL, fetched under the knowledge base's SSRF rules and read by the reader its
 * content type names (html for web pages), else its path's extension, else text; or by the
 * byte reader the caller named. Documents are named after the page title (or the URL) and
 * carry `url` in their metadata. It is what `insert({ url })` uses when no reader is named.
 */
import { createHash } from 'node:crypto';
import { badRequest } from '../../../errors.js';
import { parseUrl } from '../../../net/safe-fetch.js';
import type { Document, ReaderInput } from '../../types.js';
import { TEXT_CHUNKERS } from '../reader.js';
import { knownOptions, refuseBytes, type SourceContext, type SourceInput, type SourceReader, type SourceResult } from './source-reader.js';

export class UrlReader implements SourceReader {
  readonly id = 'url';
  readonly name = 'UrlReader';
  readonly description = 'Fetches one URL and reads it with the reader its content type picks (HTML pages as markdown)';
  readonly chunkers = ['MarkdownChunker', ...TEXT_CHUNKERS] as const;
  readonly contentTypes = ['url'] as const;
  readonly source = 'url';

  read(input: ReaderInput): Promise<Document[]> {
    return Promise.reject(refuseBytes(this, input));
  }

  check(input: SourceInput): { url: string } {
    if (input.url === undefined) throw badRequest('The url reader needs a url');
    knownOptions(input.options, this.id, []);
    return { url: parseUrl(input.url).href };
  }

  async readSource(input: SourceInput, context: SourceContext): Promise<SourceResult> {
    const { url } = this.check(input);
    const fetched = await context.fetch(url);
    const file = new URL(fetched.url).pathname.split('/').pop() || '';
    const reader = input.readWith ?? context.readers.forMimeType(fetched.mimeType) ?? context.readers.forFile(file || 'text');
    // The reader sees the URL path's last segment, so stems and extensions stay meaningful.
    const notes: string[] = [];
    const documents = await reader.read({ data: fetched.body, name: input.name ?? (file || fetched.url) }, { signal: context.signal, notes });
    const title = documents.map((doc) => doc.meta_data.title).find((t): t is string => typeof t === 'string' && t.length > 0);
    const name = input.name ?? title ?? url;
    const named = documents.map((doc, i) => ({
      ...doc,
      name,
      // One id per document of the page, stable across re-ingestion of the same URL.
      id: documents.length === 1 ? url : `${url}#${i + 1}`,
      meta_data: { ...doc.meta_data, url },
    }));
    return {
      parts: [{ documents: named, reader }],
      title,
      size: fetched.body.byteLength,
      hash: createHash('sha256').update(fetched.body).digest('hex'),
      readerId: reader.id,
      notes,
    };
  }
}
