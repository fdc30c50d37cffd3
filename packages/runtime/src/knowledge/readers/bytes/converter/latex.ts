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
 *
 * Brace pairs are matched once up front, so unbalanced input cannot make the scan quadratic.
 */
import { unprocessable } from '../../../../errors.js';
import { tidy } from './markdown.js';

export interface LatexResult {
  content: string;
  title?: string;
}

const SECTION_LEVELS: Record<string, number> = { part: 1, chapter: 1, section: 2, subsection: 3, subsubsection: 4, paragraph: 5, subparagraph: 6 };
/** Commands whose (last) argument is plain text. */
const KEEP_TEXT = new Set([
  'textbf', 'textit', 'emph', 'texttt', 'textsc', 'textrm', 'textsf', 'textup', 'textmd', 'textnormal', 'textsl', 'underline', 'uline', 'mbox', 'hbox', 'text', 'textsuperscript', 'textsubscript', 'enquote', 'mathrm', 'mathbf', 'operatorname',
]);
/** Commands removed with their arguments: `[name, brace arguments]`. */
const DROP: Record<string, number> = {
  label: 1, index: 1, vspace: 1, hspace: 1, usepackage: 1, documentclass: 1, bibliographystyle: 1, bibliography: 1, pagestyle: 1, thispagestyle: 1,
  setlength: 2, addtolength: 2, setcounter: 2, addtocounter: 2, newcommand: 2, renewcommand: 2, providecommand: 2, newenvironment: 3, renewenvironment: 3,
  DeclareMathOperator: 2, newtheorem: 2, graphicspath: 1, input: 1, include: 1, hypersetup: 1, geometry: 1, definecolor: 3, color: 1, fontsize: 2, linespread: 1,
  title: 1, author: 1, date: 1, thanks: 1, pagenumbering: 1, includegraphics: 1, bibliographyitem: 1, nocite: 1, phantomsection: 0, lstset: 1,
};
const SYMBOLS: Record<string, string> = {
  ldots: '…', dots: '…', textellipsis: '…', LaTeX: 'LaTeX', TeX: 'TeX', LaTeXe: 'LaTeX2e', textendash: '–', textemdash: '—', S: '§', P: '¶', copyright: '©', textregistered: '®',
  texttrademark: '™', pounds: '£', euro: '€', textdegree: '°', ss: 'ß', ae: 'æ', AE: 'Æ', oe: 'œ', OE: 'Œ', o: 'ø', O: 'Ø', aa: 'å', AA: 'Å', l: 'ł', L: 'Ł', i: 'ı', quad: ' ', qquad: ' ',
  par: '\n\n', newline: '\n', linebreak: '\n', today: '',
};
const ACCENTS: Record<string, string> = { "'": '\u0301', '`': '\u0300', '^': '\u0302', '"': '\u0308', '~': '\u0303', '=': '\u0304', '.': '\u0307', u: '\u0306', v: '\u030c', H: '\u030b', c: '\u0327', k: '\u0328', r: '\u030a' };
const CODE_ENVIRONMENTS = new Set(['verbatim', 'verbatim*', 'Verbatim', 'lstlisting', 'minted', 'alltt', 'comment']);
const MATH_ENVIRONMENTS = new Set(['equation', 'equation*', 'align', 'align*', 'gather', 'gather*', 'multline', 'multline*', 'eqnarray', 'eqnarray*', 'displaymath', 'math', 'flalign', 'flalign*']);
const TABLE_ENVIRONMENTS = new Set(['tabular', 'tabular*', 'tabularx', 'longtable', 'tabulary', 'array']);
const LIST_ENVIRONMENTS = new Set(['itemize', 'enumerate', 'description']);
/** Mandatory arguments of environments that are not content (column specs, widths). */
const ENVIRONMENT_ARGS: Record<string, number> = { tabular: 1, 'tabular*': 2, tabularx: 2, longtable: 1, tabulary: 2, array: 1, minipage: 1, thebibliography: 1, multicols: 1, minted: 1, wrapfigure: 2, subfigure: 1 };
/** Markers of blocks kept out of paragraph joining. */
const BLOCK = '\u0000';
/** Opens a list item's text: what precedes it loses its trailing whitespace. */
const ITEM = '\u0001';
/** Keeps the paragraph break before a list from being trimmed by its first item; removed at the end. */
const KEEP = '\u0002';

class Scanner {
  private readonly match = new Map<number, number>();
  readonly blocks: string[] = [];
  private readonly lists: string[] = [];
  private floatKind: string[] = [];

  constructor(private readonly src: string) {
    const open: number[] = [];
    for (let i = 0; i < src.length; i++) {
      const c = src[i];
      if (c === '\\') {
        i++;
        continue;
      }
      if (c === '{') open.push(i);
      else if (c === '}' && open.length > 0) this.match.set(open.pop()!, i);
    }
  }

  /** The group opening at `i` (after spaces): its inner text and the index after it. */
  private group(i: number): { inner: string; end: number } | undefined {
    let j = i;
    let newlines = 0;
    // Spaces and one line break may separate a command from its argument; a blank line may not.
    while (j < this.src.length && (this.src[j] === ' ' || this.src[j] === '\t' || (this.src[j] === '\n' && ++newlines < 2))) j++;
    if (this.src[j] !== '{') return undefined;
    const close = this.match.get(j);
    if (close === undefined) return undefined;
    return { inner: this.src.slice(j + 1, close), end: close + 1 };
  }

  /** An optional `[...]` argument at `i`. */
  private optional(i: number): { inner: string; end: number } | undefined {
    let j = i;
    while (this.src[j] === ' ') j++;
    if (this.src[j] !== '[') return undefined;
    let depth = 0;
    for (let k = j; k < this.src.length && k < j + 200; k++) {
      if (this.src[k] === '{') depth++;
      else if (this.src[k] === '}') depth--;
      else if (this.src[k] === ']' && depth === 0) return { inner: this.src.slice(j + 1, k), end: k + 1 };
    }
    return undefined;
  }

  private block(text: string): string {
    this.blocks.push(text);
    return `\n\n${BLOCK}${this.blocks.length - 1}${BLOCK}\n\n`;
  }

  /** Converts `src[from, to)`. */
  convert(from = 0, to = this.src.length): string {
    let out = '';
    let i = from;
    const src = this.src;
    while (i < to) {
      const c = src[i]!;
      if (c === '\\') {
        const [text, next] = this.command(i, to);
        // A list item starts its own line, whatever whitespace came before it.
        out = text.startsWith(ITEM) ? `${out.trimEnd()}\n${text.slice(1)}` : out + text;
        i = next;
      } else if (c === '$') {
        const display = src[i + 1] === '$';
        const close = src.indexOf(display ? '$$' : '$', i + (display ? 2 : 1));
        const end = close < 0 || close > to ? to : close;
        const math = src.slice(i + (display ? 2 : 1), end).trim();
        out += display ? this.block(`$$\n${math}\n$$`) : `$${math}$`;
        i = end + (close < 0 || close > to ? 0 : display ? 2 : 1);
      } else if (c === '{' || c === '}') {
        i++;
      } else if (c === '~') {
        out += ' ';
        i++;
      } else if (c === '-' && src.startsWith('---', i)) {
        out += '—';
        i += 3;
      } else if (c === '-' && src.startsWith('--', i)) {
        out += '–';
        i += 2;
      } else if (c === '`' && src[i + 1] === '`') {
        out += '“';
        i += 2;
      } else if (c === "'" && src[i + 1] === "'") {
        out += '”';
        i += 2;
      } else {
        out += c;
        i++;
      }
    }
    return out;
  }

  /** One command at `src[i] === '\\'`: its output and the index after it. */
  private command(i: number, to: number): [string, number] {
    const src = this.src;
    const next = src[i + 1] ?? '';
    if (next === '\\') return ['\n', i + 2];
    if ('&%$#_{}'.includes(next) && next !== '') return [next, i + 2];
    if (next === ',' || next === ';' || next === ' ' || next === '!' || next === '/') return [' ', i + 2];
    if (next === '[') {
      const close = src.indexOf('\\]', i + 2);
      const end = close < 0 ? to : close;
      return [this.block(`$$\n${src.slice(i + 2, end).trim()}\n$$`), close < 0 ? to : close + 2];
    }
    if (next === '(') {
      const close = src.indexOf('\\)', i + 2);
      const end = close < 0 ? to : close;
      return [`$${src.slice(i + 2, end).trim()}$`, close < 0 ? to : close + 2];
    }
    if (next in ACCENTS && !/[A-Za-z]/.test(next)) return this.accent(next, i + 2);
    const name = /^[A-Za-z]+\*?/.exec(src.slice(i + 1, i + 40))?.[0];
    if (!name) return ['', i + 2];
    let j = i + 1 + name.length;
    const bare = name.replace(/\*$/, '');
    if (bare.length === 1 && bare in ACCENTS && src[j] === '{') return this.accent(bare, j);
    if (name === 'begin' || name === 'end') {
      const env = this.group(j);
      if (!env) return ['', j];
      return name === 'begin' ? this.begin(env.inner.trim(), env.end, to) : this.end(env.inner.trim(), env.end);
    }
    if (bare in SECTION_LEVELS) {
      const opt = this.optional(j);
      const title = this.group(opt?.end ?? j);
      if (!title) return ['', j];
      return [`\n\n${'#'.repeat(SECTION_LEVELS[bare]!)} ${this.inline(title.inner)}\n\n`, title.end];
    }
    if (bare === 'item') {
      const label = this.optional(j);
      const kind = this.lists.at(-1) ?? 'itemize';
      const indent = '  '.repeat(Math.max(0, this.lists.length - 1));
      const marker = kind === 'enumerate' ? '1.' : '-';
      const term = label ? `**${this.inline(label.inner)}** ` : '';
      let after = label?.end ?? j;
      while (after < to && /\s/.test(src[after]!)) after++;
      return [`${ITEM}${indent}${marker} ${term}`, after];
    }
    if (bare === 'bibitem') {
      const opt = this.optional(j);
      const key = this.group(opt?.end ?? j);
      return [`\n- [${key ? key.inner.trim() : ''}] `, key?.end ?? j];
    }
    if (bare === 'caption') {
      const opt = this.optional(j);
      const text = this.group(opt?.end ?? j);
      if (!text) return ['', j];
      const kind = this.floatKind.at(-1) === 'table' ? 'Table' : 'Figure';
      return [`\n\n${kind}: ${this.inline(text.inner)}\n\n`, text.end];
    }
    if (bare === 'href') {
      const url = this.group(j);
      const text = url && this.group(url.end);
      if (!url || !text) return ['', j];
      return [`[${this.inline(text.inner)}](${url.inner.trim()})`, text.end];
    }
    if (bare === 'url' || bare === 'path') {
      const url = this.group(j);
      return url ? [url.inner.trim(), url.end] : ['', j];
    }
    if (bare === 'footnote') {
      const opt = this.optional(j);
      const text = this.group(opt?.end ?? j);
      return text ? [` (${this.inline(text.inner)})`, text.end] : ['', j];
    }
    if (['cite', 'citep', 'citet', 'parencite', 'textcite', 'autocite', 'ref', 'eqref', 'autoref', 'cref', 'Cref', 'pageref', 'nameref'].includes(bare)) {
      let opt = this.optional(j);
      while (opt) {
        j = opt.end;
        opt = this.optional(j);
      }
      const keys = this.group(j);
      if (!keys) return ['', j];
      return [`[${keys.inner.split(',').map((k) => k.trim()).join(', ')}]`, keys.end];
    }
    if (bare === 'maketitle') return ['', j];
    if (KEEP_TEXT.has(bare)) {
      const arg = this.group(j);
      return arg ? [this.inline(arg.inner), arg.end] : ['', j];
    }
    if (bare in SYMBOLS) {
      // A control word eats the spaces after it, except `{}` which ends it.
      if (src.startsWith('{}', j)) j += 2;
      return [SYMBOLS[bare]!, j];
    }
    if (bare in DROP) {
      if (bare === 'newcommand' || bare === 'renewcommand' || bare === 'providecommand') {
        // \newcommand{\name}[n][default]{body} or \newcommand\name{body}
        const target = this.group(j);
        j = target ? target.end : (/^\\[A-Za-z]+/.exec(src.slice(j))?.[0].length ?? 0) + j;
        for (let opt = this.optional(j); opt; opt = this.optional(j)) j = opt.end;
        const body = this.group(j);
        return ['', body ? body.end : j];
      }
      for (let opt = this.optional(j); opt; opt = this.optional(j)) j = opt.end;
      for (let n = 0; n < DROP[bare]!; n++) {
        const arg = this.group(j);
        if (!arg) break;
        j = arg.end;
      }
      return ['', j];
    }
    // Unknown: the command goes, its arguments' text stays.
    let out = '';
    for (let opt = this.optional(j); opt; opt = this.optional(j)) j = opt.end;
    for (let arg = this.group(j); arg; arg = this.group(j)) {
      out += this.inline(arg.inner);
      j = arg.end;
    }
    return [out, j];
  }

  private accent(mark: string, j: number): [string, number] {
    const arg = this.group(j);
    const letter = arg ? arg.inner.replace(/^\\/, '') : (this.src[j] ?? '');
    const end = arg ? arg.end : j + 1;
    return [`${letter}${ACCENTS[mark]}`.normalize('NFC'), end];
  }

  /** Text of an argument, converted with this scanner's tables. */
  private inline(text: string): string {
    const scanner = new Scanner(text);
    const converted = scanner.convert().replaceAll(ITEM, '').replaceAll(KEEP, '').replace(/\s+/g, ' ').trim();
    return converted.replace(new RegExp(`${BLOCK}(\\d+)${BLOCK}`, 'g'), (_, n: string) => scanner.blocks[Number(n)] ?? '');
  }

  private begin(env: string, j: number, to: number): [string, number] {
    const src = this.src;
    for (let opt = this.optional(j); opt; opt = this.optional(j)) j = opt.end;
    for (let n = 0; n < (ENVIRONMENT_ARGS[env] ?? 0); n++) {
      const arg = this.group(j);
      if (!arg) break;
      j = arg.end;
    }
    const endTag = `\\end{${env}}`;
    if (CODE_ENVIRONMENTS.has(env) || MATH_ENVIRONMENTS.has(env)) {
      const close = src.indexOf(endTag, j);
      const end = close < 0 ? to : close;
      const body = src.slice(j, end).replace(/^\n+|\s+$/g, '');
      const after = close < 0 ? to : close + endTag.length;
      if (env === 'comment') return ['', after];
      return [this.block(MATH_ENVIRONMENTS.has(env) ? `$$\n${body.trim()}\n$$` : `\`\`\`\n${body}\n\`\`\``), after];
    }
    if (TABLE_ENVIRONMENTS.has(env)) {
      const close = this.closing(env, j, to);
      return [this.block(this.table(src.slice(j, close.start))), close.end];
    }
    if (LIST_ENVIRONMENTS.has(env)) {
      this.lists.push(env);
      // A list opens a paragraph; a nested one continues its item's.
      return [this.lists.length === 1 ? `\n\n${KEEP}` : '', j];
    }
    if (env === 'figure' || env === 'figure*' || env === 'wrapfigure' || env === 'table' || env === 'table*') {
      this.floatKind.push(env.startsWith('table') ? 'table' : 'figure');
      return ['\n\n', j];
    }
    if (env === 'abstract') return ['\n\n## Abstract\n\n', j];
    if (env === 'thebibliography') return ['\n\n## References\n\n', j];
    return ['\n\n', j];
  }

  private end(env: string, j: number): [string, number] {
    if (LIST_ENVIRONMENTS.has(env)) {
      this.lists.pop();
      return [this.lists.length === 0 ? '\n\n' : '', j];
    }
    if (env.startsWith('figure') || env === 'wrapfigure' || env.startsWith('table')) this.floatKind.pop();
    return ['\n\n', j];
  }

  /** Where the environment opened before `from` ends, nesting counted. */
  private closing(env: string, from: number, to: number): { start: number; end: number } {
    const open = `\\begin{${env}}`;
    const close = `\\end{${env}}`;
    let depth = 1;
    let i = from;
    while (i < to) {
      const nextOpen = this.src.indexOf(open, i);
      const nextClose = this.src.indexOf(close, i);
      if (nextClose < 0 || nextClose >= to) break;
      if (nextOpen >= 0 && nextOpen < nextClose) {
        depth++;
        i = nextOpen + open.length;
        continue;
      }
      depth--;
      if (depth === 0) return { start: nextClose, end: nextClose + close.length };
      i = nextClose + close.length;
    }
    return { start: to, end: to };
  }

  private table(body: string): string {
    const rows = body
      .replace(/\\(hline|toprule|midrule|bottomrule|endhead|endfirsthead|endfoot|endlastfoot)\b/g, '')
      .replace(/\\(cline|cmidrule)(\([^)]*\))?\{[^}]*\}/g, '')
      .split(/\\\\(?:\[[^\]]*\])?/)
      .map((row) => row.split(/(?<!\\)&/).map((cell) => this.inline(cell).replaceAll('|', '\\|')))
      .filter((cells) => cells.some((c) => c !== ''));
    if (rows.length === 0) return '';
    const width = Math.max(...rows.map((r) => r.length));
    const line = (r: string[]) => `| ${Array.from({ length: width }, (_, k) => r[k] ?? '').join(' | ')} |`;
    return [line(rows[0]!), `|${' --- |'.repeat(width)}`, ...rows.slice(1).map(line)].join('\n');
  }
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
      const restored = para.replace(new RegExp(`${BLOCK}(\\d+)${BLOCK}`, 'g'), (_, n: string) => blocks[Number(n)] ?? '');
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
