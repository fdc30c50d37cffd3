import { describe, expect, it } from 'vitest';
import { ConfigurationError } from '../errors.js';
import { parseDatabaseUrl } from './open-db.js';

describe('parseDatabaseUrl', () => {
  const cwd = '/srv/app';
  it('defaults to ./data/runtime.db under the working directory', () => {
    expect(parseDatabaseUrl(undefined, cwd)).toEqual({ kind: 'sqlite', path: '/srv/app/data/runtime.db' });
    expect(parseDatabaseUrl('  ', cwd)).toEqual({ kind: 'sqlite', path: '/srv/app/data/runtime.db' });
  });
  it.each([
    ['./x.db', '/srv/app/x.db'],
    ['/var/lib/svc.db', '/var/lib/svc.db'],
    ['sqlite:x.db', '/srv/app/x.db'],
    ['sqlite://x.db', '/srv/app/x.db'],
    ['sqlite:///var/x.db', '/var/x.db'],
    ['file:///var/y.db', '/var/y.db'],
    [':memory:', ':memory:'],
    ['sqlite::memory:', ':memory:'],
  ])('reads %s as a SQLite file', (input, path) => {
    expect(parseDatabaseUrl(input, cwd)).toEqual({ kind: 'sqlite', path });
  });
  it('reads postgres:// and postgresql:// URLs', () => {
    expect(parseDatabaseUrl('postgres://u:p@h:5432/d', cwd)).toEqual({ kind: 'postgres', url: 'postgres://u:p@h:5432/d' });
    expect(parseDatabaseUrl('postgresql://h/d', cwd).kind).toBe('postgres');
  });
  it('refuses other schemes with a message that names what works', () => {
    expect(() => parseDatabaseUrl('mysql://h/d', cwd)).toThrow(ConfigurationError);
    expect(() => parseDatabaseUrl('mysql://h/d', cwd)).toThrow(/postgres:\/\//);
  });
});
