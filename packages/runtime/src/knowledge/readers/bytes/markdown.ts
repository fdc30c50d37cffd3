/**
 * @module knowledge/readers/bytes/markdown
 * Markdown: the whole file is one Document; MarkdownChunker (the default) splits it at headings.
 */
import type { Document, ReaderInput } from '../../types.js';
import { decodeText, requireContent, stem, type Reader } from '../reader.js';

export class MarkdownReader implements Reader {
  readonly id = 'markdown';
  readonly name = 'MarkdownReader';
  readonly description = 'Reads markdown files as one document, chunked at headings by default';
  readonly chunkers = ['MarkdownChunker', 'AgenticChunker', 'DocumentChunker', 'FixedSizeChunker', 'RecursiveChunker', 'SemanticChunker'] as const;
  readonly contentTypes = ['.md', '.markdown', 'text/markdown'] as const;

  async read(input: ReaderInput): Promise<Document[]> {
    const text = decodeText(input, this.id);
    requireContent(text, input, this.id);
    const name = stem(input.name);
    return [{ content: text, name, id: name, meta_data: {} }];
  }
}
