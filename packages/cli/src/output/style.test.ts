import { describe, expect, it } from 'vitest';
import { colourEnabled, makeStyle } from './style.js';

describe('colour', () => {
  it('is on only for a TTY without NO_COLOR or TERM=dumb', () => {
    expect(colourEnabled({ isTTY: true }, {})).toBe(true);
    expect(colourEnabled({ isTTY: false }, {})).toBe(false);
    expect(colourEnabled({}, {})).toBe(false);
    expect(colourEnabled({ isTTY: true }, { NO_COLOR: '1' })).toBe(false);
    expect(colourEnabled({ isTTY: true }, { TERM: 'dumb' })).toBe(false);
    // NO_COLOR set but empty does not disable colour (no-color.org).
    expect(colourEnabled({ isTTY: true }, { NO_COLOR: '' })).toBe(true);
  });

  it('wraps text in escapes only when enabled', () => {
    expect(makeStyle(false).red('x')).toBe('x');
    expect(makeStyle(true).red('x')).toBe('\u001b[31mx\u001b[39m');
  });
});
