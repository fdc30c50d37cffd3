/**
 * @module knowledge/readers/bytes/converter/markdown
 * Small markdown writers the converter's formats share.
 */

/** A cell on one line, its pipes escaped, so it cannot break the table's row. */
function cell(text: string): string {
  return text.replace(/\s*[\r\n]+\s*/g, ' ').replaceAll('|', '\\|').trim();
}

/**
 * Rows as a markdown table, the first row as its header; short rows are padded so every row
 * has the table's width. Empty input gives ''.
 */
export function markdownTable(rows: readonly (readonly string[])[]): string {
  if (rows.length === 0) return '';
  const width = Math.max(1, ...rows.map((r) => r.length));
  const line = (r: readonly string[]) => `| ${Array.from({ length: width }, (_, i) => cell(r[i] ?? '')).join(' | ')} |`;
  return [line(rows[0]!), `|${' --- |'.repeat(width)}`, ...rows.slice(1).map(line)].join('\n');
}

/** Collapses runs of blank lines and trailing spaces, and trims. */
export function tidy(markdown: string): string {
  return markdown
    .replace(/\r\n?/g, '\n')
    .replace(/[ \t]+\n/g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/** turndown writes `-   item` (marker, three spaces); one space reads better and nests the same. */
export function compactLists(markdown: string): string {
  return markdown.replace(/^([ \t]*)([-*+]|\d+\.)[ ]{2,}(?=\S)/gm, '$1$2 ');
}
