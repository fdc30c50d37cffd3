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
 * DocumentChunker, under which a record shorter than chunk_size stays one chunk (its lines
 * flattened onto one line, as every size-based chunker flattens whitespace).
 */
import { parse } from 'csv-parse/sync';
import { unprocessable } from '../../../errors.js';
import type { Document, ReaderInput } from '../../types.js';
import { TEXT_CHUNKERS, decodeText, requireContent, stem, type Reader } from '../reader.js';

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

  async read(input: ReaderInput): Promise<Document[]> {
    const text = decodeText(input, this.id);
    requireContent(text, input, this.id);
    let rows: string[][];
    try {
      rows = parse(text, { delimiter: this.options.delimiter ?? ',', skip_empty_lines: true, relax_column_count: true }) as string[][];
    } catch (cause) {
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
    return docs;
  }
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
