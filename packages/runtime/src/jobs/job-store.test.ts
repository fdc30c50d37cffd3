/**
 * Job inputs kept in files beside a SQLite database (job-data-files.ts): written before the
 * job's transaction, read back by the claim, removed when the job ends however it ends, never
 * left when the insert does not commit, swept at start when a crash orphaned them. The store
 * contract on both databases is test/jobs.test.ts.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../storage/db.js';
import { SqliteDb } from '../storage/sqlite/sqlite-db.js';
import { FILE_DATA_MIN_BYTES, JobStore, defaultJobDataDir } from './job-store.js';

const root = mkdtempSync(join(tmpdir(), 'svc-job-store-'));
let db: Db;
let store: JobStore;
const dir = join(root, 'runtime.db.jobs');
const MIN = 1000;

beforeAll(async () => {
  db = new SqliteDb({ path: join(root, 'runtime.db') });
  await db.migrate();
  store = new JobStore(db, { fileDataMinBytes: MIN });
});
afterAll(async () => {
  await db?.close();
  rmSync(root, { recursive: true, force: true });
});

const files = () => (existsSync(dir) ? readdirSync(dir).toSorted() : []);
const big = (seed: number) => Uint8Array.from({ length: MIN + 500 }, (_, i) => (i * seed) % 256);
const row = async (id: string) => (await db.query<{ data: Uint8Array | null; data_file: string | null }>('SELECT data, data_file FROM svc_jobs WHERE id = $1', [id]))[0];
const enqueueBig = (kind: string, data: Uint8Array | string, ref?: string) => store.withData(data, (staged) => store.enqueue({ kind, ref, payload: {}, data: staged }));

describe('job inputs in files beside a SQLite database', () => {
  it('the directory is beside a SQLite file; none for an in-memory database', () => {
    expect(store.files?.dir).toBe(dir);
    expect(defaultJobDataDir(db)).toBe(dir);
    expect(defaultJobDataDir(new SqliteDb({ path: ':memory:' }))).toBeUndefined();
    expect(new JobStore(db, { dataDir: null }).files).toBeUndefined();
    expect(FILE_DATA_MIN_BYTES).toBe(1 << 20);
  });

  it('a large input goes to a file the row names, and the claim reads it back; a small one stays in the row', async () => {
    const data = big(7);
    const id = await enqueueBig('file-in', data);
    const stored = await row(id);
    expect(stored!.data).toBeNull();
    expect(files()).toEqual([stored!.data_file]);
    const job = await store.claim('w', ['file-in'], 10_000);
    expect(job!.id).toBe(id);
    expect(Buffer.from(job!.data!).equals(data)).toBe(true);
    expect(Buffer.from((await store.get(id))!.data!).equals(data)).toBe(true);
    expect(await store.complete(id, 'w')).toBe(true);
    // Completed: the row and its file are gone.
    expect(files()).toEqual([]);

    const small = await store.withData(new Uint8Array([1, 2, 3]), (staged) => store.enqueue({ kind: 'row-in', payload: {}, data: staged }));
    expect(await row(small)).toMatchObject({ data_file: null });
    expect([...(await row(small))!.data!]).toEqual([1, 2, 3]);
    expect(files()).toEqual([]);
    await store.deleteByRef('nothing');
    await db.execute('DELETE FROM svc_jobs WHERE id = $1', [small]);
  });

  it('a text input is stored as its UTF-8 bytes', async () => {
    const text = 'é😀 '.repeat(400);
    const id = await enqueueBig('text-in', text);
    expect(files()).toHaveLength(1);
    const job = await store.claim('w', ['text-in'], 10_000);
    expect(Buffer.from(job!.data!).toString('utf8')).toBe(text);
    await store.complete(id, 'w');
    expect(files()).toEqual([]);
  });

  it('a job that fails for good drops its file and forgets its name; a retry or a release keeps it', async () => {
    const id = await enqueueBig('fail-in', big(3));
    await store.claim('w', ['fail-in'], 10_000);
    expect(await store.retry(id, 'w', 'later', 0)).toBe(true);
    await store.claim('w', ['fail-in'], 10_000);
    expect(await store.release(id, 'w')).toBe(true);
    expect(files()).toHaveLength(1);
    await store.claim('w', ['fail-in'], 10_000);
    // Another worker cannot fail it: the file stays for the holder of the lease.
    expect(await store.fail(id, 'other', 'no')).toBe(false);
    expect(files()).toHaveLength(1);
    expect(await store.fail(id, 'w', 'bad input')).toBe(true);
    expect(await row(id)).toEqual({ data: null, data_file: null });
    expect(files()).toEqual([]);
    await db.execute('DELETE FROM svc_jobs WHERE id = $1', [id]);
  });

  it('deleting jobs by ref removes their files once the transaction commits, and keeps them when it rolls back', async () => {
    await enqueueBig('del-in', big(5), 'content-1');
    await enqueueBig('del-in', big(11), 'content-1');
    expect(files()).toHaveLength(2);
    await expect(
      db.transaction(async (tx) => {
        await store.deleteByRef('content-1', tx);
        throw new Error('changed my mind');
      }),
    ).rejects.toThrow('changed my mind');
    await store.settled();
    expect(files()).toHaveLength(2);
    expect(await db.transaction((tx) => store.deleteByRef('content-1', tx))).toBe(2);
    await store.settled();
    expect(files()).toEqual([]);
  });

  it('an input whose job is not committed leaves no file: the callback fails, the insert fails, the transaction rolls back or enqueues nothing', async () => {
    await expect(
      store.withData(big(2), async () => {
        expect(files()).toHaveLength(1);
        throw new Error('refused');
      }),
    ).rejects.toThrow('refused');
    expect(files()).toEqual([]);

    // The insert itself fails (kind is NOT NULL).
    await expect(store.withData(big(2), (staged) => store.enqueue({ kind: null as unknown as string, payload: {}, data: staged }))).rejects.toThrow('Storage operation failed');
    expect(files()).toEqual([]);

    // Enqueued, then the transaction rolls back.
    await expect(
      store.withData(big(2), (staged) =>
        db.transaction(async (tx) => {
          await store.enqueue({ kind: 'rolled-back', payload: {}, data: staged }, tx);
          throw new Error('conflict');
        }),
      ),
    ).rejects.toThrow('conflict');
    expect(files()).toEqual([]);

    // The caller decided not to enqueue (the content was there already).
    expect(await store.withData(big(2), async () => 'kept as it was')).toBe('kept as it was');
    expect(files()).toEqual([]);
    expect(await db.query("SELECT id FROM svc_jobs WHERE kind = 'rolled-back'")).toEqual([]);
  });

  it('the sweep at start removes files no job names (a crash between the file and the commit) and keeps the others', async () => {
    const kept = await enqueueBig('sweep-in', big(13));
    const keptFile = (await row(kept))!.data_file!;
    // A file whose job never committed, as a process killed before its transaction would leave.
    const orphan = await store.files!.write(big(17));
    store.files!.landed(orphan);
    expect(files()).toEqual([keptFile, orphan].toSorted());
    // A restart: a new store on the same database.
    expect(await new JobStore(db, { fileDataMinBytes: MIN }).sweepDataFiles()).toBe(1);
    expect(files()).toEqual([keptFile]);
    const job = await store.claim('w', ['sweep-in'], 10_000);
    expect(Buffer.from(job!.data!).equals(big(13))).toBe(true);
    await store.complete(kept, 'w');
    expect(files()).toEqual([]);
  });

  it('a job whose file is gone is claimed without data (its handler then fails it)', async () => {
    const id = await enqueueBig('lost-in', big(19));
    rmSync(join(dir, (await row(id))!.data_file!));
    const job = await store.claim('w', ['lost-in'], 10_000);
    expect(job).toMatchObject({ id, data: null });
    await store.complete(id, 'w');
  });
});
