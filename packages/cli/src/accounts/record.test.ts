import { lstatSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Account } from './account.js';
import { cliConfigDir, MintRecord } from './record.js';

const account = (id: string, name: string, prefix = `svc_pat_${id.padEnd(8, 'x')}`): Account => ({
  id,
  name,
  principal: `sa:${name}`,
  token_prefix: prefix,
  scopes: [],
  created_at: 1_700_000_000,
  expires_at: null,
  last_used_at: null,
  revoked_at: null,
});

describe('the CLI config directory', () => {
  const home = '/home/ann';
  it('is SVC_CONFIG_DIR, else XDG_CONFIG_HOME/svc, else ~/.config/svc; on Windows %APPDATA%\\svc', () => {
    expect(cliConfigDir({ env: { SVC_CONFIG_DIR: 'conf' }, home, cwd: '/w' }, 'linux')).toBe('/w/conf');
    expect(cliConfigDir({ env: { XDG_CONFIG_HOME: '/x', SVC_CONFIG_DIR: ' ' }, home, cwd: '/w' }, 'linux')).toBe('/x/svc');
    expect(cliConfigDir({ env: {}, home, cwd: '/w' }, 'darwin')).toBe('/home/ann/.config/svc');
    expect(cliConfigDir({ env: { APPDATA: 'C:\\Users\\ann\\AppData\\Roaming' }, home: 'C:\\Users\\ann', cwd: 'C:\\w' }, 'win32')).toBe('C:\\Users\\ann\\AppData\\Roaming\\svc');
  });
});

describe('the record of minted accounts', () => {
  let root: string;
  let record: MintRecord;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'svc-record-'));
    record = new MintRecord({ env: {}, home: root, cwd: root });
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('remembers accounts per runtime, whatever the loopback spelling, and forgets them', () => {
    expect(record.entries()).toEqual([]);
    record.add('http://127.0.0.1:7777', account('a1', 'terminal-agent'), ['terminal-agent']);
    record.add('https://rt.example', account('b1', 'team'), ['editor', 'cli-agent']);
    expect(record.owns('http://localhost:7777/', account('a1', 'terminal-agent'))).toBe(true);
    expect(record.owns('http://localhost:7778', account('a1', 'terminal-agent'))).toBe(false);
    // Same id but another token prefix: not the account recorded.
    expect(record.owns('http://127.0.0.1:7777', account('a1', 'terminal-agent', 'svc_pat_other123'))).toBe(false);
    expect(record.forRuntime('https://rt.example').map((a) => [a.name, a.clients])).toEqual([['team', ['cli-agent', 'editor']]]);
    expect(lstatSync(record.path).mode & 0o777).toBe(0o600);
    expect(lstatSync(join(root, '.config', 'svc')).mode & 0o777).toBe(0o700);
    record.forget('http://localhost:7777', ['a1']);
    expect(record.entries().map((a) => a.id)).toEqual(['b1']);
  });

  it('reads an unreadable file as empty and replaces it; refuses a symlinked file', () => {
    mkdirSync(join(root, '.config', 'svc'), { recursive: true });
    writeFileSync(record.path, '{not json');
    expect(record.entries()).toEqual([]);
    record.add('http://127.0.0.1:7777', account('a1', 'x'), ['editor']);
    expect(JSON.parse(readFileSync(record.path, 'utf8')).accounts).toHaveLength(1);
    rmSync(record.path);
    const target = join(root, 'elsewhere.json');
    writeFileSync(target, '{}');
    symlinkSync(target, record.path);
    expect(() => record.add('http://127.0.0.1:7777', account('a2', 'y'), ['editor'])).toThrow(/symbolic link/);
    expect(readFileSync(target, 'utf8')).toBe('{}');
  });
});
