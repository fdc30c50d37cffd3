import { describe, expect, it } from 'vitest';
import { parseKeys, rowsOf, terminalColumns, visibleLength } from './keys.js';

const names = (text: string) => parseKeys(text).keys.map((k) => (k.name === 'char' ? k.char : k.name));

describe('parseKeys', () => {
  it('reads Enter as \\r, \\n or \\r\\n (one key), and Ctrl-D / Ctrl-C as end of input / interrupt', () => {
    expect(names('\r')).toEqual(['enter']);
    expect(names('\n')).toEqual(['enter']);
    expect(names('\r\n')).toEqual(['enter']);
    expect(names('\n\n')).toEqual(['enter', 'enter']);
    expect(names('\u0004')).toEqual(['eof']);
    expect(names('\u0003')).toEqual(['interrupt']);
  });

  it('reads arrows (CSI and SS3), backspace, text (surrogate pairs whole) and drops other sequences', () => {
    expect(names('\u001b[A\u001b[B\u001bOC\u001b[D')).toEqual(['up', 'down', 'right', 'left']);
    expect(names('ab\u007f\b')).toEqual(['a', 'b', 'backspace', 'backspace']);
    expect(names('é😀')).toEqual(['é', '😀']);
    expect(names('\u001b[1;5Hx\u001b[200~y')).toEqual(['x', 'y']);
    expect(names('\u001bx')).toEqual(['escape', 'x']);
    expect(names('\t\u0001z')).toEqual(['z']);
  });

  it('keeps an unfinished escape sequence for the next chunk', () => {
    expect(parseKeys('a\u001b[')).toEqual({ keys: [{ name: 'char', char: 'a' }], rest: '\u001b[' });
    expect(parseKeys('\u001b')).toEqual({ keys: [], rest: '\u001b' });
    expect(names(`${parseKeys('\u001b[').rest}B`)).toEqual(['down']);
  });
});

describe('terminal size', () => {
  it('treats 0 or missing columns as unknown: COLUMNS, else 80', () => {
    expect(terminalColumns(120, {})).toBe(120);
    expect(terminalColumns(0, { COLUMNS: '100' })).toBe(100);
    expect(terminalColumns(undefined, { COLUMNS: 'wide' })).toBe(80);
    expect(terminalColumns(0, {})).toBe(80);
  });

  it('counts the rows lines take, ignoring colour codes', () => {
    expect(visibleLength('\u001b[36m◆\u001b[39m  hi')).toBe(5);
    expect(rowsOf(['', 'x'.repeat(80), 'x'.repeat(81)], 80)).toBe(4);
  });
});
