import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { restore, snapshot } from './snapshot.js';

describe('snapshot / restore', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'svc-snap-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('puts back bytes and mode, removes files and directories that did not exist, and skips unchanged files', () => {
    const kept = join(dir, 'kept.json');
    const changed = join(dir, 'changed.json');
    const created = join(dir, 'new', 'deeper', 'file.json');
    writeFileSync(kept, 'same');
    writeFileSync(changed, '{ "a": 1 }\r\n');
    chmodSync(changed, 0o644);
    const snaps = snapshot([kept, changed, created, changed]);
    expect(snaps).toHaveLength(3);
    writeFileSync(changed, '{}');
    chmodSync(changed, 0o600);
    mkdirSync(join(dir, 'new', 'deeper'), { recursive: true });
    writeFileSync(created, 'x');
    expect(restore(snaps).sort()).toEqual([changed, created].sort());
    expect(readFileSync(changed, 'utf8')).toBe('{ "a": 1 }\r\n');
    expect(statSync(changed).mode & 0o777).toBe(0o644);
    expect(existsSync(join(dir, 'new'))).toBe(false);
    expect(readFileSync(kept, 'utf8')).toBe('same');
  });
});
