/**
 * Turns what a terminal in raw mode sends into keys. Kept apart from the prompts so the parsing
 * can be tested without a terminal.
 *
 * Both `\r` (what Enter sends in raw mode) and `\n` (what it became if it was typed before raw
 * mode was on, or what a script sends) are Enter; `\r\n` is one Enter. Ctrl-D is end of input.
 */
export type Key =
  | { name: 'enter' | 'up' | 'down' | 'left' | 'right' | 'backspace' | 'eof' | 'interrupt' | 'escape' }
  | { name: 'char'; char: string };

export interface ParsedKeys {
  keys: Key[];
  /** An incomplete escape sequence at the end, to be completed by the next chunk. */
  rest: string;
}

const ARROWS: Record<string, Key['name']> = { A: 'up', B: 'down', C: 'right', D: 'left' };

export function parseKeys(input: string): ParsedKeys {
  const keys: Key[] = [];
  let i = 0;
  while (i < input.length) {
    const ch = input[i] as string;
    if (ch === '\r') {
      keys.push({ name: 'enter' });
      i += input[i + 1] === '\n' ? 2 : 1;
      continue;
    }
    if (ch === '\n') keys.push({ name: 'enter' });
    else if (ch === '\u0003') keys.push({ name: 'interrupt' });
    else if (ch === '\u0004') keys.push({ name: 'eof' });
    else if (ch === '\u007f' || ch === '\b') keys.push({ name: 'backspace' });
    else if (ch === '\u001b') {
      if (i + 1 >= input.length) return { keys, rest: input.slice(i) };
      const intro = input[i + 1];
      if (intro !== '[' && intro !== 'O') {
        keys.push({ name: 'escape' });
        i += 1;
        continue;
      }
      // CSI / SS3: parameters, then one final byte in @..~
      let end = i + 2;
      while (end < input.length && !/[@-~]/.test(input[end] as string)) end += 1;
      if (end >= input.length) return { keys, rest: input.slice(i) };
      const arrow = ARROWS[input[end] as string];
      if (arrow) keys.push({ name: arrow } as Key);
      i = end + 1;
      continue;
    } else if (ch >= ' ') {
      // Keep surrogate pairs together.
      const code = input.codePointAt(i) ?? 0;
      const char = String.fromCodePoint(code);
      keys.push({ name: 'char', char });
      i += char.length;
      continue;
    }
    i += 1;
  }
  return { keys, rest: '' };
}

/** The width a terminal gives a string: escape codes take none. */
export function visibleLength(text: string): number {
  // eslint-disable-next-line no-control-regex
  return [...text.replace(/\u001b\[[0-9;?]*[A-Za-z]/g, '')].length;
}

/**
 * The terminal's width. A terminal that reports 0 columns (some do, inside containers or
 * `script`) has an unknown width, not a width of zero: then COLUMNS, else 80.
 */
export function terminalColumns(reported: number | undefined, env: NodeJS.ProcessEnv): number {
  if (reported !== undefined && Number.isFinite(reported) && reported > 0) return Math.floor(reported);
  const fromEnv = Number(env.COLUMNS);
  return Number.isFinite(fromEnv) && fromEnv > 0 ? Math.floor(fromEnv) : 80;
}

/** How many terminal rows `lines` occupy at `columns` wide. */
export function rowsOf(lines: readonly string[], columns: number): number {
  return lines.reduce((sum, line) => sum + Math.max(1, Math.ceil(visibleLength(line) / columns)), 0);
}
