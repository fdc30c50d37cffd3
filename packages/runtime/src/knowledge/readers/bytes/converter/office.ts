/**
 * @module knowledge/readers/bytes/converter/office
 * Office documents, PDF text and CSV as markdown, by reusing the byte readers' extraction on the
 * worker's thread: Word (docx, dotx, docm, dotm) through the docx reader (mammoth + turndown,
 * already markdown); PowerPoint (pptx, potx, ppsx, pptm, ppsm, potm) through the pptx reader,
 * each slide headed `## Slide N: title`; Excel (xlsx, xlsm, and their templates) through the
 * excel reader's cells, one markdown table per sheet under `## Sheet: name`; CSV (parsed as
 * strictly as the csv reader does) as one markdown table.
 *
 * The readers' refusals name their reader ("docx reader: ..."); they are renamed to the
 * converter's, so a record says which reader was asked.
 */
import { parse } from 'csv-parse/sync';
import { RuntimeError, unprocessable } from '../../../../errors.js';
import type { ContentLimits } from '../../../../settings/content-limits.js';
import type { Document } from '../../../types.js';
import { DocxReader } from '../docx.js';
import { ExcelReader } from '../excel.js';
import { PptxReader } from '../pptx.js';
import { markdownTable } from './markdown.js';

/** Re-labels a reused reader's refusal as the converter's. */
export async function asConverter<T>(readerId: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (RuntimeError.isInstance(error) && error.message.startsWith(`${readerId} reader: `)) {
      throw new RuntimeError(error.code, `converter reader: ${error.message.slice(readerId.length + 9)}`, { cause: error });
    }
    throw error;
  }
}

export function wordDocument(data: Uint8Array, name: string, limits: ContentLimits): Promise<Document[]> {
  return asConverter('docx', () => new DocxReader({ offload: 'inline', limits }).read({ data, name }));
}

export async function slideDocuments(data: Uint8Array, name: string, limits: ContentLimits): Promise<Document[]> {
  const slides = await asConverter('pptx', () => new PptxReader({ offload: 'inline', limits }).read({ data, name }));
  // "Slide 2: Title" (or "Slide 2") opens each slide's text; as a heading it chunks at slides.
  return slides.map((doc) => ({ ...doc, content: doc.content.replace(/^(Slide \d+(?::[^\n]*)?)/, '## $1') }));
}

export async function sheetDocuments(data: Uint8Array, name: string, base: string, limits: ContentLimits): Promise<Document[]> {
  const sheets = await asConverter('excel', () => new ExcelReader({ offload: 'inline', limits }).sheetRows({ data, name }));
  const docs = sheets
    .filter((s) => s.rows.length > 0)
    .map(({ sheet, index, rows }) => ({ content: `## Sheet: ${sheet}\n\n${markdownTable(rows)}`, name: base, id: `${base}_sheet_${index}`, meta_data: { sheet, sheet_index: index } }));
  if (docs.length === 0) throw unprocessable(`converter reader: "${name}" has no cells with values in any sheet`);
  return docs;
}

export function csvDocument(text: string, name: string, base: string): Document[] {
  let rows: string[][];
  try {
    rows = parse(text, { skip_empty_lines: true, relax_column_count: false }) as string[][];
  } catch (cause) {
    throw unprocessable(`converter reader: "${name}" is not valid CSV (${cause instanceof Error ? cause.message : String(cause)})`, cause);
  }
  if (rows.length === 0) throw unprocessable(`converter reader: "${name}" has no rows`);
  return [{ content: markdownTable(rows), name: base, id: base, meta_data: { rows: rows.length } }];
}
