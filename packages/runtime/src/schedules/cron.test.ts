import { describe, expect, it } from 'vitest';
import { parseCron } from './cron.js';

const at = (iso: string) => Date.parse(iso);

describe('cron expressions', () => {
  it('reads six fields as seconds first, five as minutes', () => {
    const everyTwoSeconds = parseCron('*/2 * * * * *', 'UTC');
    expect(everyTwoSeconds.next(at('2026-01-01T00:00:01Z'))).toBe(at('2026-01-01T00:00:02Z'));
    expect(everyTwoSeconds.next(at('2026-01-01T00:00:02Z'))).toBe(at('2026-01-01T00:00:04Z'));
    expect(parseCron('30 9 * * *', 'UTC').next(at('2026-01-01T00:00:00Z'))).toBe(at('2026-01-01T09:30:00Z'));
  });

  it('reads the fields in the time zone given, daylight saving included', () => {
    const nineInParis = parseCron('0 9 * * *', 'Europe/Paris');
    expect(nineInParis.next(at('2026-01-15T00:00:00Z'))).toBe(at('2026-01-15T08:00:00Z'));
    expect(nineInParis.next(at('2026-07-15T00:00:00Z'))).toBe(at('2026-07-15T07:00:00Z'));
  });

  it('lists earlier occurrences, most recent first', () => {
    expect(parseCron('*/2 * * * * *', 'UTC').previous(3, at('2026-01-01T00:00:10Z'))).toEqual([
      at('2026-01-01T00:00:08Z'),
      at('2026-01-01T00:00:06Z'),
      at('2026-01-01T00:00:04Z'),
    ]);
  });

  it('refuses a bad expression, a bad zone and a date that never comes, saying which', () => {
    expect(() => parseCron('61 * * * *', 'UTC')).toThrow(/Invalid cron expression "61 \* \* \* \*": Invalid value for minute: 61/);
    expect(() => parseCron('every day', 'UTC')).toThrow(/Invalid cron expression "every day"/);
    expect(() => parseCron('* * * * * * *', 'UTC')).toThrow(/five fields .* or six/);
    expect(() => parseCron('* * * * *', 'Mars/Olympus')).toThrow('Unknown time zone "Mars/Olympus"');
    expect(() => parseCron('0 0 30 2 *', 'UTC')).toThrow(/never fires/);
    expect(() => parseCron('61 * * * *', 'UTC')).toThrow(expect.objectContaining({ status: 400, code: 'BAD_REQUEST' }));
  });
});
