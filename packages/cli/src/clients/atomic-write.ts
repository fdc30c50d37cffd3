/**
 * Writes of client configs: all-or-nothing and never wider than they must be.
 * - The temp file sits next to the target (same file system, so rename is atomic) and is born
 *   0600, so a token never exists on disk at a wider mode, even for a moment under umask 0.
 * - A symlinked target is refused: following it would write somewhere the user did not name,
 *   and replacing it would silently detach the link.
 */
import { closeSync, fsyncSync, lstatSync, mkdirSync, openSync, renameSync, rmSync, chmodSync, writeSync } from 'node:fs';
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

let tempCounter = 0;

/**
 * Creates a new temp file next to `path`, born 0600, and returns its name and descriptor. The
 * name need not be unpredictable (O_EXCL refuses to open anything that exists, a planted link
 * included, and a clash just moves on to the next name), so no crypto module is loaded for it:
 * node:crypto costs milliseconds of cold start.
 */
export function openTemp(path: string): { temp: string; fd: number } {
  for (;;) {
    tempCounter += 1;
    const temp = join(dirname(path), `.${basename(path)}.${process.pid}.${Date.now().toString(36)}.${tempCounter}.tmp`);
    try {
      return { temp, fd: openSync(temp, 'wx', 0o600) };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
}

export function atomicWrite(path: string, text: string, secure: boolean): void {
  const currentMode = assertWritableTarget(path);
  mkdirSync(dirname(path), { recursive: true });
  const { temp, fd } = openTemp(path);
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
