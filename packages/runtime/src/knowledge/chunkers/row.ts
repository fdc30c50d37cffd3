/**
 * @module knowledge/chunkers/row
 * One chunk per non-empty line, for tabular readers (CSV): a row is the unit a question is
 * usually about. Chunks carry `row_number` (1-based, counting the header) instead of size data.
 */
import type { Chunk, Document } from '../types.js';
import { chunkId, defineChunker, type ChunkerOf } from './chunker.js';

export interface RowChunkerOptions {
  /** Drop the first line (a header); numbering then starts at 2. */
  skipHeader?: boolean;
  /** Collapse whitespace inside each row. Default true. */
  cleanRows?: boolean;
}

export class RowChunker implements ChunkerOf<'RowChunker'> {
  readonly type = 'RowChunker' as const;
  readonly skipHeader: boolean;
  readonly cleanRows: boolean;

  constructor(options: RowChunkerOptions = {}) {
    this.skipHeader = options.skipHeader ?? false;
    this.cleanRows = options.cleanRows ?? true;
  }

  chunk(doc: Document): Chunk[] {
    const lines = doc.content.split(/\r\n|\r|\n/);
    const chunks: Chunk[] = [];
    lines.forEach((line, index) => {
      if (this.skipHeader && index === 0) return;
      const content = this.cleanRows ? line.replace(/\s+/g, ' ').trim() : line;
      if (!content.trim()) return;
      const rowNumber = index + 1;
      chunks.push({ content, name: doc.name, id: chunkId(doc, rowNumber, content, 'row_'), meta_data: { ...doc.meta_data, row_number: rowNumber } });
    });
    return chunks;
  }
}

/** Rows have no size: a given chunk_size and chunk_overlap are ignored. */
export const ROW_CHUNKER = defineChunker({
  key: 'RowChunker',
  description: 'One chunk per row of tabular content',
  metadata: {},
  create: () => new RowChunker(),
  offload: { class: RowChunker, settings: (c) => ({ skipHeader: c.skipHeader, cleanRows: c.cleanRows }), rebuild: (s) => new RowChunker(s) },
});
