import { describe, expect, it } from 'vitest';
import { ConfigurationError } from '../errors.js';
import { readSettings } from './runtime.js';

describe('readSettings', () => {
  it('defaults to localhost:7777 and the embedded database', () => {
    const s = readSettings({});
    expect(s).toMatchObject({ port: 7777, host: 'localhost', databaseUrl: undefined });
    expect(s.maxBodyBytes).toBe(10 * 1024 * 1024);
  });
  it('reads PORT, HOST and DATABASE_URL', () => {
    expect(readSettings({ PORT: '8080', HOST: '0.0.0.0', DATABASE_URL: 'postgres://h/d' })).toMatchObject({
      port: 8080,
      host: '0.0.0.0',
      databaseUrl: 'postgres://h/d',
    });
  });
  it.each(['abc', '0', '70000', '-1', '80.5'])('refuses PORT=%s with a clear message', (port) => {
    expect(() => readSettings({ PORT: port })).toThrow(ConfigurationError);
    expect(() => readSettings({ PORT: port })).toThrow(/PORT must be a whole number/);
  });
  it('keeps traces 30 days unless TRACE_RETENTION_DAYS says otherwise (0: forever)', () => {
    expect(readSettings({}).traceRetentionDays).toBe(30);
    expect(readSettings({ TRACE_RETENTION_DAYS: '0' }).traceRetentionDays).toBe(0);
    expect(() => readSettings({ TRACE_RETENTION_DAYS: '-3' })).toThrow(/TRACE_RETENTION_DAYS must be a whole number from 0 to 36500, got "-3"/);
  });
  it('records traces unless TRACES_ENABLED is false, and refuses a value that is neither', () => {
    expect(readSettings({}).tracesEnabled).toBe(true);
    expect(readSettings({ TRACES_ENABLED: 'false' }).tracesEnabled).toBe(false);
    expect(readSettings({ TRACES_ENABLED: 'ON' }).tracesEnabled).toBe(true);
    expect(() => readSettings({ TRACES_ENABLED: 'maybe' })).toThrow(/TRACES_ENABLED must be true or false, got "maybe"/);
  });
});
