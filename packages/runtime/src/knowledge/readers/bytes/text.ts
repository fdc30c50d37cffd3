/**
 * @module knowledge/readers/bytes/text
 * Plain text: the whole file is one Document. Also the fallback for unknown extensions.
 */
import type { Document, ReaderInput } from '../../types.js';
import { decodeText, requireContent, stem, type Reader } from '../reader.js';

export class TextReader implements Reader {
  readonly id = 'text';
  readonly name = 'TextReader';
  readonly description = 'Reads plain text files as one document';
  readonly chunkers = ['FixedSizeChunker', 'AgenticChunker', 'CodeChunker', 'DocumentChunker', 'RecursiveChunker', 'SemanticChunker'] as const;
  // The `text` content kind is web_search's in the reference map; this reader is the fallback by id.
  readonly contentTypes = ['.txt', '.text', 'text/plain'] as const;

  async read(input: ReaderInput): Promise<Document[]> {
    const text = decodeText(input, this.id);
    requireContent(text, input, this.id);
    const name = stem(input.name);
    return [{ content: text, name, id: name, meta_data: {} }];
  }
}
