/**
 * Content that is hostile by shape rather than by compression: nesting 100,000 deep (HTML,
 * JSON, Markdown), documents that are merely huge, and tables of a million rows (CSV, JSON,
 * XLSX), uploaded as files or sent as text. The generators are the shared test support's.
 */
import { xlsxWith } from '../../packages/runtime/test/support/hostile-files.js';
import { csvRows, flatHtml, jsonArray, nestedHtml, nestedJson } from '../../packages/runtime/test/support/hostile-inputs.js';
import type { HostileCase } from './case.js';

const ROWS = 1_000_000;
const MB = 1_000_000;

function millionRowSheet(): string {
  const rows: string[] = [];
  for (let i = 1; i <= ROWS; i++) rows.push(`<row r="${i}"><c r="A${i}"><v>${i}</v></c><c r="B${i}" t="inlineStr"><is><t>row ${i}</t></is></c></row>`);
  return `<?xml version="1.0" encoding="UTF-8"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>${rows.join('')}</sheetData></worksheet>`;
}

export const textCases: HostileCase[] = [
  {
    name: 'HTML of 100,000 nested divs, uploaded',
    class: 'deep nesting',
    send: { kind: 'file', name: 'nested.html', bytes: () => Buffer.from(nestedHtml(100_000)) },
    expect: { status: 'failed', message: /KNOWLEDGE_MAX_DEPTH/ },
  },
  {
    name: 'JSON nested 100,000 deep',
    class: 'deep nesting',
    send: { kind: 'text', name: 'deep.json', text: () => nestedJson(100_000), reader: 'json' },
    expect: { status: 'failed', message: /KNOWLEDGE_MAX_DEPTH/ },
  },
  {
    name: 'Markdown quoting itself 100,000 levels deep',
    class: 'deep nesting',
    send: { kind: 'file', name: 'quotes.md', bytes: () => Buffer.from(`${'>'.repeat(100_000)} deep\n`) },
    expect: { status: 'completed', message: /^$/ },
  },
  {
    name: 'a 9.5 MB flat HTML page, uploaded',
    class: 'huge flat',
    send: { kind: 'file', name: 'flat.html', bytes: () => Buffer.from(flatHtml(9.5 * MB)) },
    expect: { status: 'completed', message: /^$/ },
  },
  {
    name: 'a CSV of a million rows',
    class: 'million rows',
    send: { kind: 'file', name: 'rows.csv', bytes: () => Buffer.from(csvRows(ROWS)) },
    // Parsing a million rows takes the reading process near its resident limit; which limit
    // stops it first (memory, or the chunks its rows would make) depends on the collector.
    expect: { status: 'failed', message: /KNOWLEDGE_WORKER_RSS_MB|KNOWLEDGE_MAX_CHUNKS/ },
  },
  {
    name: 'a JSON array of a million objects',
    class: 'million rows',
    send: { kind: 'file', name: 'rows.json', bytes: () => Buffer.from(jsonArray(ROWS)) },
    expect: { status: 'failed', message: /KNOWLEDGE_MAX_DOCUMENTS/ },
  },
  {
    name: 'an XLSX sheet of a million rows',
    class: 'million rows',
    send: { kind: 'file', name: 'rows.xlsx', bytes: () => xlsxWith({ data: millionRowSheet(), deflate: true }) },
    expect: { status: 'failed', message: /KNOWLEDGE_MAX_PART_MB/ },
  },
];
