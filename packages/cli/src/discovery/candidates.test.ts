import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { candidates, sourceNote } from './candidates.js';

const defaults = ['http://localhost:7777', 'http://localhost:7778', 'http://localhost:7779', 'http://localhost:8000'];

describe('candidates', () => {
  let dir = '';
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'svc-cand-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('uses --url alone, stripped of trailing slashes', () => {
    expect(candidates('http://h:1/team/', { RUNTIME_URL: 'http://env' }, dir)).toEqual([
      { url: 'http://h:1/team', source: 'flag', sourceFile: null },
    ]);
  });

  it('uses RUNTIME_URL alone and ignores env files; an empty value counts as unset', () => {
    writeFileSync(join(dir, '.env'), 'RUNTIME_URL=http://file');
    expect(candidates(undefined, { RUNTIME_URL: 'http://env/' }, dir)).toEqual([{ url: 'http://env', source: 'env', sourceFile: null }]);
    expect(candidates(undefined, { RUNTIME_URL: '' }, dir)[0]).toEqual({ url: 'http://file', source: 'env-file', sourceFile: '.env' });
  });

  it('prefers .env.production over .env, skips a file whose value is only "/"', () => {
    writeFileSync(join(dir, '.env.production'), 'RUNTIME_URL=http://prod:9000');
    writeFileSync(join(dir, '.env'), 'RUNTIME_URL=http://dev:9000');
    expect(candidates(undefined, {}, dir)[0]).toEqual({ url: 'http://prod:9000', source: 'env-file', sourceFile: '.env.production' });
    writeFileSync(join(dir, '.env.production'), 'RUNTIME_URL=/');
    expect(candidates(undefined, {}, dir)[0]).toEqual({ url: 'http://dev:9000', source: 'env-file', sourceFile: '.env' });
  });

  it('falls back to the loopback ports in order, dropping one the env file already names', () => {
    expect(candidates(undefined, {}, dir).map((c) => c.url)).toEqual(defaults);
    writeFileSync(join(dir, '.env'), 'RUNTIME_URL=http://127.0.0.1:7778');
    expect(candidates(undefined, {}, dir).map((c) => c.url)).toEqual(['http://127.0.0.1:7778', defaults[0], defaults[2], defaults[3]]);
  });

  it('describes where a URL came from', () => {
    expect(sourceNote({ source: 'env-file', sourceFile: '.env' })).toBe(' (from RUNTIME_URL in .env)');
    expect(sourceNote({ source: 'env', sourceFile: null })).toBe(' (from RUNTIME_URL)');
    expect(sourceNote({ source: 'flag', sourceFile: null })).toBe('');
  });
});
