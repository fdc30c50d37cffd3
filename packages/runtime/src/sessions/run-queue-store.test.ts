/**
 * One run at a time per session, on both stores: admission refuses a busy session, queued runs
 * start one by one in the order they were queued, a RUNNING run whose lease ran out no longer
 * counts, and concurrent admissions to one idle session admit exactly one.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { testDatabaseKinds, type TestDatabase } from '../../test/support/databases.js';
import type { Db } from '../storage/db.js';
import { RunQueueStore } from './run-queue-store.js';
import { SessionStore } from './session-store.js';
import { emptyMetrics, type RunRecord } from './types.js';

const lease = (expiresMs = Date.now() + 30_000) => ({ owner: 'o1', node: null, expiresMs });

function run(runId: string, startedMs: number): RunRecord {
  return {
    run_id: runId,
    session_id: 's1',
    session_type: 'agent',
    component_id: 'a1',
    user_id: null,
    status: 'RUNNING',
    input: { message: runId },
    content: null,
    messages: [],
    tools: [],
    metrics: emptyMetrics(),
    error: null,
    started_ms: startedMs,
    created_at: 1,
    updated_at: 1,
  };
}

for (const kind of testDatabaseKinds) {
  describe.skipIf(!kind.available)(`RunQueueStore on ${kind.kind}`, () => {
    let database: TestDatabase;
    let db: Db;
    let queue: RunQueueStore;
    let sessions: SessionStore;

    beforeEach(async () => {
      database = await kind.create();
      db = database.open();
      await db.migrate();
      sessions = new SessionStore(db);
      queue = new RunQueueStore(db);
      await sessions.ensureSession({ session_id: 's1', session_type: 'agent', component_id: 'a1', user_id: null });
    });
    afterEach(async () => {
      await db.close();
      await database.cleanup();
    });

    it('refuses a busy session, queues behind it, and starts queued runs one at a time in order', async () => {
      expect(await queue.admit(run('r1', 1), { lease: lease(), queue: false })).toEqual({ admitted: true });
      expect(await queue.admit(run('r2', 2), { lease: lease(), queue: false })).toEqual({ admitted: false, inProgress: [{ run_id: 'r1', status: 'RUNNING' }] });
      await queue.admit(run('r3', 3), { queue: true });
      await queue.admit(run('r4', 4), { queue: true });
      expect(await queue.startNext('r3', lease())).toBe('wait');
      await sessions.transitionRun('r1', 'RUNNING', 'COMPLETED');
      expect(await queue.startNext('r4', lease())).toBe('wait');
      expect(await queue.startNext('r3', lease())).toBe('started');
      expect(await queue.startNext('r3', lease())).toBe('gone');
      expect(await queue.startNext('r4', lease())).toBe('wait');
      await sessions.transitionRun('r3', 'RUNNING', 'COMPLETED');
      expect(await queue.startNext('r4', lease())).toBe('started');
      expect((await sessions.getRun('r4'))?.status).toBe('RUNNING');
    });

    it('does not count a RUNNING run whose lease ran out (its process is gone)', async () => {
      await queue.admit(run('r1', 1), { lease: lease(Date.now() - 1), queue: false });
      expect(await queue.admit(run('r2', 2), { lease: lease(), queue: false })).toEqual({ admitted: true });
    });

    it('admits exactly one of concurrent runs on an idle session', async () => {
      const others = [database.open(), database.open(), database.open()];
      try {
        const outcomes = await Promise.all(others.map((o, i) => new RunQueueStore(o).admit(run(`c${i}`, 10 + i), { lease: lease(), queue: false })));
        expect(outcomes.filter((o) => o.admitted)).toHaveLength(1);
        expect(await queue.runsInProgress('s1')).toHaveLength(1);
      } finally {
        for (const o of others) await o.close();
      }
    });
  });
}
