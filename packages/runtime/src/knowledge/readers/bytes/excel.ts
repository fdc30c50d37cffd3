/**
 * @module knowledge/readers/bytes/excel
 * Excel .xlsx: one Document per sheet that has values, in tab order, with
 * `meta_data { sheet, sheet_index }` (the sheet's name and its 1-based tab position). Each row
 * is one line of its cells joined by ", " (as the csv reader writes rows), trailing empty cells
 * dropped, empty rows skipped; RowChunker, the default, makes each row a chunk.
 *
 * Cells are written as a person reads them: numbers to 15 significant digits (Excel's own
 * precision), dates as `YYYY-MM-DD` (with ` HH:MM:SS` when there is a time), booleans as
 * TRUE/FALSE, formulas as their cached result, rich text and hyperlinks as their text, errors
 * as `#DIV/0!`..., and a merged range's value once, in its top-left cell.
 *
 * Legacy `.xls` (the Excel 97-2003 binary format) is refused with advice to save as .xlsx: the
 * only npm library that reads it, SheetJS `xlsx` 0.18.5, has unfixed published vulnerabilities
 * (prototype pollution, ReDoS) in its last npm release. A file named .xls that really is an
 * .xlsx (a common mislabel) is read.
 *
 * exceljs opens the zip with its own JSZip, which inflates parts whole whatever they declare; so
 * the parts are inflated first by our zip reader (zip-archive.ts) within the content limits and
 * handed to exceljs as a stored zip, which it only copies out. Pictures and other binary parts,
 * which exceljs does not need for cells, are handed over empty and never inflated.
 */
import type { Cell, CellValue, Workbook, Worksheet } from 'exceljs';
import { unprocessable } from '../../../errors.js';
import { DEFAULT_CONTENT_LIMITS, type ContentLimits } from '../../../settings/content-limits.js';
import type { Document, ReaderInput } from '../../types.js';
import { encryptedRefusal, isEncryptedOoxml, isOle, isZip, openZip, requireBytes, type ZipArchive } from './office-zip.js';
import { storedZip } from './zip-archive.js';
import { sharedOffload, type Offload } from '../../../workers/offload.js';
import { readInWorker, type ReadPayload } from './offloaded.js';
import { TEXT_CHUNKERS, extension, stem, type ReadOptions, type Reader } from '../reader.js';

export interface ExcelReaderOptions {
  /** Only these sheets: names (case-insensitive) or 1-based tab positions. Default all. */
  sheets?: readonly (string | number)[];
  /** Where parsing runs; default the process's worker pool (see workers/offload). */
  offload?: Offload;
  /** Inflation budgets; default the built-in ones (the registry passes the environment's). */
  limits?: ContentLimits;
}

/** One sheet's cells as shown, row by row (trailing empty cells and empty rows dropped). */
export interface SheetRows {
  sheet: string;
  /** 1-based tab position. */
  index: number;
  rows: string[][];
}

export class ExcelReader implements Reader {
  readonly id = 'excel';
  readonly name = 'ExcelReader';
  readonly description = 'Reads Excel .xlsx workbooks, one document per sheet and one line per row (.xls is refused: save it as .xlsx)';
  readonly chunkers = ['RowChunker', ...TEXT_CHUNKERS] as const;
  readonly contentTypes = ['.xlsx', '.xls', 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', 'application/vnd.ms-excel'] as const;
  private readonly sheets: readonly (string | number)[] | undefined;
  private readonly offload: Offload | undefined;
  private readonly limits: ContentLimits;

  constructor(options: ExcelReaderOptions = {}) {
    this.sheets = options.sheets;
    this.offload = options.offload;
    this.limits = options.limits ?? DEFAULT_CONTENT_LIMITS;
  }

  async read(input: ReaderInput, options?: ReadOptions): Promise<Document[]> {
    const where = this.offload ?? sharedOffload();
    if (where !== 'inline') return readInWorker(where, 'excel', input, options, { limits: this.limits, ...(this.sheets ? { sheets: [...this.sheets] } : {}) });
    const name = stem(input.name);
    const docs: Document[] = [];
    for (const { sheet, index, rows } of await this.sheetRows(input)) {
      const content = rows.map((cells) => cells.join(', ')).join('\n');
      if (content) docs.push({ content, name, id: `${name}_sheet_${index}`, meta_data: { sheet, sheet_index: index } });
    }
    if (docs.length === 0) throw unprocessable(`excel reader: "${input.name}" has no cells with values in ${this.sheets ? 'the chosen sheets' : 'any sheet'}`);
    return docs;
  }

  /** The chosen sheets' rows, read on the calling thread (the converter writes them as tables). */
  async sheetRows(input: ReaderInput): Promise<SheetRows[]> {
    const data = requireBytes(input, this.id);
    if (isEncryptedOoxml(data)) throw encryptedRefusal(input, this.id);
    if (isOle(data)) {
      throw unprocessable(
        `excel reader: "${input.name}" is an Excel 97-2003 workbook (.xls), which cannot be read (no maintained library without known vulnerabilities reads that format); open it in Excel or LibreOffice, save it as .xlsx and upload that`,
      );
    }
    if (!isZip(data)) {
      const what = extension(input.name) === '.xls' ? 'an Excel workbook this reader can open (only .xlsx is read; save it as .xlsx)' : 'an Excel .xlsx workbook (it is not a zip archive)';
      throw unprocessable(`excel reader: "${input.name}" is not ${what}`);
    }
    const zip = openZip(data, input, this.id, 'XLSX', this.limits);
    if (!zip.has('xl/workbook.xml')) throw unprocessable(`excel reader: "${input.name}" is not an Excel workbook (it has no xl/workbook.xml)`);
    const stored = await inflatedParts(zip);
    const { default: ExcelJS } = await import('exceljs');
    const workbook: Workbook = new ExcelJS.Workbook();
    try {
      await workbook.xlsx.load(Buffer.from(stored.buffer, stored.byteOffset, stored.byteLength) as unknown as ArrayBuffer);
    } catch (cause) {
      const reason = cause instanceof Error ? cause.message : String(cause);
      throw unprocessable(`excel reader: "${input.name}" could not be read as XLSX (${reason})`, cause);
    }
    const all = workbook.worksheets;
    if (all.length === 0) throw unprocessable(`excel reader: "${input.name}" has no worksheets`);
    return this.pick(all, input).map((sheet) => ({ sheet: sheet.name, index: all.indexOf(sheet) + 1, rows: sheetCells(sheet) }));
  }

  private pick(all: Worksheet[], input: ReaderInput): Worksheet[] {
    if (!this.sheets) return all;
    return this.sheets.map((wanted) => {
      const sheet = typeof wanted === 'number' ? all[wanted - 1] : all.find((s) => s.name.toLowerCase() === wanted.toLowerCase());
      if (!sheet) throw unprocessable(`excel reader: "${input.name}" has no sheet ${typeof wanted === 'number' ? `number ${wanted}` : `"${wanted}"`}; it has ${all.map((s) => `"${s.name}"`).join(', ')}`);
      return sheet;
    });
  }
}

/** The parts exceljs reads, inflated within the limits, as a stored zip; binary parts (pictures, embedded objects) empty. */
async function inflatedParts(zip: ZipArchive): Promise<Uint8Array> {
  const parts: { name: string; data: Uint8Array }[] = [];
  for (const name of zip.fileNames) {
    const text = /\.(xml|rels|vml)$/i.test(name);
    parts.push({ name, data: text ? (await zip.read(name))! : new Uint8Array() });
  }
  return storedZip(parts);
}

function sheetCells(sheet: Worksheet): string[][] {
  const lines: string[][] = [];
  sheet.eachRow({ includeEmpty: false }, (row) => {
    const cells: string[] = [];
    for (let col = 1; col <= row.cellCount; col++) {
      const cell = row.getCell(col);
      // The other cells of a merged range repeat the top-left value; it is written once.
      cells.push(cell.isMerged && cell.master !== cell ? '' : cellText(cell));
    }
    while (cells.length > 0 && cells.at(-1) === '') cells.pop();
    if (cells.length > 0) lines.push(cells);
  });
  return lines;
}

/** A cell as text, on one line (a line break inside a cell would split its row). */
function cellText(cell: Cell): string {
  const value = cell.value;
  // `cell.value` copies a formula without a falsy result (0, FALSE, ''); `cell.result` keeps it.
  const shown = value !== null && typeof value === 'object' && ('formula' in value || 'sharedFormula' in value) ? (cell.result as CellValue) : value;
  return render(shown).replace(/\s*[\r\n]+\s*/g, ' ').trim();
}

function render(value: CellValue): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number') return formatNumber(value);
  if (typeof value === 'string') return value;
  if (typeof value === 'boolean') return value ? 'TRUE' : 'FALSE';
  if (value instanceof Date) return formatDate(value);
  if ('richText' in value) return value.richText.map((run) => run.text).join('');
  if ('error' in value) return value.error;
  // A formula the writer never calculated has no cached result: left empty, as a values-only view shows it.
  if ('formula' in value || 'sharedFormula' in value) return value.result === undefined ? '' : render(value.result);
  if ('hyperlink' in value) return typeof value.text === 'string' ? value.text : render(value.text as CellValue);
  return '';
}

function formatNumber(n: number): string {
  if (!Number.isFinite(n)) return String(n);
  return Number.isInteger(n) ? String(n) : String(Number(n.toPrecision(15)));
}

/** Excel dates have no zone: exceljs gives them as UTC, and they are written as such. */
function formatDate(d: Date): string {
  if (Number.isNaN(d.getTime())) return '';
  const iso = d.toISOString();
  const time = iso.slice(11, 19);
  return time === '00:00:00' ? iso.slice(0, 10) : `${iso.slice(0, 10)} ${time}`;
}

/** The worker task (see offloaded.ts): this reader, inline, in a worker thread. */
export function readInline(payload: ReadPayload): Promise<Document[]> {
  return new ExcelReader({ ...payload.options, offload: 'inline' }).read({ data: payload.data, name: payload.name });
}
