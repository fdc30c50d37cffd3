/**
 * @module knowledge/chunkers/document
 * Paragraph packing: paragraphs (split on blank lines) are packed into chunks of at most
 * chunk_size characters; a paragraph too large on its own is packed by sentences instead.
 *
 * Inside a paragraph, whitespace collapses to one space, but a line break stays one line break:
 * agno flattens paragraphs onto one line, which turned a labelled CSV record's `Label: value`
 * lines, a table's rows and a slide's lines into one run of text (agno itself keeps a document
 * that fits in a chunk as it is, line breaks included).
 */
import type { Chunk, Document } from '../types.js';
import { SIZED_DEFAULTS, defineChunker, pack, sizeOptions, splitWords, toChunks, withOverlap, type ChunkerOf, type SizeOptions } from './chunker.js';

export class DocumentChunker implements ChunkerOf<'DocumentChunker'> {
  readonly type = 'DocumentChunker' as const;
  readonly chunkSize: number;
  readonly overlap: number;

  constructor(options: SizeOptions = {}) {
    ({ chunkSize: this.chunkSize, overlap: this.overlap } = sizeOptions(this.type, options));
  }

  chunk(doc: Document): Chunk[] {
    const paragraphs = doc.content
      .split(/\n\s*\n/)
      .map((p) => keepLines(p).trim())
      .filter(Boolean);
    const bySentence = (paragraph: string) =>
      pack(splitSentences(paragraph), this.chunkSize, ' ', (sentence) => splitWords(sentence, this.chunkSize));
    return toChunks(doc, withOverlap(pack(paragraphs, this.chunkSize, '\n\n', bySentence), this.overlap));
  }
}

export const DOCUMENT_CHUNKER = defineChunker({
  key: 'DocumentChunker',
  description: 'Packs paragraphs, then sentences, up to the chunk size',
  metadata: SIZED_DEFAULTS,
  create: (options) => new DocumentChunker(options),
  offload: { class: DocumentChunker, settings: (c) => ({ chunkSize: c.chunkSize, overlap: c.overlap }), rebuild: (s) => new DocumentChunker(s) },
});

/** Sentences end at `.`, `!` or `?` followed by whitespace; the mark stays with its sentence. */
export function splitSentences(text: string): string[] {
  return text
    .split(/(?<=[.!?])\s+/)
    .map((s) => s.trim())
    .filter(Boolean);
}

/** Collapses each whitespace run to one line break if it holds one, else to one space. */
function keepLines(text: string): string {
  return text.replace(/\s+/g, (run) => (/[\n\r]/.test(run) ? '\n' : ' '));
}
