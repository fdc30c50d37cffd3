/**
 * Copies the template's example.env to .env so the project starts with the right keys. The
 * .env will hold secrets, so it is owner-only from birth, never overwrites an existing file,
 * and never follows a symlink (a template must not be able to point it elsewhere).
 */
import { closeSync, constants, fsyncSync, linkSync, lstatSync, openSync, readFileSync, unlinkSync, writeSync, type Stats } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { CliError } from '../errors.js';

function lstatOrUndefined(path: string): Stats | undefined {
  try {
    return lstatSync(path);
  } catch {
    return undefined;
  }
}

/** Returns whether the project now has a .env (created or already there). */
export function seedEnvFile(projectDir: string): boolean {
  const example = join(projectDir, 'example.env');
  const target = join(projectDir, '.env');
  const exampleStat = lstatOrUndefined(example);
  const targetStat = lstatOrUndefined(target);
  if (exampleStat?.isSymbolicLink() || targetStat?.isSymbolicLink()) {
    throw new CliError('ENV_SEED_FAILED', 'Refusing to create .env from a symlinked template file.', {
      hint: 'Replace the symlink with a regular file in the template, or use another template.',
    });
  }
  if (targetStat) {
    if (targetStat.isFile()) return true;
    throw new CliError('ENV_SEED_FAILED', `${target} exists but is not a file.`, { hint: 'Fix the template so .env is a regular file.' });
  }
  if (!exampleStat) return false;
  // Written under a temporary name, then hard-linked into place: link() never replaces an
  // existing file, and readers never see a half-written .env.
  const temp = join(projectDir, `.env.${randomBytes(6).toString('hex')}.tmp`);
  try {
    const source = openSync(example, constants.O_RDONLY | constants.O_NOFOLLOW);
    let content: Buffer;
    try {
      content = readFileSync(source);
    } finally {
      closeSync(source);
    }
    const fd = openSync(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
    try {
      writeSync(fd, content);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    linkSync(temp, target);
    return true;
  } catch (error) {
    throw new CliError('ENV_SEED_FAILED', `Could not create ${target}: ${error instanceof Error ? error.message : String(error)}`, {
      hint: 'Check the permissions of the project directory, then re-run.',
    });
  } finally {
    try {
      unlinkSync(temp);
    } catch {
      // never created
    }
  }
}
