/**
 * Exact copies of config files taken before a change, so a failed connect can put every byte
 * (and the file mode, and whether the file or its directory existed at all) back as it was.
 */
import { chmodSync, closeSync, existsSync, fsyncSync, lstatSync, readFileSync, renameSync, rmdirSync, rmSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { openTemp } from './atomic-write.js';

export interface FileSnapshot {
  path: string;
  /** The bytes and mode of a file that existed; undefined when there was none. */
  before: { bytes: Buffer; mode: number } | undefined;
  /** Directories above the file that did not exist yet, deepest first. */
  missingDirs: string[];
}

export function snapshot(paths: readonly string[]): FileSnapshot[] {
  return [...new Set(paths)].map((path) => {
    let before: FileSnapshot['before'];
    try {
      const stat = lstatSync(path);
      // A symlink or directory is refused by every write, so it never needs restoring.
      if (stat.isFile()) before = { bytes: readFileSync(path), mode: stat.mode & 0o777 };
    } catch {
      before = undefined;
    }
    const missingDirs: string[] = [];
    for (let dir = dirname(path); !existsSync(dir) && dirname(dir) !== dir; dir = dirname(dir)) missingDirs.push(dir);
    return { path, before, missingDirs };
  });
}

function sameBytes(path: string, bytes: Buffer): boolean {
  try {
    return readFileSync(path).equals(bytes);
  } catch {
    return false;
  }
}

/** Puts each file back as it was; returns the paths that had changed. */
export function restore(snapshots: readonly FileSnapshot[]): string[] {
  const restored: string[] = [];
  for (let i = snapshots.length - 1; i >= 0; i -= 1) {
    const snap = snapshots[i] as FileSnapshot;
    if (snap.before === undefined) {
      if (!existsSync(snap.path)) continue;
      rmSync(snap.path, { force: true });
      restored.push(snap.path);
      for (const dir of snap.missingDirs) {
        try {
          rmdirSync(dir);
        } catch {
          break;
        }
      }
      continue;
    }
    const { bytes, mode } = snap.before;
    let modeNow: number | undefined;
    try {
      modeNow = lstatSync(snap.path).mode & 0o777;
    } catch {
      modeNow = undefined;
    }
    if (modeNow === mode && sameBytes(snap.path, bytes)) continue;
    // Same discipline as every write: a temp file born 0600 next to the target, then rename.
    const { temp, fd } = openTemp(snap.path);
    try {
      try {
        writeSync(fd, bytes);
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
      chmodSync(temp, mode);
      renameSync(temp, snap.path);
    } catch (error) {
      rmSync(temp, { force: true });
      throw error;
    }
    restored.push(snap.path);
  }
  return restored;
}
