import { describe, expect, it } from 'vitest';
import { xlsxWorkbook } from '../../../../test/support/office-generators.js';
import { zip } from '../../../../test/support/office-fixtures.js';
import { RuntimeError } from '../../../errors.js';
import { ExcelReader } from './excel.js';

async function refusal(p: Promise<unknown>): Promise<RuntimeError> {
  const error = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!RuntimeError.isInstance(error)) throw new Error(`expected a RuntimeError, got ${String(error)}`);
  return error;
}

const cities = () =>
  xlsxWorkbook((wb) => {
    const sheet = wb.addWorksheet('Cities');
    sheet.addRow(['city', 'country', 'population', 'founded', 'capital', 'density', 'growth']);
    sheet.addRow(['Paris', 'France', 2100000, new Date(Date.UTC(1900, 0, 1)), true, { formula: 'C2/105', result: 20000.123456789 }, { formula: 'C2-C2', result: 0 }]);
    sheet.addRow(['Lyon', { richText: [{ text: 'Fr' }, { text: 'ance', font: { bold: true } }] }, 520000, new Date(Date.UTC(2024, 2, 1, 14, 30)), false, { error: '#DIV/0!' }, 0.1 + 0.2]);
    sheet.addRow([]);
    sheet.addRow(['Nice', 'France\nAlpes-Maritimes', null, null, null]);
    sheet.mergeCells('A7:C7');
    sheet.getCell('A7').value = 'Merged note';
    wb.addWorksheet('Empty');
    wb.addWorksheet('Links').getCell('B2').value = { text: 'Handbook', hyperlink: 'https://example.com/handbook' };
  });

describe('ExcelReader', () => {
  it('reads one document per non-empty sheet, a line per row, cells as a person reads them', async () => {
    const docs = await new ExcelReader().read({ data: await cities(), name: 'data/world.xlsx' });
    expect(docs).toEqual([
      {
        content: [
          'city, country, population, founded, capital, density, growth',
          'Paris, France, 2100000, 1900-01-01, TRUE, 20000.123456789, 0',
          'Lyon, France, 520000, 2024-03-01 14:30:00, FALSE, #DIV/0!, 0.3',
          'Nice, France Alpes-Maritimes',
          'Merged note',
        ].join('\n'),
        name: 'world',
        id: 'world_sheet_1',
        meta_data: { sheet: 'Cities', sheet_index: 1 },
      },
      // "Empty" (sheet 2) is skipped; a leading empty cell keeps its column.
      { content: ', Handbook', name: 'world', id: 'world_sheet_3', meta_data: { sheet: 'Links', sheet_index: 3 } },
    ]);
  });

  it('reads only the chosen sheets, by name or position, and says which exist', async () => {
    const data = await cities();
    const byName = await new ExcelReader({ sheets: ['links'] }).read({ data, name: 'w.xlsx' });
    expect(byName.map((d) => d.meta_data.sheet)).toEqual(['Links']);
    expect((await new ExcelReader({ sheets: [1] }).read({ data, name: 'w.xlsx' })).map((d) => d.meta_data.sheet)).toEqual(['Cities']);
    const unknown = await refusal(new ExcelReader({ sheets: ['Budget'] }).read({ data, name: 'w.xlsx' }));
    expect(unknown.message).toBe('excel reader: "w.xlsx" has no sheet "Budget"; it has "Cities", "Empty", "Links"');
  });

  it('claims .xlsx, .xls and both MIME types, with RowChunker first', () => {
    const reader = new ExcelReader();
    expect(reader.contentTypes).toEqual(['.xlsx', '.xls', 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', 'application/vnd.ms-excel']);
    expect(reader.chunkers[0]).toBe('RowChunker');
  });

  it('reads an .xlsx that was named .xls, and refuses a real .xls with advice', async () => {
    const docs = await new ExcelReader().read({ data: await cities(), name: 'mislabelled.xls' });
    expect(docs[0]!.meta_data.sheet).toBe('Cities');
    const ole = new Uint8Array([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1, 0, 0, 0, 0]);
    const legacy = await refusal(new ExcelReader().read({ data: ole, name: 'budget.xls' }));
    expect([legacy.code, legacy.message]).toEqual([
      'VALIDATION_ERROR',
      expect.stringMatching(/^excel reader: "budget\.xls" is an Excel 97-2003 workbook \(\.xls\), which cannot be read .*save it as \.xlsx/),
    ]);
    const html = await refusal(new ExcelReader().read({ data: new TextEncoder().encode('<table><tr><td>1</td></tr></table>'), name: 'export.xls' }));
    expect(html.message).toBe('excel reader: "export.xls" is not an Excel workbook this reader can open (only .xlsx is read; save it as .xlsx)');
  });

  it('tells a password-protected workbook (an OLE2 file with an EncryptedPackage) from a legacy .xls', async () => {
    // The start of such a file: the OLE2 signature, then, in its directory, the stream names in UTF-16.
    const encrypted = new Uint8Array(Buffer.concat([Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]), Buffer.alloc(504), Buffer.from('EncryptionInfo\0EncryptedPackage', 'utf16le')]));
    const error = await refusal(new ExcelReader().read({ data: encrypted, name: 'salaries.xlsx' }));
    expect([error.code, error.message]).toEqual([
      'VALIDATION_ERROR',
      'excel reader: "salaries.xlsx" is password-protected (encrypted), so its content cannot be read; remove the password and upload it again',
    ]);
  });

  it('refuses an empty file, garbage, a truncated workbook, a zip that is no workbook and one without values', async () => {
    const empty = await refusal(new ExcelReader().read({ data: new Uint8Array(), name: 'e.xlsx' }));
    expect(empty.message).toBe('excel reader: "e.xlsx" is empty (0 bytes)');
    const garbage = await refusal(new ExcelReader().read({ data: new TextEncoder().encode('a,b\n1,2'), name: 'g.xlsx' }));
    expect(garbage.message).toBe('excel reader: "g.xlsx" is not an Excel .xlsx workbook (it is not a zip archive)');
    const data = await cities();
    const truncated = await refusal(new ExcelReader().read({ data: data.slice(0, data.length - 200), name: 't.xlsx' }));
    expect([truncated.code, truncated.message]).toEqual(['VALIDATION_ERROR', expect.stringContaining('"t.xlsx" could not be read as XLSX')]);
    const notBook = await refusal(new ExcelReader().read({ data: zip({ 'readme.txt': 'hi' }), name: 'z.xlsx' }));
    expect(notBook.message).toBe('excel reader: "z.xlsx" is not an Excel workbook (it has no xl/workbook.xml)');
    const blank = await refusal(new ExcelReader().read({ data: await xlsxWorkbook((wb) => void wb.addWorksheet('Only')), name: 'b.xlsx' }));
    expect(blank.message).toBe('excel reader: "b.xlsx" has no cells with values in any sheet');
  });
});
