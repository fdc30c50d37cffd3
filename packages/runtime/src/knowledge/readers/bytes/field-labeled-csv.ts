/**
 * @module knowledge/readers/bytes/field-labeled-csv
 * CSV as labelled records: the first row is the header and every data row becomes one Document
 * of `Label: value` lines, so each record reads (and is retrieved) on its own with its field
 * names:
 *
 * ```
 * Name: Ada Lovelace
 * Born: 1815
 * Known For: The first published program
 * ```
 *
 * Labels are the header's names with `_` turned into spaces and Title Case (`formatHeaders`), or
 * the `fieldNames` given, by position. Empty fields are left out (`skipEmptyFields`), and a
 * `chunkTitle` (or a list used in turn) can head each record. A row shorter than the header is
 * read with its missing trailing fields empty; a row with more non-empty fields than the header
 * has labels is refused rather than cut. Parsing is csv-parse's, strict about quotes.
 *
 * Documents: id `{stem}_row_{n}` (n 1-based over the data rows), name = stem, meta_data
 * `{ row_index (0-based), headers, total_rows, source: 'field_labeled_csv_reader' }`.
 *
 * agno never chunks these records; here a chunker always runs, so the default is
 * DocumentChunker, under which a record shorter than chunk_size stays one chunk, one
 * `Label: value` per line (DocumentChunker keeps line breaks; the other size-based chunkers
 * flatten whitespace onto one line).
 *
 * Large files are parsed in the worker pool (offloaded.ts); a file with more data rows than
 * KNOWLEDGE_MAX_DOCUMENTS is refused as the parser reaches the first row too many.
 */
import { parse } from 'csv-parse/sync';
import { RuntimeError, unprocessable } from '../../../errors.js';
import type { Offload } from '../../../workers/offload.js';
import { checkDocuments, tooManyDocuments, type ReadLimits } from '../../limits.js';
import type { Document, ReaderInput } from '../../types.js';
import { TEXT_CHUNKERS, decodeText, requireContent, stem, type ReadOptions, type Reader } from '../reader.js';
import { large, offloadFor, readInWorker, reply, type ReadPayload, type ReadReply } from './offloaded.js';

export interface FieldLabeledCsvReaderOptions {
  delimiter?: string;
  /** Labels by column position, replacing the header's; columns past the list keep theirs. */
  fieldNames?: readonly string[];
  /** `first_name` -> `First Name`. Default true. */
  formatHeaders?: boolean;
  /** Leave out fields whose value is empty. Default true. */
  skipEmptyFields?: boolean;
  /** A first line for every record; a list is used in turn, row by row. */
  chunkTitle?: string | readonly string[];
  /** Where large files are parsed; default the process's worker pool (see workers/offload). */
  offload?: Offload;
}

export class FieldLabeledCsvReader implements Reader {
  readonly id = 'field_labeled_csv';
  readonly name = 'FieldLabeledCsvReader';
  readonly description = 'Reads CSV files as one document per row, written as "Label: value" lines';
  readonly chunkers = ['DocumentChunker', ...TEXT_CHUNKERS.filter((c) => c !== 'DocumentChunker')] as const;
  readonly contentTypes = ['.csv'] as const;
  private readonly options: FieldLabeledCsvReaderOptions;

  constructor(options: FieldLabeledCsvReaderOptions = {}) {
    this.options = options;
  }

  async read(input: ReaderInput, options?: ReadOptions): Promise<Document[]> {
    const where = offloadFor(this.options.offload);
    if (where !== 'inline' && large(input)) {
      const { offload: _, ...settings } = this.options;
      return readInWorker(where, 'field_labeled_csv', input, options, settings as Record<string, unknown>);
    }
    return this.readRecords(input, options?.limits);
  }

  /** Reads on the calling thread. */
  readRecords(input: ReaderInput, limits?: ReadLimits): Document[] {
    const text = decodeText(input, this.id);
    requireContent(text, input, this.id);
    let rows: string[][];
    try {
      rows = parse(text, {
        delimiter: this.options.delimiter ?? ',',
        skip_empty_lines: true,
        relax_column_count: true,
        // Each data row is a document: stop at the first one past the limit.
        on_record: (record: string[], context: { records: number }) => {
          if (limits && context.records - 1 > limits.maxDocuments) throw tooManyDocuments(input.name, limits.maxDocuments);
          return record;
        },
      }) as string[][];
    } catch (cause) {
      if (RuntimeError.isInstance(cause)) throw cause;
      const reason = cause instanceof Error ? cause.message : String(cause);
      throw unprocessable(`${this.id} reader: "${input.name}" is not valid CSV (${reason})`, cause);
    }
    const [header, ...records] = rows;
    if (!header || header.every((h) => h.trim() === '')) throw unprocessable(`${this.id} reader: "${input.name}" has no header row`);
    if (records.length === 0) throw unprocessable(`${this.id} reader: "${input.name}" has a header but no data rows`);

    const formatHeaders = this.options.formatHeaders ?? true;
    const skipEmpty = this.options.skipEmptyFields ?? true;
    const headers = header.map((h) => h.trim());
    const labels = headers.map((h, i) => this.options.fieldNames?.[i] ?? (formatHeaders ? formatLabel(h) : h) ?? `Field ${i + 1}`);
    const titles = this.options.chunkTitle === undefined ? [] : typeof this.options.chunkTitle === 'string' ? [this.options.chunkTitle] : [...this.options.chunkTitle];
    const name = stem(input.name);

    const docs: Document[] = [];
    records.forEach((cells, index) => {
      const extra = cells.slice(headers.length).filter((c) => c.trim() !== '');
      if (extra.length > 0) {
        throw unprocessable(`${this.id} reader: "${input.name}" data row ${index + 1} has ${cells.length} fields but the header has ${headers.length}`);
      }
      const lines: string[] = [];
      labels.forEach((label, i) => {
        const value = (cells[i] ?? '').replace(/\s*[\r\n]+\s*/g, ' ').trim();
        if (skipEmpty && value === '') return;
        lines.push(`${label || `Field ${i + 1}`}: ${value}`);
      });
      // A row with nothing in it says nothing; it is not a record.
      if (lines.length === 0 || cells.every((c) => c.trim() === '')) return;
      const title = titles.length > 0 ? titles[index % titles.length] : undefined;
      docs.push({
        content: (title ? [title, ...lines] : lines).join('\n'),
        name,
        id: `${name}_row_${index + 1}`,
        meta_data: { row_index: index, headers, total_rows: records.length, source: 'field_labeled_csv_reader' },
      });
    });
    if (docs.length === 0) throw unprocessable(`${this.id} reader: "${input.name}" has no data row with a value`);
    checkDocuments(docs, input.name, limits);
    return docs;
  }
}

/** The worker task (see offloaded.ts): this reader, inline, in a worker process. */
export function readInline(payload: ReadPayload): ReadReply {
  const reader = new FieldLabeledCsvReader({ ...(payload.options as FieldLabeledCsvReaderOptions | undefined), offload: 'inline' });
  return reply(reader.readRecords({ data: payload.data, name: payload.name }, payload.limits));
}

/** `first_name` -> `First Name`; already spaced labels are title-cased the same way. */
function formatLabel(header: string): string {
  return header
    .replace(/_+/g, ' ')
    .trim()
    .split(/\s+/)
    .map((word) => (word ? word[0]!.toUpperCase() + word.slice(1).toLowerCase() : word))
    .join(' ');
}
