/**
 * `svc create` cloning real (local, bare) git repositories: the nine real starters from
 * `templates/` (via SVC_TEMPLATES_BASE_URL), plus a few small purpose-built repositories for the
 * cases no starter has (symlinked example.env, a committed .env, no example.env, a custom repo).
 */
import { existsSync, lstatSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ensureBuilt, jsonOf, runCli, sandbox, type Sandbox } from './support/cli.js';
import { templateRepos, type TemplateRepos } from './support/git-templates.js';
import { listFiles, starterFiles, starterRepos, TEMPLATES_DIR, type StarterRepos } from './support/starter-repos.js';

const STARTERS = ['runtime-docker', 'runtime-aws', 'runtime-azure', 'runtime-fly', 'runtime-gcp', 'runtime-helm', 'runtime-modal', 'runtime-railway', 'runtime-render'];

const source = (template: string, path: string) => readFileSync(join(TEMPLATES_DIR, template, path), 'utf8');

/** A cloned starter holds exactly the starter's committed files, plus the seeded .env. */
function expectStarter(project: string, template: string): void {
  expect(existsSync(join(project, '.git'))).toBe(false);
  expect(listFiles(project).filter((f) => f !== '.env')).toEqual(starterFiles(template));
  expect(readFileSync(join(project, 'package.json'), 'utf8')).toBe(source(template, 'package.json'));
  expect(readFileSync(join(project, '.env'), 'utf8')).toBe(source(template, 'example.env'));
  expect(lstatSync(join(project, '.env')).isFile()).toBe(true);
  expect(statSync(join(project, '.env')).mode & 0o777).toBe(0o600);
  expect(readdirSync(project).filter((f) => f.endsWith('.tmp'))).toEqual([]);
}

describe('svc create', () => {
  let starters: StarterRepos;
  let special: TemplateRepos;
  let custom = '';
  let noExample = '';
  let committedEnv = '';
  let symlinked = '';
  let box: Sandbox;
  const run = (args: string[], env: Record<string, string | undefined> = {}) =>
    runCli(['create', ...args], { ...box, env: { SVC_TEMPLATES_BASE_URL: starters.baseUrl, ...env } });

  beforeAll(async () => {
    await ensureBuilt();
    starters = await starterRepos();
    special = templateRepos();
    custom = special.add('my-custom', { files: { 'custom.txt': 'yes\n', 'example.env': 'C=1\n' } });
    noExample = special.add('no-example', { files: { 'README.md': 'bare\n', 'fly.toml': 'app = "x"\n' } });
    committedEnv = special.add('committed-env', { files: { 'example.env': 'A=1\n', '.env': 'KEEP=me\n' } });
    symlinked = special.add('symlinked-example', { files: { 'real.env': 'A=1\n' }, symlinks: { 'example.env': 'real.env' } });
  });
  afterAll(() => {
    starters?.cleanup();
    special?.cleanup();
  });
  beforeEach(() => {
    box = sandbox();
  });
  afterEach(() => box.cleanup());

  it('has a local repository for each of the nine real starters', () => {
    expect(starters.names).toEqual(STARTERS);
    for (const name of STARTERS) expect(starterFiles(name)).toEqual(expect.arrayContaining(['package.json', 'example.env']));
  });

  it('clones runtime-docker by default, drops .git and seeds a 0600 .env from its example.env', async () => {
    const r = await run(['app', '--json']);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    const project = join(box.cwd, 'app');
    expect(jsonOf(r)).toEqual({ path: project, template: 'runtime-docker' });
    expectStarter(project, 'runtime-docker');
    expect(readFileSync(join(project, 'compose.yaml'), 'utf8')).toBe(source('runtime-docker', 'compose.yaml'));
  });

  it.each(STARTERS)('--template %s clones that starter', async (template) => {
    const r = await run(['proj', '--template', template, '--json']);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(jsonOf(r)).toEqual({ path: join(box.cwd, 'proj'), template });
    expectStarter(join(box.cwd, 'proj'), template);
  });

  it('takes -t, and says what to do next in human mode', async () => {
    const r = await run(['fly-2', '-t', 'runtime-fly']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Created fly-2 from runtime-fly.');
    expect(r.stdout).toContain('Add your secrets to fly-2/.env, then cd into fly-2 and run svc up.');
    expect(readFileSync(join(box.cwd, 'fly-2', 'fly.toml'), 'utf8')).toBe(source('runtime-fly', 'fly.toml'));
    expectStarter(join(box.cwd, 'fly-2'), 'runtime-fly');
  });

  it('takes a custom repository with --url and -u', async () => {
    let r = await run(['mine', '--url', custom, '--json']);
    expect(jsonOf(r)).toEqual({ path: join(box.cwd, 'mine'), template: custom });
    expect(readFileSync(join(box.cwd, 'mine', 'custom.txt'), 'utf8')).toBe('yes\n');
    expect(readFileSync(join(box.cwd, 'mine', '.env'), 'utf8')).toBe('C=1\n');
    expect(existsSync(join(box.cwd, 'mine', '.git'))).toBe(false);
    r = await run(['mine-2', '-u', custom]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`Created mine-2 from ${custom}.`);
    expect(r.stdout).toContain('Add your secrets to mine-2/.env, then cd into mine-2 and run svc up.');
  });

  it('creates no .env when the template has no example.env, and says so', async () => {
    const r = await run(['plain', '-u', noExample]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`Created plain from ${noExample}.`);
    expect(r.stdout).toContain('No example.env found. Follow the template setup instructions, then cd into plain and run svc up.');
    expect(readFileSync(join(box.cwd, 'plain', 'fly.toml'), 'utf8')).toBe('app = "x"\n');
    expect(existsSync(join(box.cwd, 'plain', '.env'))).toBe(false);
  });

  it('never overwrites a .env the template already has', async () => {
    const r = await run(['kept', '--url', committedEnv, '--json']);
    expect(r.code).toBe(0);
    expect(readFileSync(join(box.cwd, 'kept', '.env'), 'utf8')).toBe('KEEP=me\n');
  });

  it('refuses a symlinked example.env and leaves no directory behind', async () => {
    const r = await run(['linked', '--url', symlinked, '--json']);
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
    // A mirror that lacks the starter: the clone itself fails.
    const r = await run(['app', '-t', 'runtime-gcp', '--json'], { SVC_TEMPLATES_BASE_URL: special.baseUrl });
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
