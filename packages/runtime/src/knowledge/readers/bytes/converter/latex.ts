/**
 * @module knowledge/readers/bytes/converter/latex
 * LaTeX source as markdown, by a small single-pass converter of our own (no TeX engine: macros
 * are not expanded, so this reads documents as written, not as typeset):
 *
 * - the title, authors and date of the preamble head the text; only the `document` body is read;
 * - `\part`/`\chapter` -> `#`, `\section` -> `##`, `\subsection` -> `###`, `\subsubsection` ->
 *   `####`, `\paragraph` -> `#####` (starred forms too);
 * - itemize/enumerate/description as nested `-` / `1.` lists (`\item[term]` in bold);
 * - tabular/tabularx/longtable as markdown tables (rules dropped, `&` cells, `\\` rows);
 * - verbatim/lstlisting/minted as fenced code; display math (`\[..\]`, `$$..$$`, equation,
 *   align, gather, multline, eqnarray) kept verbatim in `$$` blocks; inline math kept as `$..$`;
 * - figure and table captions as `Figure:` / `Table:` lines, the abstract under a heading,
 *   `\bibitem`s as a reference list;
 * - text commands keep their text (`\textbf{x}` -> x), `\href{u}{t}` -> [t](u), `\url{u}` -> u,
 *   `\footnote{x}` -> (x), `\cite{a,b}` -> [a, b]; commands that only lay out or define
 *   (`\label`, `\vspace`, `\usepackage`, `\newcommand`...) are removed with their arguments;
 *   an unknown command is removed and its braced arguments kept;
 * - comments removed; `~`, `--`, `---`, quotes, `\ldots`, escaped specials and accents decoded.
 */
import { unprocessable } from '../../../../errors.js';
import { KEEP, Scanner, restoreBlocks } from './latex-scanner.js';
import { tidy } from './markdown.js';

export interface LatexResult {
  content: string;
  title?: string;
}

/** Removes `%` comments (not `\%`), keeping the line break. */
function stripComments(text: string): string {
  return text.replace(/(^|[^\\])%.*$/gm, '$1');
}

/** The text of the first `\name{...}` in the preamble, converted (`\and` between authors as a comma). */
function preambleField(preamble: string, name: string): string | undefined {
  const at = preamble.search(new RegExp(`\\\\${name}\\s*(\\[[^\\]]*\\])?\\s*\\{`));
  if (at < 0) return undefined;
  const open = preamble.indexOf('{', at);
  const inner = preamble.slice(open + 1, open + 1 + matchingBrace(preamble.slice(open))).replace(/\\and\b/g, ', ');
  const text = new Scanner(inner).convert().replace(/\s+/g, ' ').replace(/ ,/g, ',').trim();
  return text || undefined;
}

function matchingBrace(text: string): number {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '\\') i++;
    else if (text[i] === '{') depth++;
    else if (text[i] === '}' && --depth === 0) return i - 1;
  }
  return text.length - 1;
}

/** Joins the lines of plain paragraphs (LaTeX source wraps them); headings, lists, tables and blocks keep their lines. */
function joinParagraphs(markdown: string, blocks: string[]): string {
  return tidy(markdown)
    .split(/\n{2,}/)
    .map((para) => {
      const restored = restoreBlocks(para, blocks);
      if (restored !== para) return restored;
      const lines = para.split('\n');
      if (lines.some((l) => /^\s*([-#|>]|\d+\.)\s/.test(l))) return lines.map((l) => l.trimEnd()).join('\n');
      return lines.map((l) => l.trim()).join(' ').replace(/ {2,}/g, ' ');
    })
    .filter((p) => p.trim() !== '')
    .join('\n\n');
}

export function latexToMarkdown(source: string, fileName: string): LatexResult {
  const text = stripComments(source.replace(/\r\n?/g, '\n'));
  const begin = text.indexOf('\\begin{document}');
  const endAt = text.indexOf('\\end{document}');
  const preamble = begin >= 0 ? text.slice(0, begin) : text;
  const body = begin >= 0 ? text.slice(begin + '\\begin{document}'.length, endAt > begin ? endAt : undefined) : text;
  const title = preambleField(preamble, 'title') ?? (begin < 0 ? undefined : preambleField(body, 'title'));
  const author = preambleField(preamble, 'author') ?? preambleField(body, 'author');
  const date = preambleField(preamble, 'date');
  const scanner = new Scanner(body);
  const converted = joinParagraphs(scanner.convert().replaceAll(KEEP, ''), scanner.blocks);
  const head = [title ? `# ${title}` : '', author ? `Authors: ${author}` : '', date ? `Date: ${date}` : ''].filter(Boolean).join('\n\n');
  const content = tidy([head, converted].filter(Boolean).join('\n\n'));
  if (!content) throw unprocessable(`converter reader: "${fileName}" has no text (an empty LaTeX document)`);
  return { content, ...(title ? { title } : {}) };
}
