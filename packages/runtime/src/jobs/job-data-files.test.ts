import { randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { JobDataFiles } from './job-data-files.js';

const root = mkdtempSync(join(tmpdir(), 'svc-job-files-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

let n = 0;
const freshDir = () => join(root, `d${n++}`, 'runtime.db.jobs');

/** A pid no process has (above Linux's pid_max). */
const DEAD_PID = 4_194_400;

describe('JobDataFiles', () => {
  it('writes bytes durably under a final name, with no temporary file left, readable back', async () => {
    const files = new JobDataFiles(freshDir());
    const bytes = Uint8Array.from({ length: 300_000 }, (_, i) => i % 251);
    const name = await files.write(bytes);
    expect(name).toMatch(new RegExp(`^${process.pid}-[0-9a-f-]{36}\\.job$`));
    expect(readdirSync(files.dir)).toEqual([name]);
    expect(statSync(join(files.dir, name)).mode & 0o777).toBe(0o600);
    expect(Buffer.from((await files.read(name))!).equals(bytes)).toBe(true);
    await files.remove(name);
    expect(readdirSync(files.dir)).toEqual([]);
    expect(await files.read(name)).toBeNull();
  });

  it('writes a string as its UTF-8 bytes, slice by slice, pairs cut by no slice', async () => {
    const files = new JobDataFiles(freshDir());
    // More than one slice (1 Mi characters), with surrogate pairs and multi-byte characters everywhere.
    const text = 'ab😀é\n'.repeat(300_000);
    const name = await files.write(text);
    // (Buffer#equals: toEqual compares megabytes element by element, for seconds.)
    expect(readFileSync(join(files.dir, name)).equals(Buffer.from(text, 'utf8'))).toBe(true);
  });

  it('a failed write leaves nothing behind', async () => {
    const dir = freshDir();
    const files = new JobDataFiles(dir);
    // Not bytes: the write fails once the temporary file is open.
    await expect(files.write({ length: 3 } as unknown as Uint8Array)).rejects.toThrow(/"data" argument/);
    expect(readdirSync(dir)).toEqual([]);
    // And nothing stays in flight: the sweep may take what a failed write left.
    writeFileSync(join(dir, `${process.pid}-${randomUUID()}.tmp`), 'x');
    expect(await files.sweep(async () => new Set())).toBe(1);
  });

  it('refuses to read or remove names it did not make', async () => {
    const dir = freshDir();
    const files = new JobDataFiles(dir);
    await files.write(new Uint8Array([1]));
    writeFileSync(join(dir, 'other.txt'), 'x');
    expect(await files.read('../other.txt')).toBeNull();
    expect(await files.read('other.txt')).toBeNull();
    await files.remove('other.txt');
    expect(readdirSync(dir)).toContain('other.txt');
  });

  it('sweeps files no job references, unless a live process or a write in flight may still commit them', async () => {
    const dir = freshDir();
    const files = new JobDataFiles(dir);
    expect(await files.sweep(async () => new Set())).toBe(0);
    const referenced = await files.write(new Uint8Array([1]));
    const orphan = await files.write(new Uint8Array([2]));
    files.landed(referenced);
    files.landed(orphan);
    const inFlight = await files.write(new Uint8Array([3]));
    const deadWriter = `${DEAD_PID}-${randomUUID()}.job`;
    const deadTemp = `${DEAD_PID}-${randomUUID()}.tmp`;
    // pid 1 is alive (init): another live process's file may be about to be committed.
    const liveWriter = `1-${randomUUID()}.job`;
    for (const name of [deadWriter, deadTemp, liveWriter, 'not-ours.txt']) writeFileSync(join(dir, name), 'x');
    let asked = 0;
    const removed = await files.sweep(async () => {
      asked++;
      return new Set([referenced]);
    });
    expect(asked).toBe(1);
    expect(removed).toBe(3);
    expect(readdirSync(dir).toSorted()).toEqual([referenced, inFlight, liveWriter, 'not-ours.txt'].toSorted());
    // Once its transaction is over, an unreferenced file of this process is an orphan too.
    files.landed(inFlight);
    expect(await files.sweep(async () => new Set([referenced]))).toBe(1);
    expect(readdirSync(dir)).not.toContain(inFlight);
  });
});
