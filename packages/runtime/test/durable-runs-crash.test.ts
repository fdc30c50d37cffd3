/**
 * kill -9 of the runtime executing a background run, on both stores, with two runtime processes
 * on one database: the run is never left RUNNING (the survivor marks it ERROR "interrupted"
 * with its stored output once the lease runs out: a half-streamed model call is not resumed),
 * and a run queued behind it in the same session is started and completed by the survivor.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startChildRuntime, freePort, type ChildRuntime } from './support/child-runtime.js';
import { testDatabaseKinds, type TestDatabase } from './support/databases.js';
import { eventually } from './support/eventually.js';
import { startFakeLlm, type FakeLlm } from './support/fake-llm.js';
import { call } from './support/http.js';

type Json = Record<string, any>;

const words = (n: number, prefix: string) => Array.from({ length: n }, (_, i) => `${prefix}${i}`).join(' ');

async function runNode(database: TestDatabase, runId: string): Promise<string | null> {
  const db = database.open();
  try {
    const [row] = await db.query<{ run_node: string | null }>('SELECT run_node FROM svc_runs WHERE run_id = $1', [runId]);
    return row?.run_node ?? null;
  } finally {
    await db.close();
  }
}

for (const kind of testDatabaseKinds) {
  describe.skipIf(!kind.available)(`a background run whose runtime is killed, on ${kind.kind}`, () => {
    let fake: FakeLlm;
    let database: TestDatabase;
    const children: ChildRuntime[] = [];

    beforeAll(async () => {
      fake = await startFakeLlm();
      database = await kind.create();
      for (let i = 0; i < 2; i++) {
        children.push(await startChildRuntime({ DATABASE_URL: database.url, FAKE_LLM_URL: fake.url, RUN_LEASE_SECONDS: '2', PORT: String(await freePort()) }));
      }
    }, 60_000);
    afterAll(async () => {
      for (const c of children) await c.kill();
      await database?.cleanup();
      await fake?.close();
    });

    it('ends ERROR "interrupted" with its output, never RUNNING, and the run queued behind it completes on the survivor', async () => {
      fake.setBehaviour({ chunkDelayMs: 60 });
      const session = `crash-${kind.kind}`;
      const first = (await call(children[0]!.url, 'POST', '/agents/writer/runs', { body: { message: words(200, 'k'), session_id: session, background: true } })).body as Json;
      const queued = (
        await call(children[1]!.url, 'POST', '/agents/writer/runs', { body: { message: 'after the crash', session_id: session, background: true, multitask_strategy: 'enqueue' } })
      ).body as Json;
      expect([first.status, queued.status]).toEqual(['PENDING', 'PENDING']);
      // Some output is stored while it streams, on whichever runtime took the job.
      await eventually(async () => {
        const run = (await call(children[1]!.url, 'GET', `/agents/writer/runs/${first.run_id}`)).body as Json;
        return run.status === 'RUNNING' && typeof run.content === 'string' && run.content.startsWith('You said: k0') ? true : undefined;
      }, 15_000, 'the background run to stream');
      const node = await runNode(database, first.run_id);
      const victim = children.find((c) => node?.endsWith(`:${c.port}`))!;
      const survivor = children.find((c) => c !== victim)!;
      expect(victim).toBeDefined();
      await victim.kill();
      const killedAt = Date.now();
      const ended = await eventually(async () => {
        const run = (await call(survivor.url, 'GET', `/agents/writer/runs/${first.run_id}`)).body as Json;
        return run.status === 'RUNNING' ? undefined : run;
      }, 20_000, 'the survivor to end the run');
      fake.setBehaviour({ chunkDelayMs: 0 });
      expect(ended).toMatchObject({ status: 'ERROR', error: expect.stringContaining('interrupted'), content: expect.stringMatching(/^You said: k0 k1/) });
      // Within the lease (2 s) and a sweep (every half lease), with headroom for a loaded machine.
      expect(Date.now() - killedAt).toBeLessThan(15_000);
      const next = await eventually(async () => {
        const run = (await call(survivor.url, 'GET', `/agents/writer/runs/${queued.run_id}`)).body as Json;
        return run.status === 'COMPLETED' || run.status === 'ERROR' ? run : undefined;
      }, 20_000, 'the queued run to run on the survivor');
      expect(next).toMatchObject({ status: 'COMPLETED', content: 'You said: after the crash' });
      expect((await runNode(database, queued.run_id))?.endsWith(`:${survivor.port}`)).toBe(true);
    }, 60_000);
  });
}
