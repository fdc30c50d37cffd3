/**
 * The durable job contract, run on SQLite and PostgreSQL: claims with leases, takeover after a
 * lease runs out, each job claimed once among competing workers, retries with backoff, giving
 * up, and handing work back at shutdown; a job whose worker process a limit stopped fails at once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RuntimeError } from '../src/errors.js';
import { FILE_DATA_MIN_BYTES, JobStore } from '../src/jobs/job-store.js';
import { crashedMessage, JobWorker } from '../src/jobs/job-worker.js';
import { silentLogger } from '../src/util/logger.js';
import type { Db } from '../src/storage/db.js';
import { WorkerPool } from '../src/workers/pool.js';
import { testDatabaseKinds, type TestDatabase } from './support/databases.js';
import { eventually } from './support/eventually.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Worker process tasks that misbehave as hostile files make parsers do. */
const poolChild = new URL('./support/pool-child.ts', import.meta.url);

for (const kind of testDatabaseKinds) {
  describe.skipIf(!kind.available)(`durable jobs on ${kind.kind}`, () => {
    let database: TestDatabase;
    let db: Db;
    let other: Db;
    let store: JobStore;

    beforeAll(async () => {
      database = await kind.create();
      db = database.open();
      await db.migrate();
      other = database.open();
      store = new JobStore(db);
    });
    afterAll(async () => {
      await other?.close();
      await db?.close();
      await database?.cleanup();
    });

    it('a claimed job is leased to one owner, with its payload and data, until the lease runs out', async () => {
      const id = await store.enqueue({ kind: 'lease-test', ref: 'r1', payload: { n: 1 }, data: new Uint8Array([1, 2, 3]) });
      const job = await store.claim('a', ['lease-test'], 200);
      expect(job).toMatchObject({ id, ref: 'r1', payload: { n: 1 }, status: 'running', attempts: 1 });
      expect([...job!.data!]).toEqual([1, 2, 3]);
      expect(await store.claim('b', ['lease-test'], 200)).toBeUndefined();
      await sleep(250);
      // a died: its lease ran out, so b takes the job over, and a can no longer finish it.
      const takeover = await store.claim('b', ['lease-test'], 10_000);
      expect(takeover).toMatchObject({ id, attempts: 2 });
      expect(await store.complete(id, 'a')).toBe(false);
      expect(await store.complete(id, 'b')).toBe(true);
      expect(await store.get(id)).toBeUndefined();
    });

    it('an input held in the row comes back byte for byte when it spans many read slices (and when it is empty)', async () => {
      // No data directory: the input stays in the row on SQLite too, and is read in 1 MiB slices.
      const inRow = new JobStore(db, { dataDir: null });
      const data = Uint8Array.from({ length: 2.5 * 1024 * 1024 + 7 }, (_, i) => (i * 31 + (i >> 12)) % 256);
      const id = await inRow.enqueue({ kind: 'sliced-test', payload: {}, data });
      const job = await inRow.claim('a', ['sliced-test'], 10_000);
      expect(job?.id).toBe(id);
      expect(job!.data!.byteLength).toBe(data.byteLength);
      expect(Buffer.compare(job!.data!, data)).toBe(0);
      expect(await inRow.complete(id, 'a')).toBe(true);
      const empty = await inRow.enqueue({ kind: 'sliced-test', payload: {}, data: new Uint8Array(0) });
      expect((await inRow.claim('a', ['sliced-test'], 10_000))?.data).toEqual(new Uint8Array(0));
      expect(await inRow.complete(empty, 'a')).toBe(true);
    });

    it('claims only the kinds asked for, and a retried job waits for its time', async () => {
      const id = await store.enqueue({ kind: 'retry-test', payload: {} });
      expect(await store.claim('a', ['other-kind'], 1000)).toBeUndefined();
      await store.claim('a', ['retry-test'], 1000);
      expect(await store.retry(id, 'a', 'try later', Date.now() + 300)).toBe(true);
      expect(await store.claim('a', ['retry-test'], 1000)).toBeUndefined();
      await sleep(350);
      expect(await store.claim('a', ['retry-test'], 1000)).toMatchObject({ id, attempts: 2, lastError: 'try later' });
      await store.complete(id, 'a');
    });

    it('competing workers on separate connections claim each job exactly once', async () => {
      const ids = new Set<string>();
      for (let i = 0; i < 20; i++) ids.add(await store.enqueue({ kind: 'race', payload: { i } }));
      const stores = [new JobStore(db), new JobStore(other)];
      const claimed: string[] = [];
      await Promise.all(
        stores.flatMap((s, w) =>
          [0, 1, 2].map(async (slot) => {
            for (;;) {
              const job = await s.claim(`w${w}-${slot}`, ['race'], 60_000);
              if (!job) return;
              claimed.push(job.id);
            }
          }),
        ),
      );
      expect(claimed.toSorted()).toEqual([...ids].toSorted());
    });

    it('a worker runs jobs, retries failures with backoff, and gives up on bad input at once', async () => {
      const worker = new JobWorker({ store, log: silentLogger, pollMs: 20, retryBaseMs: 50 });
      const calls: string[] = [];
      const failures: string[] = [];
      worker.register('work', {
        run: async (job) => {
          calls.push(`${String(job.payload.name)}#${job.attempts}`);
          if (job.payload.name === 'flaky' && job.attempts < 3) throw new Error('connection reset');
          if (job.payload.name === 'bad') throw new RuntimeError('VALIDATION_ERROR', 'not a PDF');
          if (job.payload.name === 'doomed') throw new Error('always down');
        },
        failed: async (job, message) => {
          failures.push(`${String(job.payload.name)}: ${message}`);
        },
      });
      worker.start();
      const ok = await store.enqueue({ kind: 'work', payload: { name: 'ok' } });
      const flaky = await store.enqueue({ kind: 'work', payload: { name: 'flaky' } });
      const bad = await store.enqueue({ kind: 'work', payload: { name: 'bad' } });
      const doomed = await store.enqueue({ kind: 'work', payload: { name: 'doomed' }, maxAttempts: 2 });
      await eventually(async () => ((await store.get(ok)) === undefined && (await store.get(flaky)) === undefined ? true : undefined), 5000, 'ok and flaky to finish');
      await eventually(async () => ((await store.get(doomed))?.status === 'failed' ? true : undefined), 5000, 'doomed to fail');
      expect(calls).toEqual(expect.arrayContaining(['ok#1', 'flaky#1', 'flaky#2', 'flaky#3', 'bad#1', 'doomed#1', 'doomed#2']));
      expect(calls.filter((c) => c.startsWith('bad'))).toEqual(['bad#1']);
      expect(await store.get(bad)).toMatchObject({ status: 'failed', lastError: 'not a PDF', data: null });
      // Only the typed error's message is kept; an unexpected one is logged, not stored.
      expect(failures.toSorted()).toEqual(['bad: not a PDF', 'doomed: The job failed because of an internal error (see the runtime log)']);
      await worker.stop();
    });

    it('a job that must wait is handed back for later without counting an attempt, however often it waits', async () => {
      const worker = new JobWorker({ store, log: silentLogger, pollMs: 20, retryBaseMs: 50 });
      const seen: { attempts: number; at: number }[] = [];
      worker.register('waits', {
        run: async (job) => {
          seen.push({ attempts: job.attempts, at: Date.now() });
          // Waits four times (more than its two attempts), then runs.
          return seen.length <= 4 ? { retryAfterMs: 60 } : undefined;
        },
      });
      worker.start();
      const id = await store.enqueue({ kind: 'waits', payload: {}, maxAttempts: 2 });
      await eventually(async () => ((await store.get(id)) === undefined ? true : undefined), 5000, 'the waiting job to finish');
      await worker.stop();
      expect(seen.map((s) => s.attempts)).toEqual([1, 1, 1, 1, 1]);
      for (let i = 1; i < seen.length; i++) expect(seen[i]!.at - seen[i - 1]!.at).toBeGreaterThanOrEqual(55);
    });

    it('a stack overflow fails the job at once, with a message that says so, like bad input', async () => {
      const worker = new JobWorker({ store, log: silentLogger, pollMs: 20, retryBaseMs: 50 });
      const calls: number[] = [];
      const failures: string[] = [];
      worker.register('deep', {
        run: async (job) => {
          calls.push(job.attempts);
          const down = (n: number): number => 1 + down(n + 1);
          down(0);
        },
        failed: async (_job, message) => {
          failures.push(message);
        },
      });
      worker.start();
      const id = await store.enqueue({ kind: 'deep', payload: {} });
      await eventually(async () => ((await store.get(id))?.status === 'failed' ? true : undefined), 5000, 'the job to fail');
      expect(calls).toEqual([1]);
      expect(failures).toEqual(['The job failed: its input is nested too deeply to process (the stack overflowed), so it was not tried again']);
      await worker.stop();
    });

    it('a job whose worker process was killed for its memory or its time fails at once, naming the limit and its setting', async () => {
      const pool = new WorkerPool({ processEntry: poolChild, isolation: 'process', size: 1, rssMb: 128, taskTimeoutMs: 500 });
      const worker = new JobWorker({ store, log: silentLogger, pollMs: 20, retryBaseMs: 50 });
      const calls: string[] = [];
      const failures: string[] = [];
      worker.register('parse', {
        run: async (job) => {
          const name = String(job.payload.name);
          calls.push(`${name}#${job.attempts}`);
          // 1 GB of native memory, or a second of a loop that never yields.
          await (name === 'huge.epub' ? pool.run('allocate', 1024, { label: `converter reader: "${name}"` }) : pool.run('spin', 60_000, { label: `converter reader: "${name}"` }));
        },
        failed: async (job, message) => {
          failures.push(`${String(job.payload.name)}: ${message}`);
        },
      });
      worker.start();
      try {
        const huge = await store.enqueue({ kind: 'parse', payload: { name: 'huge.epub' } });
        const slow = await store.enqueue({ kind: 'parse', payload: { name: 'slow.tex' } });
        for (const id of [huge, slow]) await eventually(async () => ((await store.get(id))?.status === 'failed' ? true : undefined), 30_000, 'the job to fail');
        // Each ran once: the same file would be stopped by the same limit again.
        expect(calls.toSorted()).toEqual(['huge.epub#1', 'slow.tex#1']);
        const memory = 'converter reader: "huge.epub" needed more than 128 MB of memory and was stopped (KNOWLEDGE_WORKER_RSS_MB)';
        const time = 'converter reader: "slow.tex" did not finish within 0.5 s and was stopped (the conversion time limit, KNOWLEDGE_WORKER_TIMEOUT_SECONDS)';
        expect(failures.toSorted()).toEqual([`huge.epub: ${memory}`, `slow.tex: ${time}`]);
        expect(await store.get(huge)).toMatchObject({ status: 'failed', attempts: 1, crashes: 0, lastError: memory });
        expect(await store.get(slow)).toMatchObject({ status: 'failed', attempts: 1, crashes: 0, lastError: time });
      } finally {
        await worker.stop();
        await pool.close();
      }
    });

    it('counts attempts whose runtime died (a lease that ran out while running), and fails a job on its second instead of running it again', async () => {
      const once = await store.enqueue({ kind: 'crashy', payload: { name: 'once' } });
      // A runtime claims it and dies: the lease runs out with the job still running.
      expect(await store.claim('dead-1', ['crashy'], 50)).toMatchObject({ id: once, attempts: 1, crashes: 0 });
      await sleep(80);
      const worker = new JobWorker({ store, log: silentLogger, pollMs: 20 });
      const ran: string[] = [];
      const failures: string[] = [];
      worker.register('crashy', {
        run: async (job) => {
          ran.push(`${String(job.payload.name)}#${job.attempts}/${job.crashes}`);
        },
        failed: async (job, message) => {
          failures.push(`${String(job.payload.name)}: ${message}`);
        },
      });
      // Died once: the next runtime finishes it.
      worker.start();
      await eventually(async () => ((await store.get(once)) === undefined ? true : undefined), 5000, 'the job killed once to finish');
      await worker.stop();
      expect(ran).toEqual(['once#2/1']);

      const twice = await store.enqueue({ kind: 'crashy', payload: { name: 'twice' } });
      for (const owner of ['dead-1', 'dead-2']) {
        expect(await store.claim(owner, ['crashy'], 50)).toMatchObject({ id: twice });
        await sleep(80);
      }
      const third = new JobWorker({ store, log: silentLogger, pollMs: 20 });
      third.register('crashy', worker['handlers'].get('crashy')!);
      third.start();
      await eventually(async () => ((await store.get(twice))?.status === 'failed' ? true : undefined), 5000, 'the poison job to fail');
      await third.stop();
      // Never run a third time; failed with a message that says why.
      expect(ran).toEqual(['once#2/1']);
      expect(failures).toEqual([`twice: ${crashedMessage(2)}`]);
      expect(crashedMessage(2)).toBe('The runtime stopped twice while processing this job (it was killed, or ran out of memory), so it was not tried again');
      expect(await store.get(twice)).toMatchObject({ status: 'failed', attempts: 3, crashes: 2, lastError: crashedMessage(2), data: null });

      // A retry (the job failed and was queued again) or a hand-back at shutdown is no crash.
      const calm = await store.enqueue({ kind: 'calm', payload: {} });
      await store.claim('a', ['calm'], 60_000).then((job) => store.retry(job!.id, 'a', 'try later', Date.now()));
      await store.claim('a', ['calm'], 60_000).then((job) => store.release(job!.id, 'a'));
      expect(await store.claim('a', ['calm'], 60_000)).toMatchObject({ id: calm, attempts: 2, crashes: 0 });
      await store.complete(calm, 'a');
    });

    it('stopping a worker hands its running job back, without counting the attempt', async () => {
      const worker = new JobWorker({ store, log: silentLogger, pollMs: 20 });
      let started = false;
      worker.register('slow', {
        run: (_job, signal) =>
          new Promise((_resolve, reject) => {
            started = true;
            signal.addEventListener('abort', () => reject(signal.reason as Error), { once: true });
          }),
      });
      worker.start();
      const id = await store.enqueue({ kind: 'slow', payload: {} });
      await eventually(() => (started ? true : undefined), 5000, 'the job to start');
      await worker.stop(2000);
      expect(await store.get(id)).toMatchObject({ status: 'queued', attempts: 0 });
      const next = await store.claim('someone-else', ['slow'], 1000);
      expect(next).toMatchObject({ id, attempts: 1 });
      await store.complete(id, 'someone-else');
    });

    it('a large input: in a file beside a SQLite database, in the row on PostgreSQL, claimed with its bytes by another runtime', async () => {
      const data = Uint8Array.from({ length: FILE_DATA_MIN_BYTES + 10 }, (_, i) => (i * 31) % 256);
      const id = await store.withData(data, (staged) => store.enqueue({ kind: 'large-input', payload: {}, data: staged }));
      const [row] = await db.query<{ data: Uint8Array | null; data_file: string | null }>('SELECT data, data_file FROM svc_jobs WHERE id = $1', [id]);
      // SQLite: the synchronous driver would hold the event loop while writing megabytes into
      // the row. PostgreSQL: any host may take the job, so its input stays in the database.
      const sqlite = kind.kind === 'sqlite';
      const file = /^\d+-[0-9a-f-]{36}\.job$/;
      expect({ inRow: row!.data !== null && Buffer.from(row!.data).equals(data), inFile: file.test(row!.data_file ?? '') }).toEqual({ inRow: !sqlite, inFile: sqlite });
      const elsewhere = new JobStore(other);
      const job = await elsewhere.claim('b', ['large-input'], 10_000);
      expect(job?.id).toBe(id);
      expect(Buffer.from(job!.data!).equals(data)).toBe(true);
      expect(await elsewhere.complete(id, 'b')).toBe(true);
    });
  });
}
