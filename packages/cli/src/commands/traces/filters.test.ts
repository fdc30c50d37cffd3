import { InvalidArgumentError } from 'commander';
import { describe, expect, it } from 'vitest';
import { listOnlyGiven, parseId, parseLimit, parseMinDuration, parseSince, parseStatus, traceQuery } from './filters.js';

const NOW = Date.UTC(2026, 0, 31, 12, 0, 0);

describe('svc traces option parsing', () => {
  it('--since takes a duration back from now or an ISO time, as epoch ms', () => {
    expect(parseSince('90s', NOW)).toBe(NOW - 90_000);
    expect(parseSince('30m', NOW)).toBe(NOW - 1_800_000);
    expect(parseSince('1h', NOW)).toBe(NOW - 3_600_000);
    expect(parseSince('2d', NOW)).toBe(NOW - 2 * 86_400_000);
    expect(parseSince('1w', NOW)).toBe(NOW - 7 * 86_400_000);
    expect(parseSince('2026-01-30', NOW)).toBe(Date.UTC(2026, 0, 30));
    expect(parseSince('2026-01-30T08:15:00Z', NOW)).toBe(Date.UTC(2026, 0, 30, 8, 15));
    expect(parseSince('2026-01-30T08:15:00+02:00', NOW)).toBe(Date.UTC(2026, 0, 30, 6, 15));
  });

  it.each(['', '1', '0h', '-1h', '1y', '1.5h', 'h', 'yesterday', '2026-13-45', '2026-01-30Tnoon', '99999999999d'])('--since refuses %j', (value) => {
    expect(() => parseSince(value, NOW)).toThrow(InvalidArgumentError);
    expect(() => parseSince(value, NOW)).toThrow(/Invalid --since/);
  });

  it('--limit is a whole number from 1 to 100', () => {
    expect(parseLimit('1')).toBe(1);
    expect(parseLimit('100')).toBe(100);
    for (const bad of ['0', '101', '-1', '2.5', '1e2', '', 'ten']) expect(() => parseLimit(bad)).toThrow(/Invalid --limit: .*\nGive a whole number from 1 to 100\./);
  });

  it('--min-duration is whole milliseconds, zero allowed', () => {
    expect(parseMinDuration('0')).toBe(0);
    expect(parseMinDuration('1500')).toBe(1500);
    for (const bad of ['-5', '1.5', '2s', '']) expect(() => parseMinDuration(bad)).toThrow(/Invalid --min-duration/);
  });

  it('--status takes any case and sends the API its upper-case name', () => {
    expect(parseStatus('error')).toBe('ERROR');
    expect(parseStatus('Completed')).toBe('COMPLETED');
    expect(() => parseStatus('running')).toThrow(/Invalid --status: running\nUse one of completed, error, cancelled, paused\./);
  });

  it('an id filter may not be empty', () => {
    expect(parseId('--agent')('weather')).toBe('weather');
    expect(() => parseId('--agent')(' ')).toThrow(/Invalid --agent: the value is empty/);
  });

  it('maps the options to the GET /traces query, leaving out what was not given', () => {
    expect(traceQuery({})).toEqual({});
    expect(traceQuery({ agent: 'weather', session: 's1', user: 'u1', status: 'ERROR', since: 5, minDuration: 10, limit: 3, cursor: 'c' })).toEqual({
      agent_id: 'weather',
      session_id: 's1',
      user_id: 'u1',
      status: 'ERROR',
      from: 5,
      min_duration_ms: 10,
      limit: 3,
      cursor: 'c',
    });
    expect(traceQuery({ team: 'router' })).toEqual({ team_id: 'router' });
    expect(traceQuery({ workflow: 'pipeline' })).toEqual({ workflow_id: 'pipeline' });
  });

  it('names the list-only flags given, as typed', () => {
    expect(listOnlyGiven({})).toEqual([]);
    expect(listOnlyGiven({ minDuration: 0, limit: 5, agent: 'a' })).toEqual(['--agent', '--min-duration', '--limit']);
  });
});
