/**
 * @module knowledge/chunkers/document
 * Paragraph packing: paragraphs (split on blank lines) are packed into chunks of at most
 * chunk_size characters; a paragraph too large on its own is packed by sentences instead.
 */
import type { Chunk, Document } from '../types.js';
import { SIZED_DEFAULTS, cleanText, defineChunker, pack, sizeOptions, splitWords, toChunks, withOverlap, type ChunkerOf, type SizeOptions } from './chunker.js';

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
      .map((p) => cleanText(p).trim())
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
