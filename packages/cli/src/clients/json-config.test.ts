import { lstatSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { removeServersEntry, tokenFromAuthorization, writeServersEntry } from './json-config.js';

describe('JSON config editing', () => {
  let dir: string;
  let path: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'svc-json-'));
    path = join(dir, 'mcp.json');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('adds an entry and keeps every other key and server', () => {
    writeFileSync(path, JSON.stringify({ theme: 'dark', mcpServers: { other: { url: 'http://o/mcp', extra: [1, 2] } } }, null, 2), { mode: 0o644 });
    writeServersEntry(path, 'agentos', { url: 'http://h/mcp', headers: { Authorization: 'Bearer t' } }, true);
    expect(JSON.parse(readFileSync(path, 'utf8'))).toEqual({
      theme: 'dark',
      mcpServers: { other: { url: 'http://o/mcp', extra: [1, 2] }, agentos: { url: 'http://h/mcp', headers: { Authorization: 'Bearer t' } } },
    });
    // Merging a token into a 0644 file tightens it; no temp files are left behind.
    expect(lstatSync(path).mode & 0o777).toBe(0o600);
    expect(readdirSync(dir)).toEqual(['mcp.json']);
  });

  it('renames an entry in place, dropping a stale entry of the new name, only when the old one matches', () => {
    writeFileSync(path, JSON.stringify({ mcpServers: { first: { url: 'f' }, svc: { url: 'http://h/mcp' }, next: { url: 'n' }, agentos: { url: 'stale' } } }));
    const other = { name: 'svc', matches: (v: unknown) => (v as { url?: string }).url === 'http://elsewhere/mcp' };
    expect(writeServersEntry(path, 'agentos', { url: 'http://h/mcp' }, false, other)).toBe(false);
    expect(Object.keys(JSON.parse(readFileSync(path, 'utf8')).mcpServers)).toEqual(['first', 'svc', 'next', 'agentos']);
    const same = { name: 'svc', matches: (v: unknown) => (v as { url?: string }).url === 'http://h/mcp' };
    expect(writeServersEntry(path, 'agentos', { url: 'http://h/mcp', headers: { Authorization: 'Bearer t' } }, true, same)).toBe(true);
    expect(JSON.parse(readFileSync(path, 'utf8')).mcpServers).toEqual({
      first: { url: 'f' },
      agentos: { url: 'http://h/mcp', headers: { Authorization: 'Bearer t' } },
      next: { url: 'n' },
    });
    expect(Object.keys(JSON.parse(readFileSync(path, 'utf8')).mcpServers)).toEqual(['first', 'agentos', 'next']);
  });

  it('keeps the mode of a tokenless rewrite and removes only matching entries', () => {
    writeFileSync(path, '{"mcpServers":{"a":{"url":"http://h:1/mcp"},"b":{"url":"http://h:2/mcp"}}}', { mode: 0o640 });
    expect(removeServersEntry(path, 'a', (u) => u.includes(':2/'))).toBe(false);
    expect(removeServersEntry(path, 'a', (u) => u.includes(':1/'))).toBe(true);
    expect(JSON.parse(readFileSync(path, 'utf8'))).toEqual({ mcpServers: { b: { url: 'http://h:2/mcp' } } });
    expect(lstatSync(path).mode & 0o777).toBe(0o640);
    expect(removeServersEntry(join(dir, 'missing.json'), 'a', undefined)).toBe(false);
  });

  it.each([
    ['{ not json', /not valid JSON/],
    ['[1, 2]', /expected a JSON object at the top level/],
    ['{"mcpServers": []}', /'mcpServers' is not an object/],
  ])('refuses %s and leaves the file byte-for-byte unchanged', (text, message) => {
    writeFileSync(path, text);
    expect(() => writeServersEntry(path, 'agentos', { url: 'http://h/mcp' }, false)).toThrow(message);
    expect(readFileSync(path, 'utf8')).toBe(text);
  });

  it('refuses to write through a symlink', () => {
    const real = join(dir, 'real.json');
    writeFileSync(real, '{}');
    symlinkSync(real, path);
    expect(() => writeServersEntry(path, 'agentos', { url: 'http://h/mcp' }, false)).toThrow('symbolic link');
    expect(readFileSync(real, 'utf8')).toBe('{}');
    expect(lstatSync(path).isSymbolicLink()).toBe(true);
  });

  it('extracts bearer tokens', () => {
    expect(tokenFromAuthorization('Bearer  abc ')).toBe('abc');
    expect(tokenFromAuthorization('bearer ')).toBeUndefined();
    expect(tokenFromAuthorization(' raw ')).toBe('raw');
    expect(tokenFromAuthorization('')).toBeUndefined();
  });
});
