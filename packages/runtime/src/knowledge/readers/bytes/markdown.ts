/**
 * @module knowledge/readers/bytes/markdown
 * Markdown: the whole file is one Document; MarkdownChunker (the default) splits it at headings.
 * A large file is decoded in the worker pool (offloaded.ts).
 */
import type { Offload } from '../../../workers/offload.js';
import type { Document, ReaderInput } from '../../types.js';
import type { ReadOptions, Reader } from '../reader.js';
import { large, offloadFor, readInWorker, reply, type ReadPayload, type ReadReply } from './offloaded.js';
import { wholeText } from './text.js';

export interface MarkdownReaderOptions {
  /** Where large files are decoded; default the process's worker pool (see workers/offload). */
  offload?: Offload;
}

export class MarkdownReader implements Reader {
  readonly id = 'markdown';
  readonly name = 'MarkdownReader';
  readonly description = 'Reads markdown files as one document, chunked at headings by default';
  readonly chunkers = ['MarkdownChunker', 'AgenticChunker', 'DocumentChunker', 'FixedSizeChunker', 'RecursiveChunker', 'SemanticChunker'] as const;
  readonly contentTypes = ['.md', '.markdown', 'text/markdown'] as const;
  private readonly offload: Offload | undefined;

  constructor(options: MarkdownReaderOptions = {}) {
    this.offload = options.offload;
  }

  async read(input: ReaderInput, options?: ReadOptions): Promise<Document[]> {
    const where = offloadFor(this.offload);
    // Text given as a string has nothing to parse; bytes are decoded (and checked) there.
    if (where !== 'inline' && typeof input.data !== 'string' && large(input)) return readInWorker(where, 'markdown', input, options);
    return wholeText(input, this.id, options?.limits);
  }
}

/** The worker task (see offloaded.ts): this reader, inline, in a worker process. */
export function readInline(payload: ReadPayload): ReadReply {
  return reply(wholeText({ data: payload.data, name: payload.name }, 'markdown', payload.limits));
}
