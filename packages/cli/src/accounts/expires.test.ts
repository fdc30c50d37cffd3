import { describe, expect, it } from 'vitest';
import { parseExpires } from './expires.js';

describe('parseExpires', () => {
  it.each([
    ['90', 90],
    ['90d', 90],
    ['90D', 90],
    [' 30 ', 30],
    ['030', 30],
    ['3650', 3650],
  ])('%j is %i days', (text, days) => expect(parseExpires(text)).toEqual({ neverExpires: false, days }));

  it.each(['never', 'NEVER', ' Never '])('%j never expires', (text) => expect(parseExpires(text)).toEqual({ neverExpires: true }));

  it.each(['0', '0d', '-1', '+5', '1.5', 'soon', '90dd', '', 'd', '²', '９０'])('%j is rejected', (text) =>
    expect(parseExpires(text)).toBeUndefined(),
  );
});
