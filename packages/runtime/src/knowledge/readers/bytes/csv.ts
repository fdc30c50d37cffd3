/**
 * @module knowledge/readers/bytes/csv
 * CSV: parsed strictly (unbalanced quotes and ragged rows are refused, not guessed at), then
 * written as one Document with a row per line and cells joined by ", ". RowChunker, the
 * default, makes each row a chunk. The header row is kept so every chunk set carries it.
 */
import { parse } from 'csv-parse/sync';
import { unprocessable } from '../../../errors.js';
import type { Document, ReaderInput } from '../../types.js';
import { decodeText, requireContent, stem, type Reader } from '../reader.js';

export interface CsvReaderOptions {
  delimiter?: string;
}

export class CsvReader implements Reader {
  readonly id = 'csv';
  readonly name = 'CsvReader';
  readonly description = 'Reads CSV files, one line per row; chunked one row per chunk by default';
  readonly chunkers = ['RowChunker', 'AgenticChunker', 'DocumentChunker', 'FixedSizeChunker', 'RecursiveChunker', 'SemanticChunker'] as const;
  readonly contentTypes = ['.csv', 'text/csv', 'file'] as const;
  private readonly delimiter: string;

  constructor(options: CsvReaderOptions = {}) {
    this.delimiter = options.delimiter ?? ',';
  }

  async read(input: ReaderInput): Promise<Document[]> {
    const text = decodeText(input, this.id);
    requireContent(text, input, this.id);
    let rows: string[][];
    try {
      rows = parse(text, { delimiter: this.delimiter, skip_empty_lines: true, relax_column_count: false }) as string[][];
    } catch (cause) {
      const reason = cause instanceof Error ? cause.message : String(cause);
      throw unprocessable(`csv reader: "${input.name}" is not valid CSV (${reason})`, cause);
    }
    if (rows.length === 0) throw unprocessable(`csv reader: "${input.name}" has no rows`);
    // A newline inside a quoted cell would split one row across two chunks.
    const lines = rows.map((cells) => cells.map((cell) => cell.replace(/[\r\n]+/g, ' ')).join(', '));
    const name = stem(input.name);
    return [{ content: lines.join('\n'), name, id: name, meta_data: {} }];
  }
}
