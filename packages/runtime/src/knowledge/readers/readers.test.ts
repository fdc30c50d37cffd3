import { describe, expect, it } from 'vitest';
import { RuntimeError } from '../../errors.js';
import { CsvReader } from './bytes/csv.js';
import { JsonReader } from './bytes/json.js';
import { MarkdownReader } from './bytes/markdown.js';
import { normalizeReaderId, ReaderRegistry } from './registry.js';
import { TextReader } from './bytes/text.js';

const bytes = (s: string) => new TextEncoder().encode(s);

async function refusal(p: Promise<unknown>): Promise<RuntimeError> {
  const error = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(RuntimeError.isInstance(error)).toBe(true);
  return error as RuntimeError;
}

describe('readers', () => {
  it('text and markdown read a whole file as one document named by its stem', async () => {
    expect(await new TextReader().read({ data: bytes('\uFEFFhello'), name: 'dir/notes.txt' })).toEqual([
      { content: 'hello', name: 'notes', id: 'notes', meta_data: {} },
    ]);
    const [doc] = await new MarkdownReader().read({ data: '# T\n\nbody', name: 'guide.md' });
    expect(doc).toMatchObject({ content: '# T\n\nbody', name: 'guide' });
  });

  it('refuses empty and non-UTF-8 files with VALIDATION_ERROR', async () => {
    expect((await refusal(new TextReader().read({ data: bytes('  \n'), name: 'e.txt' }))).code).toBe('VALIDATION_ERROR');
    const error = await refusal(new TextReader().read({ data: new Uint8Array([0xff, 0xfe, 0x00, 0xc3]), name: 'b.txt' }));
    expect(error.code).toBe('VALIDATION_ERROR');
    expect(error.message).toContain('not valid UTF-8');
  });

  it('json gives one document per array element, with a 1-based page', async () => {
    const docs = await new JsonReader().read({ data: '[{"a":1},{"b":"é"}]', name: 'items.json' });
    expect(docs).toEqual([
      { content: '{"a":1}', name: 'items', id: 'items_1', meta_data: { page: 1 } },
      { content: '{"b":"é"}', name: 'items', id: 'items_2', meta_data: { page: 2 } },
    ]);
    expect(await new JsonReader().read({ data: '{"x":true}', name: 'one.json' })).toHaveLength(1);
  });

  it('json refuses malformed input and empty arrays', async () => {
    const error = await refusal(new JsonReader().read({ data: '{"a": ', name: 'bad.json' }));
    expect(error.code).toBe('VALIDATION_ERROR');
    expect(error.message).toContain('"bad.json" is not valid JSON');
    expect((await refusal(new JsonReader().read({ data: '[]', name: 'e.json' }))).code).toBe('VALIDATION_ERROR');
  });

  it('csv writes one line per row with cells joined by ", "', async () => {
    const docs = await new CsvReader().read({ data: 'city,country\nParis,"France"\n"New\nYork",USA\n', name: 'cities.csv' });
    expect(docs).toEqual([{ content: 'city, country\nParis, France\nNew York, USA', name: 'cities', id: 'cities', meta_data: {} }]);
  });

  it('csv refuses unbalanced quotes and ragged rows', async () => {
    const quote = await refusal(new CsvReader().read({ data: 'a,b\n"x,y\n', name: 'q.csv' }));
    expect(quote.code).toBe('VALIDATION_ERROR');
    expect(quote.message).toContain('"q.csv" is not valid CSV');
    expect((await refusal(new CsvReader().read({ data: 'a,b\n1,2,3\n', name: 'r.csv' }))).code).toBe('VALIDATION_ERROR');
  });
});

describe('ReaderRegistry', () => {
  const registry = new ReaderRegistry();

  it('finds readers by id in any common spelling, and refuses unknown ones with BAD_REQUEST', async () => {
    expect(normalizeReaderId('CsvReader')).toBe('csv');
    expect(registry.get('csv_reader').id).toBe('csv');
    expect(registry.get('Markdown').id).toBe('markdown');
    expect(registry.get('FieldLabeledCsvReader').id).toBe('field_labeled_csv');
    expect(registry.get('PPTXReader').id).toBe('pptx');
    expect(registry.get('excel_reader').id).toBe('excel');
    const error = (() => {
      try {
        registry.get('no_such_reader');
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    expect(RuntimeError.isInstance(error) && error.code).toBe('BAD_REQUEST');
  });

  it('picks a reader by extension, then MIME type, else text', () => {
    expect(registry.forFile('a.MD').id).toBe('markdown');
    expect(registry.forFile('data', 'application/json; charset=utf-8').id).toBe('json');
    expect(registry.forFile('x.csv').id).toBe('csv');
    expect(registry.forFile('main.rs').id).toBe('text');
    expect(registry.forFile('paper.PDF').id).toBe('pdf');
    expect(registry.forFile('upload', 'application/vnd.openxmlformats-officedocument.wordprocessingml.document').id).toBe('docx');
    expect(registry.forFile('Budget.XLSX').id).toBe('excel');
    expect(registry.forFile('old.xls').id).toBe('excel');
    expect(registry.forFile('deck.pptx').id).toBe('pptx');
    expect(registry.forFile('memo.doc').id).toBe('docx');
    expect(registry.forFile('upload', 'application/vnd.ms-excel').id).toBe('excel');
  });

  it('maps content types to the readers that handle them', () => {
    const map = registry.readersForType();
    // The spec's lists, a format's own reader first (knowledge-spec.ts documents .pptx and HTML).
    expect(map['.csv']).toEqual(['csv', 'field_labeled_csv', 'converter']);
    expect(map['.xlsx']).toEqual(['excel', 'converter']);
    expect(map['.xls']).toEqual(['excel']);
    expect(map['application/vnd.openxmlformats-officedocument.spreadsheetml.sheet']).toEqual(['excel']);
    expect(map['application/vnd.ms-excel']).toEqual(['excel']);
    expect(map['.docx']).toEqual(['docx', 'converter']);
    expect(map['.doc']).toEqual(['docx']);
    expect(map['.pptx']).toEqual(['pptx', 'converter']);
    expect(map['.md']).toEqual(['markdown', 'converter']);
    expect(map['.pdf']).toEqual(['pdf', 'converter']);
    expect(map['.tar.gz']).toEqual(['converter']);
    expect(map['.txt']).toEqual(['text']);
    expect(map['application/json']).toEqual(['json']);
    expect(map['text/html']).toEqual(['html']);
    expect(map.url).toEqual(['url', 'website', 'crawler', 'video_site', 'web_search', 'bucket']);
    expect(map.youtube).toEqual(['video_site']);
    expect(map.text).toEqual(['web_search']);
    expect(map.topic).toEqual(['preprint']);
    expect(map.file).toEqual(['csv', 'bucket']);
  });

  it('picks a reader by MIME type alone, for fetched URLs', () => {
    expect(registry.forMimeType('text/html; charset=utf-8')?.id).toBe('html');
    expect(registry.forMimeType('text/markdown')?.id).toBe('markdown');
    expect(registry.forMimeType('text/csv')?.id).toBe('csv');
    expect(registry.forMimeType('application/pdf')?.id).toBe('pdf');
    // Only the converter reads images (OCR).
    expect(registry.forMimeType('image/png')?.id).toBe('converter');
    expect(registry.forMimeType('application/octet-stream')).toBeUndefined();
    expect(registry.forMimeType(undefined)).toBeUndefined();
  });
});
