import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { testDatabaseKinds, type TestDatabase } from '../../test/support/databases.js';
import type { Db } from '../storage/db.js';
import { SessionStore } from './session-store.js';
import { emptyMetrics, type RunRecord } from './types.js';

function run(overrides: Partial<RunRecord>): RunRecord {
  return {
    run_id: 'r1',
    session_id: 's1',
    session_type: 'agent',
    component_id: 'a1',
    user_id: null,
    status: 'RUNNING',
    input: { message: 'hi' },
    content: null,
    messages: [],
    tools: [],
    metrics: emptyMetrics(),
    error: null,
    started_ms: 1_000,
    created_at: 1,
    updated_at: 1,
    ...overrides,
  };
}

for (const kind of testDatabaseKinds) {
  describe.skipIf(!kind.available)(`SessionStore on ${kind.kind}`, () => {
    let database: TestDatabase;
    let db: Db;
    let store: SessionStore;

    beforeEach(async () => {
      database = await kind.create();
      db = database.open();
      await db.migrate();
      store = new SessionStore(db);
    });
    afterEach(async () => {
      await db.close();
      await database.cleanup();
    });

    it('creates a session once and keeps it bound to its component and user', async () => {
      const first = await store.ensureSession({ session_id: 's1', session_type: 'agent', component_id: 'a1', user_id: 'u1' });
      expect(first).toMatchObject({ session_id: 's1', session_type: 'agent', component_id: 'a1', user_id: 'u1', session_name: null });
      const again = await store.ensureSession({ session_id: 's1', session_type: 'agent', component_id: 'a1', user_id: 'u1' });
      expect(again.created_at).toBe(first.created_at);
      await expect(store.ensureSession({ session_id: 's1', session_type: 'team', component_id: 'a1', user_id: 'u1' })).rejects.toMatchObject({ code: 'CONFLICT' });
      await expect(store.ensureSession({ session_id: 's1', session_type: 'agent', component_id: 'a1', user_id: 'u2' })).rejects.toMatchObject({ code: 'FORBIDDEN' });
    });

    it('survives two first runs of one session racing', async () => {
      const input = { session_id: 'race', session_type: 'agent' as const, component_id: 'a1', user_id: null };
      const [a, b] = await Promise.all([store.ensureSession(input), store.ensureSession(input)]);
      expect(a.session_id).toBe(b.session_id);
    });

    it('saves, updates and lists runs in start order', async () => {
      await store.ensureSession({ session_id: 's1', session_type: 'agent', component_id: 'a1', user_id: null });
      await store.saveRun(run({ run_id: 'late', started_ms: 2_000 }));
      await store.saveRun(run({ run_id: 'early', started_ms: 1_000 }));
      await store.saveRun(
        run({
          run_id: 'late',
          started_ms: 2_000,
          status: 'COMPLETED',
          content: 'done',
          messages: [{ role: 'user', content: 'hi' }, { role: 'assistant', content: 'done' }],
          tools: [{ tool_call_id: 'c1', tool_name: 't', tool_args: '{}', result: 'ok', error: null }],
          updated_at: 5,
        }),
      );
      const runs = await store.listRuns({ session_id: 's1' });
      expect(runs.map((r) => r.run_id)).toEqual(['early', 'late']);
      expect(runs[1]).toMatchObject({ status: 'COMPLETED', content: 'done', tools: [{ tool_name: 't' }] });
      expect(runs[1]!.messages).toHaveLength(2);
      expect((await store.getSession('s1'))!.updated_at).toBe(5);
      expect(await store.getRun('missing')).toBeUndefined();
    });

    it('reads the last completed runs of a session, oldest first, for history', async () => {
      await store.ensureSession({ session_id: 's1', session_type: 'agent', component_id: 'a1', user_id: null });
      for (let i = 1; i <= 5; i++) await store.saveRun(run({ run_id: `c${i}`, started_ms: i * 1000, status: 'COMPLETED' }));
      await store.saveRun(run({ run_id: 'failed', started_ms: 5500, status: 'ERROR' }));
      const recent = await store.recentRuns('s1', 'COMPLETED', 3);
      expect(recent.map((r) => r.run_id)).toEqual(['c3', 'c4', 'c5']);
      expect(await store.recentRuns('other', 'COMPLETED', 3)).toEqual([]);
      // A conditional status change succeeds once.
      await store.saveRun(run({ run_id: 'p', started_ms: 6000, status: 'PAUSED' }));
      expect(await store.transitionRun('p', 'PAUSED', 'RUNNING')).toBe(true);
      expect(await store.transitionRun('p', 'PAUSED', 'RUNNING')).toBe(false);
      expect((await store.getRun('p'))!.status).toBe('RUNNING');
    });

    it('pages, filters and sorts sessions, matching names literally', async () => {
      for (const [id, name, user] of [
        ['a', 'Alpha 100%', 'u1'],
        ['b', 'beta_x', 'u1'],
        ['c', 'gamma', 'u2'],
      ] as const) {
        await store.ensureSession({ session_id: id, session_type: 'agent', component_id: 'a1', user_id: user, session_name: name });
      }
      await store.ensureSession({ session_id: 't', session_type: 'team', component_id: 't1', user_id: 'u1' });
      const base = { limit: 2, page: 1, sort_by: 'session_name' as const, sort_order: 'asc' as const };
      const page1 = await store.listSessions({ ...base, type: 'agent' });
      expect(page1.total).toBe(3);
      expect(page1.data.map((s) => s.session_id)).toEqual(['a', 'b']);
      expect((await store.listSessions({ ...base, type: 'agent', page: 2 })).data.map((s) => s.session_id)).toEqual(['c']);
      expect((await store.listSessions({ ...base, user_id: 'u2' })).data.map((s) => s.session_id)).toEqual(['c']);
      expect((await store.listSessions({ ...base, session_name: '100%' })).data.map((s) => s.session_id)).toEqual(['a']);
      expect((await store.listSessions({ ...base, session_name: 'a_x' })).data.map((s) => s.session_id)).toEqual(['b']);
      expect((await store.listSessions({ ...base, session_name: '_' })).data.map((s) => s.session_id)).toEqual(['b']);
    });

    it('renames and deletes sessions with their runs', async () => {
      await store.ensureSession({ session_id: 's1', session_type: 'agent', component_id: 'a1', user_id: null });
      await store.saveRun(run({}));
      expect((await store.renameSession('s1', 'Trip plan'))!.session_name).toBe('Trip plan');
      expect(await store.renameSession('nope', 'x')).toBeUndefined();
      expect(await store.deleteSessions(['s1', 'nope'])).toBe(1);
      expect(await store.getSession('s1')).toBeUndefined();
      expect(await store.getRun('r1')).toBeUndefined();
    });
  });
}
