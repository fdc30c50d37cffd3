/**
 * @module jobs/job-data-files
 * Large job inputs on a SQLite database live in files beside it rather than in `svc_jobs.data`.
 *
 * Why: better-sqlite3 is synchronous, so inserting a 10 MB upload into the job row held the event
 * loop for ~60 ms (2-3x that under load), and SQLite rewrites a whole row on every UPDATE, so
 * the claim and each lease renewal copied the 10 MB again. A file is written with asynchronous
 * I/O instead, and the row carries only its name.
 *
 * Durability is the row's: a file is written to a temporary name, fsynced, renamed to its final
 * name and its directory fsynced, all before the transaction that records the job, so a job row
 * never names a file that a crash could lose. The other way round (a file no row names: the
 * process died between rename and commit, or the transaction rolled back) is cleaned up by the
 * caller (`JobStore.withData`) or, after a crash, by the sweep at start.
 *
 * File names are `<pid>-<uuid>.job` (`.tmp` while written): the sweep leaves alone what a live
 * process other than this one may still be about to commit, as the vector store does with its
 * staged versions, so runtimes sharing one SQLite file must share a PID namespace (one host).
 */
import { randomUUID } from 'node:crypto';
import { mkdir, open, readdir, readFile, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { processAlive } from '../util/process-alive.js';
import { utf8Slices } from '../util/utf8-slices.js';

const NAME = /^(\d+)-[0-9a-f-]{36}\.(job|tmp)$/;

/** Files being written or committed by this process, per directory: the sweep must not take them. */
const inFlight = new Map<string, Set<string>>();

export class JobDataFiles {
  constructor(readonly dir: string) {}

  private flying(): Set<string> {
    let names = inFlight.get(this.dir);
    if (!names) inFlight.set(this.dir, (names = new Set()));
    return names;
  }

  /**
   * Writes `data` (a string as UTF-8, encoded a slice at a time) to a new file and makes it
   * durable; returns its name. The name stays in flight (safe from the sweep) until `landed`.
   */
  async write(data: Uint8Array | string): Promise<string> {
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
    const id = `${process.pid}-${randomUUID()}`;
    const name = `${id}.job`;
    const temp = join(this.dir, `${id}.tmp`);
    const flying = this.flying();
    flying.add(name);
    try {
      const handle = await open(temp, 'wx', 0o600);
      try {
        if (typeof data === 'string') {
          for (const piece of utf8Slices(data)) await handle.writeFile(Buffer.from(piece, 'utf8'));
        } else {
          await handle.writeFile(data);
        }
        await handle.sync();
      } finally {
        await handle.close();
      }
      await rename(temp, join(this.dir, name));
      await syncDirectory(this.dir);
      return name;
    } catch (error) {
      flying.delete(name);
      await rm(temp, { force: true }).catch(() => undefined);
      throw error;
    }
  }

  /** The file's name may be swept again once no transaction can still commit a row naming it. */
  landed(name: string): void {
    this.flying().delete(name);
  }

  /** The bytes of a file, or null when it is gone. */
  async read(name: string): Promise<Uint8Array | null> {
    if (!NAME.test(name)) return null;
    try {
      return await readFile(join(this.dir, name));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
  }

  async remove(name: string): Promise<void> {
    if (!NAME.test(name)) return;
    await rm(join(this.dir, name), { force: true });
  }

  /**
   * Removes the files no job references (`referenced` is asked after the directory is listed):
   * orphans of a crash, temporary files of an interrupted write. Files of live processes other
   * than this one, and this process's files in flight, are left. Returns how many were removed.
   */
  async sweep(referenced: () => Promise<Set<string>>): Promise<number> {
    let names: string[];
    try {
      names = await readdir(this.dir);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 0;
      throw error;
    }
    // In this order: a file in flight when the directory was listed is either still in flight
    // now, or its row is committed (and visible to the query below), or it was removed.
    const flying = new Set(this.flying());
    const keep = await referenced();
    let removed = 0;
    for (const name of names) {
      const match = NAME.exec(name);
      if (!match || keep.has(name) || flying.has(name) || flying.has(name.replace(/\.tmp$/, '.job'))) continue;
      const pid = Number(match[1]);
      if (pid !== process.pid && processAlive(pid)) continue;
      await rm(join(this.dir, name), { force: true });
      removed++;
    }
    return removed;
  }
}

/** Makes a rename in `dir` durable; a no-op where directories cannot be opened (Windows). */
async function syncDirectory(dir: string): Promise<void> {
  let handle;
  try {
    handle = await open(dir, 'r');
  } catch {
    return;
  }
  try {
    await handle.sync();
  } catch {
    // Some file systems refuse fsync on a directory; the rename is then as durable as they make it.
  } finally {
    await handle.close();
  }
}
