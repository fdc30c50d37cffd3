/**
 * `svc create` cloning real (local, bare) git repositories.
 */
import { existsSync, lstatSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ensureBuilt, jsonOf, runCli, sandbox, type Sandbox } from './support/cli.js';
import { templateRepos, type TemplateRepos } from './support/git-templates.js';

const EXAMPLE_ENV = '# secrets\nOPENAI_API_KEY=\n';

describe('svc create', () => {
  let repos: TemplateRepos;
  let custom = '';
  let box: Sandbox;
  const run = (args: string[], env: Record<string, string | undefined> = {}) =>
    runCli(['create', ...args], { ...box, env: { SVC_TEMPLATES_BASE_URL: repos.baseUrl, ...env } });

  beforeAll(async () => {
    await ensureBuilt();
    repos = templateRepos();
    repos.add('runtime-docker', { files: { 'README.md': 'docker\n', 'example.env': EXAMPLE_ENV, 'compose.yaml': 'services: {}\n' } });
    repos.add('runtime-fly', { files: { 'README.md': 'fly\n', 'fly.toml': 'app = "x"\n' } });
    repos.add('runtime-render', { files: { 'example.env': 'A=1\n', '.env': 'KEEP=me\n' } });
    repos.add('runtime-aws', { files: { 'real.env': 'A=1\n' }, symlinks: { 'example.env': 'real.env' } });
    custom = repos.add('my-custom', { files: { 'custom.txt': 'yes\n', 'example.env': 'C=1\n' } });
  });
  afterAll(() => repos.cleanup());
  beforeEach(() => {
    box = sandbox();
  });
  afterEach(() => box.cleanup());

  it('clones runtime-docker by default, drops .git and seeds a 0600 .env', async () => {
    const r = await run(['app', '--json']);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    const project = join(box.cwd, 'app');
    expect(jsonOf(r)).toEqual({ path: project, template: 'runtime-docker' });
    expect(readFileSync(join(project, 'README.md'), 'utf8')).toBe('docker\n');
    expect(existsSync(join(project, '.git'))).toBe(false);
    expect(readFileSync(join(project, '.env'), 'utf8')).toBe(EXAMPLE_ENV);
    expect(statSync(join(project, '.env')).mode & 0o777).toBe(0o600);
    expect(readdirSync(project).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it('takes --template and -t', async () => {
    let r = await run(['fly-app', '--template', 'runtime-fly', '--json']);
    expect(jsonOf(r)).toEqual({ path: join(box.cwd, 'fly-app'), template: 'runtime-fly' });
    expect(readFileSync(join(box.cwd, 'fly-app', 'fly.toml'), 'utf8')).toBe('app = "x"\n');
    r = await run(['fly-2', '-t', 'runtime-fly']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Created fly-2 from runtime-fly.');
    expect(r.stdout).toContain('No example.env found. Follow the template setup instructions, then cd into fly-2 and run svc up.');
    expect(existsSync(join(box.cwd, 'fly-2', '.env'))).toBe(false);
  });

  it('takes a custom repository with --url and -u', async () => {
    let r = await run(['mine', '--url', custom, '--json']);
    expect(jsonOf(r)).toEqual({ path: join(box.cwd, 'mine'), template: custom });
    expect(readFileSync(join(box.cwd, 'mine', 'custom.txt'), 'utf8')).toBe('yes\n');
    r = await run(['mine-2', '-u', custom]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`Created mine-2 from ${custom}.`);
    expect(r.stdout).toContain('Add your secrets to mine-2/.env, then cd into mine-2 and run svc up.');
  });

  it('never overwrites a .env the template already has', async () => {
    const r = await run(['kept', '-t', 'runtime-render', '--json']);
    expect(r.code).toBe(0);
    expect(readFileSync(join(box.cwd, 'kept', '.env'), 'utf8')).toBe('KEEP=me\n');
  });

  it('refuses a symlinked example.env and leaves no directory behind', async () => {
    const r = await run(['linked', '-t', 'runtime-aws', '--json']);
    expect(r.code).toBe(1);
    expect(jsonOf(r)).toEqual({ error: 'Refusing to create .env from a symlinked template file.', hint: expect.any(String) });
    expect(existsSync(join(box.cwd, 'linked'))).toBe(false);
  });

  it('fails when the directory exists, touching nothing', async () => {
    mkdirSync(join(box.cwd, 'taken'));
    writeFileSync(join(box.cwd, 'taken', 'mine.txt'), 'x');
    const r = await run(['taken', '--json']);
    expect(r.code).toBe(1);
    expect(jsonOf(r)).toEqual({
      error: `The directory ${join(box.cwd, 'taken')} already exists.`,
      hint: 'Pick a different name or remove the existing directory.',
    });
    expect(readdirSync(join(box.cwd, 'taken'))).toEqual(['mine.txt']);
  });

  it.each(['..', '.', 'a.b', 'with space', '~home'])('rejects the project name %j', async (name) => {
    const r = await run([name, '--json']);
    expect(r.code).toBe(1);
    expect(jsonOf(r)).toEqual({ error: `Invalid project name: ${name}`, hint: expect.stringContaining('single directory name') });
  });

  it.each([['../evil'], ['a/b'], ['/abs/path']])('rejects the path-like name %j', async (name) => {
    const r = await run([name, '--json']);
    expect(r.code).toBe(1);
    expect(jsonOf(r).error).toBe(`Invalid project name: ${name}`);
    expect(readdirSync(box.cwd)).toEqual([]);
  });

  it('requires a name when it cannot prompt', async () => {
    const r = await run(['--json']);
    expect(r.code).toBe(1);
    expect(jsonOf(r)).toEqual({ error: 'A project name is required in non-interactive mode.', hint: 'Pass a name, for example: svc create my-runtime' });
    const human = await run([]);
    expect(human.code).toBe(1);
    expect(human.stdout).toBe('');
    expect(human.stderr).toContain('A project name is required in non-interactive mode.');
  });

  it('says git is required when it is not on PATH', async () => {
    const emptyBin = join(box.root, 'empty-bin');
    mkdirSync(emptyBin);
    const r = await run(['app', '--json'], { PATH: emptyBin });
    expect(r.code).toBe(1);
    expect(jsonOf(r)).toEqual({ error: 'git is required to create a project from a template.', hint: 'Install git and re-run.' });
  });

  it('reports a failed clone and leaves no directory', async () => {
    const r = await run(['app', '-t', 'runtime-gcp', '--json']);
    expect(r.code).toBe(1);
    const body = jsonOf(r);
    expect(body.error).toMatch(/^git clone failed: /);
    expect(body.hint).toContain('re-run');
    expect(existsSync(join(box.cwd, 'app'))).toBe(false);
  });

  it('refuses a template URL carrying a password as a usage error', async () => {
    const r = await run(['app', '--url', 'https://user:secret@example.com/repo.git', '--json']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('embedded credential');
  });

  it('mentions both defaults in --help', async () => {
    const r = await run(['--help']);
    expect(r.stdout.replace(/\s+/g, ' ')).toContain('default: my-runtime');
    expect(r.stdout.replace(/\s+/g, ' ')).toContain('when omitted: runtime-docker');
    expect(lstatSync(box.cwd).isDirectory()).toBe(true);
  });
});
