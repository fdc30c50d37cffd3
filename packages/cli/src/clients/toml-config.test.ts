import { lstatSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'smol-toml';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { removeTomlEntry, replaceSection, tomlBlock, writeTomlEntry } from './toml-config.js';

const block = tomlBlock('agentos', 'http://127.0.0.1:7777/mcp', 'svc_pat_new');

describe('replaceSection', () => {
  it('appends to a file without the entry, keeping comments and other tables byte-for-byte', () => {
    const before = '# my settings\nmodel = "o3"  # inline comment\n\n[mcp_servers.other]\nurl = "http://x/mcp"\n';
    const after = replaceSection(before, 'agentos', block);
    expect(after.startsWith(before)).toBe(true);
    expect(after).toBe(`${before}\n${block}`);
  });

  it('replaces an existing table and its dotted subtables exactly once', () => {
    const before = [
      '[mcp_servers.agentos]',
      'url = "http://old/mcp"',
      '',
      '[mcp_servers.agentos.http_headers]',
      'Authorization = "Bearer svc_pat_old"',
      '',
      '# profiles below',
      '[[profiles]]',
      'name = "keep"',
      '',
    ].join('\n');
    const after = replaceSection(before, 'agentos', block);
    expect(after).not.toContain('svc_pat_old');
    expect(after.match(/\[mcp_servers\.agentos\]/g)).toHaveLength(1);
    expect(after).toContain('# profiles below\n[[profiles]]\nname = "keep"\n');
    expect(parse(after)).toMatchObject({ mcp_servers: { agentos: { url: 'http://127.0.0.1:7777/mcp' } }, profiles: [{ name: 'keep' }] });
  });

  it('replaces a quoted header and an inline entry under [mcp_servers]', () => {
    expect(replaceSection('[mcp_servers."agentos"]\nurl = "http://old/mcp"\n', 'agentos', block)).toBe(block);
    const inline = '[mcp_servers]\nagentos = { url = "http://old/mcp" }\nkeep = { url = "http://k/mcp" }\n';
    const after = replaceSection(inline, 'agentos', block);
    expect(parse(after)).toEqual({ mcp_servers: { keep: { url: 'http://k/mcp' }, agentos: { url: 'http://127.0.0.1:7777/mcp', http_headers: { Authorization: 'Bearer svc_pat_new' } } } });
  });

  it('leaves a multi-line string that merely mentions the name alone', () => {
    const before = '[notes]\ntext = """\nagentos = { not a table }\n"""\n';
    expect(replaceSection(before, 'agentos', '')).toBe(before);
  });

  it('does not touch tables whose name only starts with ours', () => {
    const before = '[mcp_servers.agentos-prod]\nurl = "http://p/mcp"\n';
    expect(replaceSection(before, 'agentos', '')).toBe(before);
  });
});

describe('writeTomlEntry / removeTomlEntry', () => {
  let dir: string;
  let path: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'svc-toml-'));
    path = join(dir, 'config.toml');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('writes 0600 with a token and removes only a matching entry', () => {
    writeFileSync(path, '# mine\n', { mode: 0o644 });
    writeTomlEntry(path, 'agentos', 'http://127.0.0.1:7777/mcp', 'svc_pat_x');
    expect(lstatSync(path).mode & 0o777).toBe(0o600);
    expect(removeTomlEntry(path, 'agentos', (u) => u.includes('7778'))).toBe(false);
    expect(removeTomlEntry(path, 'agentos', (u) => u.includes('7777'))).toBe(true);
    expect(readFileSync(path, 'utf8')).toBe('# mine\n');
  });

  it('renames a table in place (dotted subtables too), replacing a stale table of the new name', () => {
    writeFileSync(path, '# top\n[mcp_servers.agentos]\nurl = "stale"\n\n[mcp_servers.svc]\nurl = "http://h/mcp"\n[mcp_servers.svc.http_headers]\nAuthorization = "Bearer old"\n\n# keep\n[profiles.x]\nmodel = "m"\n');
    expect(writeTomlEntry(path, 'agentos', 'http://h/mcp', 'svc_pat_t', { name: 'svc', matches: (u) => u === 'http://elsewhere/mcp' })).toBe(false);
    writeFileSync(path, '# top\n[mcp_servers.agentos]\nurl = "stale"\n\n[mcp_servers.svc]\nurl = "http://h/mcp"\n[mcp_servers.svc.http_headers]\nAuthorization = "Bearer old"\n\n# keep\n[profiles.x]\nmodel = "m"\n');
    expect(writeTomlEntry(path, 'agentos', 'http://h/mcp', 'svc_pat_t', { name: 'svc', matches: (u) => u === 'http://h/mcp' })).toBe(true);
    expect(readFileSync(path, 'utf8')).toBe(
      // The blank line that followed the stale table stays; the new table sits where svc was.
      '# top\n\n[mcp_servers.agentos]\nurl = "http://h/mcp"\nhttp_headers = { "Authorization" = "Bearer svc_pat_t" }\n\n# keep\n[profiles.x]\nmodel = "m"\n',
    );
  });

  it('refuses a file that does not parse and leaves it unchanged', () => {
    writeFileSync(path, '[broken\n');
    expect(() => writeTomlEntry(path, 'agentos', 'http://h/mcp', undefined)).toThrow(/Refusing to modify .*the existing TOML does not parse/);
    expect(readFileSync(path, 'utf8')).toBe('[broken\n');
  });

  it('refuses a dotted-key layout it cannot remove', () => {
    const text = '[mcp_servers]\nagentos.url = "http://h/mcp"\n';
    writeFileSync(path, text);
    expect(() => removeTomlEntry(path, 'agentos', undefined)).toThrow('unsupported TOML layout');
    expect(readFileSync(path, 'utf8')).toBe(text);
  });

  it('refuses to write through a symlink', () => {
    const real = join(dir, 'real.toml');
    writeFileSync(real, '');
    symlinkSync(real, path);
    expect(() => writeTomlEntry(path, 'agentos', 'http://h/mcp', 'svc_pat_x')).toThrow('symbolic link');
    expect(readFileSync(real, 'utf8')).toBe('');
  });
});
