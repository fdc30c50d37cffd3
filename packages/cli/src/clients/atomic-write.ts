/**
 * Writes of client configs: all-or-nothing and never wider than they must be.
 * - The temp file sits next to the target (same file system, so rename is atomic) and is born
 *   0600, so a token never exists on disk at a wider mode, even for a moment under umask 0.
 * - A symlinked target is refused: following it would write somewhere the user did not name,
 *   and replacing it would silently detach the link.
 */
import { closeSync, fsyncSync, lstatSync, mkdirSync, openSync, renameSync, rmSync, chmodSync, writeSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { basename, dirname, join } from 'node:path';
import { CliError } from '../errors.js';

export const FIX_HINT = 'Fix or move the file, then re-run.';

/** Throws when `path` is a symbolic link; returns its current mode, or undefined when it is missing. */
export function assertWritableTarget(path: string): number | undefined {
  let stat;
  try {
    stat = lstatSync(path);
  } catch {
    return undefined;
  }
  if (stat.isSymbolicLink()) {
    throw new CliError('CONFIG_INVALID', `Refusing to modify ${path}: it is a symbolic link.`, {
      hint: 'Edit the file the link points to by hand, or replace the link with a regular file, then re-run.',
    });
  }
  return stat.mode & 0o777;
}

export function atomicWrite(path: string, text: string, secure: boolean): void {
  const currentMode = assertWritableTarget(path);
  mkdirSync(dirname(path), { recursive: true });
  const temp = join(dirname(path), `.${basename(path)}.${randomBytes(6).toString('hex')}.tmp`);
  const fd = openSync(temp, 'wx', 0o600);
  try {
    try {
      writeSync(fd, text);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    // A tokenless rewrite keeps the user's mode; a new file gets what the umask allows.
    const mode = secure ? 0o600 : (currentMode ?? 0o666 & ~process.umask());
    chmodSync(temp, mode);
    renameSync(temp, path);
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
}
