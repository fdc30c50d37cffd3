/**
 * Shallow-clones a template with git and strips its history, so the new project starts as the
 * user's own code. git is spawned from an argument array with no shell, stdin closed and
 * prompts disabled (a private repo fails fast instead of hanging).
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { CliError } from '../errors.js';
import { runCommand } from '../system/run.js';
import { which } from '../system/which.js';

export const CLONE_TIMEOUT_MS = 300_000;

export async function cloneTemplate(repo: string, target: string, env: NodeJS.ProcessEnv): Promise<void> {
  const git = which('git', env);
  if (!git) throw new CliError('GIT_MISSING', 'git is required to create a project from a template.', { hint: 'Install git and re-run.' });
  const result = await runCommand(git, ['clone', '--depth', '1', '--quiet', '--', repo, target], {
    env: { ...env, GIT_TERMINAL_PROMPT: '0' },
    timeoutMs: CLONE_TIMEOUT_MS,
    capture: true,
  });
  if (result.timedOut || result.code !== 0) {
    // A failed clone must not leave a directory behind that blocks the retry.
    rmSync(target, { recursive: true, force: true });
    if (result.timedOut) {
      throw new CliError('GIT_FAILED', `git clone timed out after ${CLONE_TIMEOUT_MS / 1000}s: ${repo}`, { hint: 'Check your network connection, then re-run.' });
    }
    const detail = (result.stderr.trim() || result.stdout.trim() || repo).split('\n').slice(-3).join(' ');
    throw new CliError('GIT_FAILED', `git clone failed: ${detail}`, { hint: 'Check the template name or --url and your network access, then re-run.' });
  }
  rmSync(join(target, '.git'), { recursive: true, force: true });
}
