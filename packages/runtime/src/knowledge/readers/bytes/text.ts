/**
 * @module knowledge/readers/bytes/text
 * Plain text: the whole file is one Document. Also the fallback for unknown extensions. A large
 * file is decoded in the worker pool (offloaded.ts).
 */
import type { Offload } from '../../../workers/offload.js';
import { checkDocuments, type ReadLimits } from '../../limits.js';
import type { Document, ReaderInput } from '../../types.js';
import { decodeText, requireContent, stem, type ReadOptions, type Reader } from '../reader.js';
import { large, offloadFor, readInWorker, reply, type ReadPayload, type ReadReply } from './offloaded.js';

export interface TextReaderOptions {
  /** Where large files are decoded; default the process's worker pool (see workers/offload). */
  offload?: Offload;
}

export class TextReader implements Reader {
  readonly id = 'text';
  readonly name = 'TextReader';
  readonly description = 'Reads plain text files as one document';
  readonly chunkers = ['FixedSizeChunker', 'AgenticChunker', 'CodeChunker', 'DocumentChunker', 'RecursiveChunker', 'SemanticChunker'] as const;
  // The `text` content kind is web_search's in the reference map; this reader is the fallback by id.
  readonly contentTypes = ['.txt', '.text', 'text/plain'] as const;
  private readonly offload: Offload | undefined;

  constructor(options: TextReaderOptions = {}) {
    this.offload = options.offload;
  }

  async read(input: ReaderInput, options?: ReadOptions): Promise<Document[]> {
    const where = offloadFor(this.offload);
    // Text given as a string has nothing to parse; bytes are decoded (and checked) there.
    if (where !== 'inline' && typeof input.data !== 'string' && large(input)) return readInWorker(where, 'text', input, options);
    return wholeText(input, this.id, options?.limits);
  }
}

/** The input as one Document, as the text and markdown readers read it. */
export function wholeText(input: ReaderInput, readerId: string, limits: ReadLimits | undefined): Document[] {
  const text = decodeText(input, readerId);
  requireContent(text, input, readerId);
  const name = stem(input.name);
  const documents = [{ content: text, name, id: name, meta_data: {} }];
  checkDocuments(documents, input.name, limits);
  return documents;
}

/** The worker task (see offloaded.ts): this reader, inline, in a worker process. */
export function readInline(payload: ReadPayload): ReadReply {
  return reply(wholeText({ data: payload.data, name: payload.name }, 'text', payload.limits));
}
