import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEMPLATE_NAMES, buildTemplateRepos } from './bare-repos.js';

const run = promisify(execFile);

describe('buildTemplateRepos', () => {
  let dir: string;
  let base: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'svc-template-repos-'));
    base = await buildTemplateRepos(join(dir, 'repos'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('returns a file:// base holding one bare repository per starter', () => {
    expect(base).toBe(`file://${join(dir, 'repos')}`);
    expect(TEMPLATE_NAMES).toHaveLength(9);
    for (const name of TEMPLATE_NAMES) expect(existsSync(join(dir, 'repos', `${name}.git`, 'HEAD'))).toBe(true);
    // The scratch work trees are gone: only the bare repositories remain.
    expect(existsSync(join(dir, 'repos', 'runtime-docker'))).toBe(false);
  });

  it('clones at depth 1 the way svc create does, with example.env and the starter files', async () => {
    const target = join(dir, 'clone-docker');
    await run('git', ['clone', '--depth', '1', `${base}/runtime-docker.git`, target]);
    expect(readFileSync(join(target, 'example.env'), 'utf8')).toContain('RUNTIME_URL=');
    for (const file of ['compose.yaml', 'Dockerfile', 'src/main.ts', 'package.json']) expect(existsSync(join(target, file))).toBe(true);
    const { stdout } = await run('git', ['-C', target, 'log', '--format=%an <%ae>%n%s']);
    expect(stdout.trim()).toBe('svc templates <templates@example.invalid>\nruntime-docker starter');
  });

  it('serves each starter under its own name', async () => {
    const target = join(dir, 'clone-fly');
    await run('git', ['clone', '--depth', '1', `${base}/runtime-fly.git`, target]);
    expect(existsSync(join(target, 'infra', 'compose.yaml'))).toBe(true);
    expect(JSON.parse(readFileSync(join(target, 'package.json'), 'utf8')).name).toBe('runtime-fly');
  });
});
