/**
 * Local stand-ins for the nine starter repositories, so `svc create` tests clone real git
 * repositories without the network: `<dir>/runtime-<target>.git`, one commit each, made from
 * the starter's committed files.
 */
import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { TARGETS, starterDir } from '../sync.mjs';

const run = promisify(execFile);

/** Starter names in `svc create`'s menu order. */
export const TEMPLATE_NAMES: readonly string[] = TARGETS.map((t) => `runtime-${t}`);

// Fixed identity and no user or system git config, so commits are reproducible and a
// developer's hooks, signing or default-branch settings cannot break the tests.
const GIT_ENV = {
  ...process.env,
  GIT_AUTHOR_NAME: 'svc templates',
  GIT_AUTHOR_EMAIL: 'templates@example.invalid',
  GIT_AUTHOR_DATE: '2025-01-01T00:00:00Z',
  GIT_COMMITTER_NAME: 'svc templates',
  GIT_COMMITTER_EMAIL: 'templates@example.invalid',
  GIT_COMMITTER_DATE: '2025-01-01T00:00:00Z',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
};

/** Local build output that must not end up in a template repository. */
const EXCLUDED = new Set(['node_modules', 'dist', 'data', '.env']);

/**
 * Creates `<dir>/runtime-<target>.git` (bare) for every starter and returns `file://<dir>`;
 * `${base}/runtime-docker.git` is then a clonable repository URL.
 */
export async function buildTemplateRepos(dir: string): Promise<string> {
  const base = resolve(dir);
  mkdirSync(base, { recursive: true });
  const scratch = mkdtempSync(join(base, '.work-'));
  try {
    for (const target of TARGETS) {
      const name = `runtime-${target}`;
      const work = join(scratch, name);
      cpSync(starterDir(target), work, { recursive: true, filter: (src) => !EXCLUDED.has(basename(src)) });
      const git = (...args: string[]) => run('git', args, { cwd: work, env: GIT_ENV });
      await git('init', '-q', '-b', 'main');
      await git('add', '-A');
      await git('-c', 'commit.gpgsign=false', 'commit', '-q', '--no-verify', '-m', `${name} starter`);
      await run('git', ['clone', '-q', '--bare', work, join(base, `${name}.git`)], { env: GIT_ENV });
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  return pathToFileURL(base).href;
}
