/**
 * @module knowledge/readers/bytes/csv
 * CSV: parsed strictly (unbalanced quotes and ragged rows are refused, not guessed at), then
 * written as one Document with a row per line and cells joined by ", ". RowChunker, the
 * default, makes each row a chunk. The header row is kept so every chunk set carries it.
 * Large files are parsed in the worker pool (offloaded.ts).
 */
import { parse } from 'csv-parse/sync';
import { unprocessable } from '../../../errors.js';
import type { Offload } from '../../../workers/offload.js';
import { checkDocuments, type ReadLimits } from '../../limits.js';
import type { Document, ReaderInput } from '../../types.js';
import { decodeText, requireContent, stem, type ReadOptions, type Reader } from '../reader.js';
import { large, offloadFor, readInWorker, reply, type ReadPayload, type ReadReply } from './offloaded.js';

export interface CsvReaderOptions {
  delimiter?: string;
  /** Where large files are parsed; default the process's worker pool (see workers/offload). */
  offload?: Offload;
}

export class CsvReader implements Reader {
  readonly id = 'csv';
  readonly name = 'CsvReader';
  readonly description = 'Reads CSV files, one line per row; chunked one row per chunk by default';
  readonly chunkers = ['RowChunker', 'AgenticChunker', 'DocumentChunker', 'FixedSizeChunker', 'RecursiveChunker', 'SemanticChunker'] as const;
  readonly contentTypes = ['.csv', 'text/csv', 'file'] as const;
  private readonly delimiter: string;
  private readonly offload: Offload | undefined;

  constructor(options: CsvReaderOptions = {}) {
    this.delimiter = options.delimiter ?? ',';
    this.offload = options.offload;
  }

  async read(input: ReaderInput, options?: ReadOptions): Promise<Document[]> {
    const where = offloadFor(this.offload);
    if (where !== 'inline' && large(input)) return readInWorker(where, 'csv', input, options, { delimiter: this.delimiter });
    return readCsv(input, this.delimiter, options?.limits);
  }
}

function readCsv(input: ReaderInput, delimiter: string, limits: ReadLimits | undefined): Document[] {
  const text = decodeText(input, 'csv');
  requireContent(text, input, 'csv');
  let rows: string[][];
  try {
    rows = parse(text, { delimiter, skip_empty_lines: true, relax_column_count: false }) as string[][];
  } catch (cause) {
    const reason = cause instanceof Error ? cause.message : String(cause);
    throw unprocessable(`csv reader: "${input.name}" is not valid CSV (${reason})`, cause);
  }
  if (rows.length === 0) throw unprocessable(`csv reader: "${input.name}" has no rows`);
  // A newline inside a quoted cell would split one row across two chunks.
  const lines = rows.map((cells) => cells.map((cell) => cell.replace(/[\r\n]+/g, ' ')).join(', '));
  const name = stem(input.name);
  const documents = [{ content: lines.join('\n'), name, id: name, meta_data: {} }];
  checkDocuments(documents, input.name, limits);
  return documents;
}

/** The worker task (see offloaded.ts): this reader, inline, in a worker process. */
export function readInline(payload: ReadPayload): ReadReply {
  return reply(readCsv({ data: payload.data, name: payload.name }, (payload.options?.delimiter as string | undefined) ?? ',', payload.limits));
}
