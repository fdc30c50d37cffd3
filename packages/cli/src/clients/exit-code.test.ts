import { describe, expect, it } from 'vitest';
import { exitCodeFor } from './exit-code.js';

const ok = new Set(['connected', 'manual']);
const rows = (...statuses: string[]) => statuses.map((status) => ({ status }));

describe('exitCodeFor', () => {
  it('is 0 when all rows are ok, including none', () => {
    expect(exitCodeFor(rows(), ok)).toBe(0);
    expect(exitCodeFor(rows('connected', 'manual'), ok)).toBe(0);
  });
  it('is 1 when no real client succeeded, whatever manual rows say', () => {
    expect(exitCodeFor(rows('failed', 'skipped', 'manual'), ok)).toBe(1);
  });
  it('is 3 for a partial result', () => {
    expect(exitCodeFor(rows('connected', 'failed'), ok)).toBe(3);
  });
});
