import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseEnvValue, readEnvFileValue } from './env-file.js';

const K = 'RUNTIME_URL';

describe('parseEnvValue', () => {
  it.each([
    ["# comment\nexport RUNTIME_URL='http://first'\nRUNTIME_URL=\"http://second\"", 'http://second'],
    ['# RUNTIME_URL=http://commented\nOTHER=x', undefined],
    ['RUNTIME_URL=http://host:9000  # deployed by up.sh', 'http://host:9000'],
    ['RUNTIME_URL=http://host:9000/path#frag', 'http://host:9000/path#frag'],
    ['RUNTIME_URL="http://host:9000"  # prod', 'http://host:9000'],
    ['RUNTIME_URL=http://old:9000\nRUNTIME_URL=', undefined],
    ['export\tRUNTIME_URL = http://tabbed ', 'http://tabbed'],
    ['RUNTIME_URL="http://unterminated', '"http://unterminated'],
    ['runtime_url=http://case', undefined],
    ['NOEQUALS\nRUNTIME_URL=http://x\r\n', 'http://x'],
    ["RUNTIME_URL='a#b' # c", 'a#b'],
  ])('%j gives %j', (text, expected) => {
    expect(parseEnvValue(text, K)).toBe(expected);
  });
});

describe('readEnvFileValue', () => {
  let dir = '';
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('tolerates a BOM and treats invalid UTF-8 or a missing file as absent', () => {
    dir = mkdtempSync(join(tmpdir(), 'svc-envfile-'));
    writeFileSync(join(dir, 'bom'), '\uFEFFRUNTIME_URL=http://host:9000');
    writeFileSync(join(dir, 'bad'), Buffer.concat([Buffer.from('RUNTIME_URL=http://host'), Buffer.from([0xff, 0xfe])]));
    expect(readEnvFileValue(join(dir, 'bom'), K)).toBe('http://host:9000');
    expect(readEnvFileValue(join(dir, 'bad'), K)).toBeUndefined();
    expect(readEnvFileValue(join(dir, 'missing'), K)).toBeUndefined();
  });
});
