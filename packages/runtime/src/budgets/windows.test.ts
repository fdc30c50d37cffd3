import { describe, expect, it } from 'vitest';
import { bucketEnd, bucketStart, secondsUntilReset } from './windows.js';

describe('budget windows', () => {
  const at = Date.UTC(2024, 1, 29, 13, 45, 30, 500); // a leap day

  it('puts a moment in its UTC hour, day and month', () => {
    expect(bucketStart('hour', at)).toBe(Date.UTC(2024, 1, 29, 13));
    expect(bucketStart('day', at)).toBe(Date.UTC(2024, 1, 29));
    expect(bucketStart('month', at)).toBe(Date.UTC(2024, 1, 1));
  });

  it('ends a window where the next one starts, months of any length and across a year', () => {
    expect(bucketEnd('month', Date.UTC(2024, 1, 1))).toBe(Date.UTC(2024, 2, 1));
    expect(bucketEnd('month', Date.UTC(2024, 11, 1))).toBe(Date.UTC(2025, 0, 1));
    expect(bucketEnd('day', Date.UTC(2024, 1, 29))).toBe(Date.UTC(2024, 2, 1));
  });

  it('counts whole seconds to the reset, never 0', () => {
    expect(secondsUntilReset('hour', at)).toBe(14 * 60 + 30);
    expect(secondsUntilReset('hour', Date.UTC(2024, 0, 1, 0, 59, 59, 999))).toBe(1);
    expect(secondsUntilReset('day', at)).toBe(10 * 3600 + 14 * 60 + 30);
  });
});
