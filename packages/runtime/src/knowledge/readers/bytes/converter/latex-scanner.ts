/**
 * @module knowledge/readers/bytes/converter/latex-scanner
 * The single pass of the LaTeX converter: commands, environments, math, lists and tables become
 * markdown as they are met (the tables in latex-commands.ts say what each name means). Brace
 * pairs are matched once up front, so unbalanced input cannot make the scan quadratic.
 */
import { ACCENTS, CODE_ENVIRONMENTS, DROP, ENVIRONMENT_ARGS, KEEP_TEXT, LIST_ENVIRONMENTS, MATH_ENVIRONMENTS, SECTION_LEVELS, SYMBOLS, TABLE_ENVIRONMENTS } from './latex-commands.js';

/** Markers of blocks kept out of paragraph joining. */
const BLOCK = '\u0000';
/** Opens a list item's text: what precedes it loses its trailing whitespace. */
const ITEM = '\u0001';
/** Keeps the paragraph break before a list from being trimmed by its first item; removed at the end. */
export const KEEP = '\u0002';

/** `text` with the blocks the scanner set aside put back in place of their markers. */
export function restoreBlocks(text: string, blocks: readonly string[]): string {
  return text.replace(new RegExp(`${BLOCK}(\\d+)${BLOCK}`, 'g'), (_, n: string) => blocks[Number(n)] ?? '');
}

/** One pass over LaTeX source, writing markdown; display blocks are set aside in `blocks`. */
export class Scanner {
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
    return restoreBlocks(converted, scanner.blocks);
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
