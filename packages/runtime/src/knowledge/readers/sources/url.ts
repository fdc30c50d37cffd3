/**
 * @module knowledge/readers/sources/url
 * `url`: one URL, fetched under the knowledge base's SSRF rules and read by the reader its
 * content type names (html for web pages), else its path's extension, else text; or by the
 * byte reader the caller named. Documents are named after the page title (or the URL) and
 * carry `url` in their metadata. It is what `insert({ url })` uses when no reader is named.
 */
import { badRequest } from '../../../errors.js';
import { parseUrl } from '../../../net/safe-fetch.js';
import { mapSliced } from '../../../util/time-slicer.js';
import { sha256Sliced } from '../../../util/utf8-slices.js';
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
    const documents = await reader.read({ data: fetched.body, name: input.name ?? (file || fetched.url) }, { signal: context.signal, notes, limits: context.limits });
    const title = documents.find((doc) => typeof doc.meta_data.title === 'string' && doc.meta_data.title.length > 0)?.meta_data.title as string | undefined;
    const name = input.name ?? title ?? url;
    const named = await mapSliced(documents, (doc, i) => ({
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
      hash: await sha256Sliced(fetched.body, undefined, context.signal),
      readerId: reader.id,
      notes,
    };
  }
}
