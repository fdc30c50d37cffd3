/**
 * @module knowledge/chunkers/recursive
 * Windows of at most chunk_size characters that end after the last newline in the window, or
 * failing that after the last period, so chunks tend to end at line or sentence breaks.
 */
import type { Chunk, Document } from '../types.js';
import { SIZED_DEFAULTS, cleanText, defineChunker, sizeOptions, toChunks, type ChunkerOf, type SizeOptions } from './chunker.js';

export class RecursiveChunker implements ChunkerOf<'RecursiveChunker'> {
  readonly type = 'RecursiveChunker' as const;
  readonly chunkSize: number;
  readonly overlap: number;

  constructor(options: SizeOptions = {}) {
    ({ chunkSize: this.chunkSize, overlap: this.overlap } = sizeOptions(this.type, options));
  }

  chunk(doc: Document): Chunk[] {
    const text = doc.content;
    const pieces: string[] = [];
    let start = 0;
    while (start < text.length) {
      let end = Math.min(start + this.chunkSize, text.length);
      if (end < text.length) {
        const window = text.slice(start, end);
        const newline = window.lastIndexOf('\n');
        const period = window.lastIndexOf('.');
        const at = newline > 0 ? newline : period > 0 ? period : -1;
        if (at > 0) end = start + at + 1;
      }
      // Cleaning after slicing keeps the break positions meaningful.
      pieces.push(cleanText(text.slice(start, end)).trim());
      if (end >= text.length) break;
      // An overlap reaching back past the window's start would not advance; agno then jumps
      // ahead by a tenth of the size, which can skip text, so here the window just ends.
      const next = end - this.overlap;
      start = next > start ? next : end;
    }
    return toChunks(doc, pieces);
  }
}

export const RECURSIVE_CHUNKER = defineChunker({
  key: 'RecursiveChunker',
  description: 'Size-bounded windows ending at line or sentence breaks',
  metadata: SIZED_DEFAULTS,
  create: (options) => new RecursiveChunker(options),
  offload: { class: RecursiveChunker, settings: (c) => ({ chunkSize: c.chunkSize, overlap: c.overlap }), rebuild: (s) => new RecursiveChunker(s) },
});
