import { describe, expect, it } from 'vitest';
import { timeOrderedId } from './ids.js';

describe('time-ordered ids', () => {
  it('are RFC 9562 version 7 UUIDs carrying the time they were made', () => {
    const id = timeOrderedId(Date.UTC(2026, 10, 27, 12));
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(parseInt(id.replace('-', '').slice(0, 12), 16)).toBe(Date.UTC(2026, 10, 27, 12));
  });

  it('sort by time, and are unique within a millisecond', () => {
    const early = timeOrderedId(1_000);
    const late = timeOrderedId(2_000);
    expect(early < late).toBe(true);
    const same = new Set(Array.from({ length: 1000 }, () => timeOrderedId(5_000)));
    expect(same.size).toBe(1000);
  });
});
