/**
 * @module storage/ddl
 * Schema statements are written once, in PostgreSQL; this turns them into SQLite's.
 */
import type { DbKind } from './db.js';

// Quoted text, quoted names and comments (the `--;;` step separators among them) stay as written.
const VERBATIM = /'(?:[^']|'')*'|"(?:[^"]|"")*"|--[^\n]*/g;

const RULES: readonly [RegExp, string][] = [
  // SQLite's INTEGER already holds 64 bits, and only that exact name makes a PRIMARY KEY the rowid.
  [/\bBIGINT\b/gi, 'INTEGER'],
  // SQLite would read BYTEA as a NUMERIC column.
  [/\bBYTEA\b/gi, 'BLOB'],
  // SQLite has no IF NOT EXISTS here; the ledger runs each step once, so plain ADD COLUMN is safe.
  [/\bADD\s+COLUMN\s+IF\s+NOT\s+EXISTS\b/gi, 'ADD COLUMN'],
];

/**
 * PostgreSQL DDL as SQLite runs it. Only the rules above are applied: a step using anything else
 * whose meaning differs between the dialects (SERIAL, JSONB, pgvector, full-text search) gives
 * each dialect its own text.
 */
export function sqliteDdl(sql: string): string {
  let out = '';
  let at = 0;
  for (const verbatim of sql.matchAll(VERBATIM)) {
    out += translate(sql.slice(at, verbatim.index)) + verbatim[0];
    at = verbatim.index + verbatim[0].length;
  }
  return out + translate(sql.slice(at));
}

function translate(text: string): string {
  return RULES.reduce((s, [pattern, replacement]) => s.replace(pattern, replacement), text);
}

/** `sql` (PostgreSQL DDL) for the given dialect. */
export function ddlFor(kind: DbKind, sql: string): string {
  return kind === 'sqlite' ? sqliteDdl(sql) : sql;
}
