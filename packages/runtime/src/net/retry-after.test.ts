import { describe, expect, it } from 'vitest';
import { parseResetDuration, retryAfterMs } from './retry-after.js';

describe('retryAfterMs', () => {
  const now = Date.parse('2025-01-01T00:00:00Z');

  it('reads delta-seconds, fractions included', () => {
    expect(retryAfterMs('0')).toBe(0);
    expect(retryAfterMs('7')).toBe(7000);
    expect(retryAfterMs(' 120 ')).toBe(120_000);
    expect(retryAfterMs('1.5')).toBe(1500);
  });

  it('reads an HTTP date as the time left until it, never negative', () => {
    expect(retryAfterMs('Wed, 01 Jan 2025 00:00:05 GMT', now)).toBe(5000);
    expect(retryAfterMs('Tue, 31 Dec 2024 23:59:00 GMT', now)).toBe(0);
  });

  it('is undefined when absent, blank or unreadable', () => {
    expect(retryAfterMs(null)).toBeUndefined();
    expect(retryAfterMs(undefined)).toBeUndefined();
    expect(retryAfterMs('  ')).toBeUndefined();
    expect(retryAfterMs('soon')).toBeUndefined();
  });
});

describe('parseResetDuration', () => {
  it('reads Go durations and plain seconds', () => {
    expect(parseResetDuration('1s')).toBe(1000);
    expect(parseResetDuration('6m0s')).toBe(360_000);
    expect(parseResetDuration('20ms')).toBe(20);
    expect(parseResetDuration('1h2m3.5s')).toBe(3_723_500);
    expect(parseResetDuration('2')).toBe(2000);
  });

  it('is undefined for anything else', () => {
    expect(parseResetDuration(null)).toBeUndefined();
    expect(parseResetDuration('')).toBeUndefined();
    expect(parseResetDuration('soon')).toBeUndefined();
    expect(parseResetDuration('1s later')).toBeUndefined();
  });
});
