import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { findComposeFile } from './find.js';

describe('findComposeFile', () => {
  let dir = '';
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'svc-compose-'));
    mkdirSync(join(dir, 'infra'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const touch = (...parts: string[]) => writeFileSync(join(dir, ...parts), 'services: {}\n');

  it('takes the names in order: docker-compose.yml, docker-compose.yaml, compose.yml, compose.yaml', () => {
    touch('compose.yaml');
    expect(findComposeFile(dir, undefined)).toBe(join(dir, 'compose.yaml'));
    touch('compose.yml');
    expect(findComposeFile(dir, undefined)).toBe(join(dir, 'compose.yml'));
    touch('docker-compose.yaml');
    expect(findComposeFile(dir, undefined)).toBe(join(dir, 'docker-compose.yaml'));
    touch('docker-compose.yml');
    expect(findComposeFile(dir, undefined)).toBe(join(dir, 'docker-compose.yml'));
  });

  it('looks in ./infra only when the root has none, and the root wins', () => {
    touch('infra', 'docker-compose.yml');
    expect(findComposeFile(dir, undefined)).toBe(join(dir, 'infra', 'docker-compose.yml'));
    touch('compose.yaml');
    expect(findComposeFile(dir, undefined)).toBe(join(dir, 'compose.yaml'));
  });

  it('ignores a directory with a compose name', () => {
    mkdirSync(join(dir, 'compose.yml'));
    touch('infra', 'compose.yaml');
    expect(findComposeFile(dir, undefined)).toBe(join(dir, 'infra', 'compose.yaml'));
  });

  it('fails with a hint when there is none', () => {
    expect(() => findComposeFile(dir, undefined)).toThrow(
      expect.objectContaining({ code: 'COMPOSE_FILE_MISSING', message: `No compose file found in ${dir} or ${join(dir, 'infra')}.`, hint: expect.stringContaining('--file') }),
    );
  });

  it('resolves --file against the cwd and requires it to exist', () => {
    touch('infra', 'custom.yml');
    expect(findComposeFile(dir, 'infra/custom.yml')).toBe(join(dir, 'infra', 'custom.yml'));
    expect(() => findComposeFile(dir, 'nope.yml')).toThrow(expect.objectContaining({ message: `Compose file not found: ${join(dir, 'nope.yml')}` }));
  });
});
