import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import type { WorkerPool } from '../../../workers/pool.js';
import { BackgroundCheckpoints, checkpointTask } from './checkpoint.js';

const dir = mkdtempSync(join(tmpdir(), 'svc-checkpoint-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A pool that records its tasks and finishes each when told to. */
function fakePool(outcome: 'ok' | 'fail' = 'ok') {
  const calls: { task: string; payload: unknown }[] = [];
  const finish: (() => void)[] = [];
  const pool = {
    run: (task: string, payload: unknown) => {
      calls.push({ task, payload });
      return new Promise((resolve, reject) => finish.push(() => (outcome === 'ok' ? resolve({ busy: 0, log: 1, checkpointed: 1 }) : reject(new Error('queue full')))));
    },
  } as unknown as WorkerPool;
  return { pool, calls, finishAll: () => finish.splice(0).forEach((f) => f()) };
}

describe('checkpointTask', () => {
  it("copies the writer's log into the database from a connection of its own, while the writer keeps its connection", async () => {
    const path = join(dir, 'task.db');
    const writer = new Database(path);
    writer.pragma('journal_mode = WAL');
    // So only the task checkpoints.
    writer.pragma('wal_autocheckpoint = 0');
    writer.exec('CREATE TABLE t (x TEXT)');
    const insert = writer.prepare('INSERT INTO t (x) VALUES (?)');
    writer.transaction(() => {
      for (let i = 0; i < 500; i++) insert.run('y'.repeat(1000));
    })();
    const result = await checkpointTask({ path });
    expect(result.busy).toBe(0);
    expect(result.log).toBeGreaterThan(100);
    expect(result.checkpointed).toBe(result.log);
    // Nothing is left for the writer's own checkpoint to copy.
    expect(writer.pragma('wal_checkpoint(PASSIVE)')).toEqual([{ busy: 0, log: result.log, checkpointed: result.log }]);
    expect(writer.prepare('SELECT count(*) AS n FROM t').get()).toEqual({ n: 500 });
    writer.close();
  });

  it('refuses a database that is not there rather than creating one', async () => {
    await expect(checkpointTask({ path: join(dir, 'missing.db') })).rejects.toThrow(/unable to open database file/);
  });
});

describe('BackgroundCheckpoints', () => {
  it('runs one checkpoint at a time in the pool, for the store file', async () => {
    const { pool, calls, finishAll } = fakePool();
    const checkpoints = new BackgroundCheckpoints('/data/knowledge.db', () => pool);
    checkpoints.wrote();
    checkpoints.wrote();
    checkpoints.wrote();
    expect(calls).toEqual([{ task: 'sqlite-checkpoint', payload: { path: '/data/knowledge.db' } }]);
    finishAll();
    await checkpoints.settled();
    checkpoints.wrote();
    expect(calls).toHaveLength(2);
    finishAll();
    await checkpoints.settled();
  });

  it('a failing pool fails no write, and the next write tries again', async () => {
    const { pool, calls, finishAll } = fakePool('fail');
    const checkpoints = new BackgroundCheckpoints('/data/knowledge.db', () => pool);
    checkpoints.wrote();
    finishAll();
    await checkpoints.settled();
    checkpoints.wrote();
    expect(calls).toHaveLength(2);
    finishAll();
    await checkpoints.settled();
  });

  it('inline, SQLite checkpoints as it commits and nothing is sent anywhere', async () => {
    let asked = 0;
    const checkpoints = new BackgroundCheckpoints('/data/knowledge.db', () => {
      asked++;
      return 'inline';
    });
    checkpoints.wrote();
    expect(asked).toBe(1);
    await expect(checkpoints.settled()).resolves.toBeUndefined();
  });
});
