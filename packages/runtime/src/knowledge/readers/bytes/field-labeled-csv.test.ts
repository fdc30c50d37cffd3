import { describe, expect, it } from 'vitest';
import { RuntimeError } from '../../../errors.js';
import { createChunker } from '../../chunkers/registry.js';
import { FieldLabeledCsvReader } from './field-labeled-csv.js';

async function refusal(p: Promise<unknown>): Promise<RuntimeError> {
  const error = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!RuntimeError.isInstance(error)) throw new Error(`expected a RuntimeError, got ${String(error)}`);
  return error;
}

const meta = (row_index: number) => ({ row_index, headers: ['full_name', 'born', 'known_for', 'notes'], total_rows: 4, source: 'field_labeled_csv_reader' });
const read = (data: string | Uint8Array, name = 'x.csv') => new FieldLabeledCsvReader().read({ data, name });

const PEOPLE = 'full_name,born,known_for,notes\nAda Lovelace,1815,"The first published program, 1843",\n"Grace\nHopper",1906,COBOL,Rear admiral\n\n,,,\nAlan Turing,1912\n';

describe('FieldLabeledCsvReader', () => {
  it('writes each data row as "Label: value" lines, leaving empty fields out', async () => {
    const docs = await new FieldLabeledCsvReader().read({ data: PEOPLE, name: 'lists/people.csv' });
    expect(docs).toEqual([
      { content: 'Full Name: Ada Lovelace\nBorn: 1815\nKnown For: The first published program, 1843', name: 'people', id: 'people_row_1', meta_data: meta(0) },
      { content: 'Full Name: Grace Hopper\nBorn: 1906\nKnown For: COBOL\nNotes: Rear admiral', name: 'people', id: 'people_row_2', meta_data: meta(1) },
      // The all-empty row 3 is not a record; a short row has its missing fields empty.
      { content: 'Full Name: Alan Turing\nBorn: 1912', name: 'people', id: 'people_row_4', meta_data: meta(3) },
    ]);
  });

  it('takes labels, empty fields, raw headers, titles and a delimiter as options', async () => {
    const reader = new FieldLabeledCsvReader({ fieldNames: ['Person', 'Year'], skipEmptyFields: false, formatHeaders: false, chunkTitle: ['Record A', 'Record B'], delimiter: ';' });
    const docs = await reader.read({ data: 'name;born;known_for\nAda;1815;\nGrace;1906;COBOL\nAlan;1912;\n', name: 'p.csv' });
    expect(docs.map((d) => d.content)).toEqual([
      'Record A\nPerson: Ada\nYear: 1815\nknown_for: ',
      'Record B\nPerson: Grace\nYear: 1906\nknown_for: COBOL',
      'Record A\nPerson: Alan\nYear: 1912\nknown_for: ',
    ]);
  });

  it('keeps one "Label: value" per line through its default chunker', async () => {
    const reader = new FieldLabeledCsvReader();
    const [doc] = await reader.read({ data: 'full_name,city\nOrla Brennan,Galway\n', name: 'people.csv' });
    const chunks = await createChunker(reader.chunkers[0]).chunk(doc!);
    expect(chunks.map((c) => c.content)).toEqual(['Full Name: Orla Brennan\nCity: Galway']);
  });

  it('claims .csv after the csv reader and chunks with DocumentChunker by default', () => {
    const reader = new FieldLabeledCsvReader();
    expect([reader.id, reader.name, reader.contentTypes, reader.chunkers[0]]).toEqual(['field_labeled_csv', 'FieldLabeledCsvReader', ['.csv'], 'DocumentChunker']);
  });

  it('refuses empty files, a lone header, broken quotes, rows longer than the header and binary data', async () => {
    expect((await refusal(read('', 'e.csv'))).message).toBe('field_labeled_csv reader: "e.csv" is empty');
    expect((await refusal(read('a,b\n', 'h.csv'))).message).toBe('field_labeled_csv reader: "h.csv" has a header but no data rows');
    expect((await refusal(read('a,b\n,\n', 'v.csv'))).message).toBe('field_labeled_csv reader: "v.csv" has no data row with a value');
    const quote = await refusal(read('a,b\n"open,1\n', 'q.csv'));
    expect([quote.code, quote.message]).toEqual(['VALIDATION_ERROR', expect.stringContaining('field_labeled_csv reader: "q.csv" is not valid CSV (')]);
    expect((await refusal(read('a,b\n1,2\n3,4,5\n', 'r.csv'))).message).toBe('field_labeled_csv reader: "r.csv" data row 2 has 3 fields but the header has 2');
    // Trailing empty fields beyond the header are only a ragged export, not data.
    expect(await read('a,b\n1,2,,\n')).toHaveLength(1);
    expect((await refusal(read(new Uint8Array([0xff, 0xfe, 0x00]), 'b.csv'))).message).toContain('not valid UTF-8');
  });
});
