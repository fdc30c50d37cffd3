/**
 * A runtime killed with SIGKILL in the middle of a run: nothing stays RUNNING. The partial
 * output is stored while the run streams, a runtime restarted on the same port finalises the
 * run at once, a peer on the same database does it when the dead one's lease runs out, and a
 * cancel of an orphaned run ends it CANCELLED instead of answering "still running".
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OpenAIChatModel } from '../src/providers/openai/chat.js';
import { INTERRUPTED_MESSAGE } from '../src/sessions/run-lease-store.js';
import { startChildRuntime, freePort, type ChildRuntime } from './support/child-runtime.js';
import { testComponents } from './support/components.js';
import { testDatabaseKinds, type TestDatabase } from './support/databases.js';
import { startFakeLlm, type FakeLlm } from './support/fake-llm.js';
import { eventually } from './support/eventually.js';
import { startRuntimeOn, type StartedRuntime } from './support/runtime.js';

type Json = Record<string, any>;

const LONG_MESSAGE = Array.from({ length: 200 }, (_, i) => `word${i}`).join(' ');

const getRun = async (url: string, runId: string): Promise<Json> => (await (await fetch(`${url}/agents/writer/runs/${runId}`)).json()) as Json;

/** Starts a slow run on the child and waits until some of its output is stored. */
const startSlowRun = async (child: ChildRuntime): Promise<string> => {
  const res = await fetch(`${child.url}/agents/writer/runs`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ message: LONG_MESSAGE }),
  });
  const reader = res.body!.getReader();
  const first = new TextDecoder().decode((await reader.read()).value);
  const runId = /"run_id":"([^"]+)"/.exec(first)![1]!;
  // The stream stays open (the client is still there) while the runtime dies.
  return eventually(async () => {
    const run = await getRun(child.url, runId);
    return run.status === 'RUNNING' && typeof run.content === 'string' && run.content.startsWith('You said: word0') ? runId : undefined;
  }, 10_000, 'partial output to be stored while the run streams');
};

for (const kind of testDatabaseKinds) {
  describe.skipIf(!kind.available)(`runs of a killed runtime on ${kind.kind}`, () => {
    let fake: FakeLlm;
    let database: TestDatabase;
    const started: { stop(): Promise<void> }[] = [];
    let options: Record<string, unknown>;

    beforeAll(async () => {
      fake = await startFakeLlm();
      fake.setBehaviour({ chunkDelayMs: 60 });
      database = await kind.create();
      const model = new OpenAIChatModel({ model: 'fake-model', baseURL: `${fake.url}/v1`, maxRetries: 0 });
      const { agents, teams, workflows } = testComponents(model);
      options = { agents, teams, workflows };
    });
    afterAll(async () => {
      for (const s of started.toReversed()) await s.stop();
      await database?.cleanup();
      await fake?.close();
    });

    const child = async (lease: number, port?: number): Promise<ChildRuntime> => {
      const c = await startChildRuntime({
        DATABASE_URL: database.url,
        FAKE_LLM_URL: fake.url,
        RUN_LEASE_SECONDS: String(lease),
        PORT: String(port ?? (await freePort())),
      });
      started.push({ stop: c.kill });
      return c;
    };
    const peer = async (internals: { runLeaseMs: number; port?: number }): Promise<StartedRuntime> => {
      const rt = await startRuntimeOn(database, options, internals);
      started.push(rt);
      return rt;
    };

    it('a runtime restarted on the same port marks the run it was executing interrupted, keeping the stored output', async () => {
      const first = await child(60);
      const runId = await startSlowRun(first);
      await first.kill();
      // Nothing else noticed yet: a 60 s lease has not run out.
      const db = database.open();
      const [row] = await db.query<{ status: string }>('SELECT status FROM svc_runs WHERE run_id = $1', [runId]);
      await db.close();
      expect(row!.status).toBe('RUNNING');

      const restarted = await peer({ runLeaseMs: 60_000, port: first.port });
      const run = await getRun(restarted.url, runId);
      expect(run).toMatchObject({ status: 'ERROR', error: INTERRUPTED_MESSAGE });
      expect(run.content).toMatch(/^You said: word0 word1/);
      await restarted.stop();
    });

    it('a peer on the same database finalises the dead runtime\'s run once its lease runs out', async () => {
      const survivor = await peer({ runLeaseMs: 1000 });
      const doomed = await child(2);
      const runId = await startSlowRun(doomed);
      const killedAt = Date.now();
      await doomed.kill();
      const run = await eventually(async () => {
        const r = await getRun(survivor.url, runId);
        return r.status === 'RUNNING' ? undefined : r;
      }, 10_000, 'the survivor to finalise the run');
      expect(run).toMatchObject({ status: 'ERROR', error: INTERRUPTED_MESSAGE, content: expect.stringMatching(/^You said: word0/) });
      // Lease 2 s (renewed every ~0.7 s), survivor sweeping every 0.5 s: seconds, not the default 30 s lease.
      expect(Date.now() - killedAt).toBeLessThan(8000);
      await survivor.stop();
    });

    it('cancelling an orphaned run ends it CANCELLED with its stored output, instead of "still running"', async () => {
      // A peer whose own sweep does not get there first (60 s lease: it sweeps every 30 s).
      const other = await peer({ runLeaseMs: 60_000 });
      const doomed = await child(2);
      const runId = await startSlowRun(doomed);
      await doomed.kill();
      const res = await fetch(`${other.url}/agents/writer/runs/${runId}/cancel`, { method: 'POST' });
      expect(await res.json()).toEqual({ run_id: runId, cancelled: true, status: 'CANCELLED', already_finished: false });
      const run = await getRun(other.url, runId);
      expect(run.status).toBe('CANCELLED');
      expect(run.content).toMatch(/^You said: word0/);
      await other.stop();
    });
  });
}
