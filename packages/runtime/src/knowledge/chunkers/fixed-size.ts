/**
 * @module knowledge/chunkers/fixed-size
 * Fixed-size windows over the whitespace-flattened text, ending at the last whitespace inside
 * the window when there is one (so words are not cut), with a character overlap.
 */
import type { Chunk, Document } from '../types.js';
import { SIZED_DEFAULTS, cleanText, defineChunker, sizeOptions, toChunks, type ChunkerOf, type SizeOptions } from './chunker.js';

export class FixedSizeChunker implements ChunkerOf<'FixedSizeChunker'> {
  readonly type = 'FixedSizeChunker' as const;
  readonly chunkSize: number;
  readonly overlap: number;

  constructor(options: SizeOptions = {}) {
    ({ chunkSize: this.chunkSize, overlap: this.overlap } = sizeOptions(this.type, options));
  }

  chunk(doc: Document): Chunk[] {
    const text = cleanText(doc.content);
    const pieces: string[] = [];
    let start = 0;
    while (start < text.length) {
      let end = Math.min(start + this.chunkSize, text.length);
      if (end < text.length) {
        let cut = end;
        while (cut > start && !/\s/.test(text[cut]!)) cut--;
        // No whitespace in the window: cut hard rather than emit nothing.
        if (cut > start) end = cut;
      }
      pieces.push(text.slice(start, end));
      if (end >= text.length) break;
      start = Math.max(start + 1, end - this.overlap);
    }
    return toChunks(doc, pieces.map((p) => p.trim()));
  }
}

export const FIXED_SIZE_CHUNKER = defineChunker({
  key: 'FixedSizeChunker',
  description: 'Fixed-size character windows, cut at whitespace',
  metadata: SIZED_DEFAULTS,
  create: (options) => new FixedSizeChunker(options),
  offload: { class: FixedSizeChunker, settings: (c) => ({ chunkSize: c.chunkSize, overlap: c.overlap }), rebuild: (s) => new FixedSizeChunker(s) },
});
