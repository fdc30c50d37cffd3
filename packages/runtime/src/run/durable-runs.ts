/**
 * @module run/durable-runs
 * Runs that outlive the request (docs/ARCHITECTURE.md, "Durable runs"). A background run, or a
 * message queued behind a session's run in progress, is recorded PENDING together with a job
 * (`run:<type>:<id>`, in the job engine every runtime shares) in one transaction; whichever
 * runtime claims the job starts the run when it is first in its session's line, and the job
 * waits (deferred, not counted as an attempt) while a run before it is in progress. The
 * per-session policy (`multitask_strategy`) decides what a message for a busy session does:
 * `reject` (409), `enqueue` (after the runs in progress, in order), `interrupt` (cancel them,
 * wherever they run, then run).
 *
 * A runtime that dies while executing a run is not resumed: the model call it was streaming
 * cannot be continued halfway, and running it again would stream a second answer after the
 * first one's events. The run lease's sweep marks it ERROR "interrupted" with its stored output
 * (run/chores.ts); the job, taken over by a survivor, finds it no longer PENDING and ends.
 * A run whose job was claimed but not yet started when its runtime died is started by the
 * survivor. The job's payload keeps who the run acts for (run/stored-caller.ts, never the
 * credential), so its tool sources see the same caller wherever it starts.
 */
import type { JobHandler, JobWorker } from '../jobs/job-worker.js';
import type { Job } from '../jobs/job-store.js';
import { RuntimeError } from '../errors.js';
import type { SessionStore } from '../sessions/session-store.js';
import type { RunRecord } from '../sessions/types.js';
import type { Logger } from '../util/logger.js';
import type { Runnable } from './execution.js';
import { RUN_QUEUE_CHANNEL } from './run-queue.js';
import { SessionBusyError } from './run-records.js';
import { runTenant } from './run-spending.js';
import { storeCaller, storedCaller } from './stored-caller.js';
import type { Runner, StartedRun, StartRunInput } from './runner.js';

export type MultitaskStrategy = 'reject' | 'enqueue' | 'interrupt';

export interface SubmitInput extends StartRunInput {
  /** Answer at once; the run executes on any runtime through the job engine. */
  background?: boolean | undefined;
  /** What to do when the session has a run in progress; default reject. */
  strategy?: MultitaskStrategy | undefined;
}

/** A run started here and streaming, or one recorded PENDING for a job to start. */
export type Submitted = { kind: 'started'; run: StartedRun } | { kind: 'queued'; record: RunRecord };

/** How long a queued run's job waits before looking again (a bus message wakes it sooner). */
const WAIT_MS = 250;
/** How long a job refused by a runtime that is shutting down waits before another may take it. */
const SHUTDOWN_RETRY_MS = 1000;

export function runJobKind(component: Runnable): string {
  return `run:${component.kind}:${component.id}`;
}

export class DurableRuns {
  constructor(
    private readonly options: {
      runner: Runner;
      sessions: SessionStore;
      /** The worker that runs queued runs' jobs (its own, so ingestion does not hold runs back). */
      jobs: JobWorker;
      log: Logger;
    },
  ) {}

  /** Registers a job handler per runnable component. */
  register(components: readonly Runnable[]): void {
    for (const component of components) this.options.jobs.register(runJobKind(component), this.handler(component));
  }

  /** Starts the worker (once the database is migrated), woken whenever a session's line moves. */
  start(): void {
    const { jobs, sessions } = this.options;
    sessions.db.notifications().subscribe(RUN_QUEUE_CHANNEL, () => jobs.wake());
    jobs.start();
  }

  /** Starts, queues or refuses a run, as `background` and the session's policy say. */
  async submit(input: SubmitInput): Promise<Submitted> {
    const { runner } = this.options;
    const strategy = input.strategy ?? 'reject';
    if (strategy === 'interrupt' && input.sessionId) await this.interrupt(input);
    if (!input.background) {
      try {
        return { kind: 'started', run: await runner.start(input) };
      } catch (error) {
        if (!(error instanceof SessionBusyError) || strategy !== 'enqueue') throw error;
      }
    } else if (strategy !== 'enqueue' && input.sessionId) {
      const busy = await runner.queue.runsInProgress(input.sessionId);
      if (busy.length > 0) throw new SessionBusyError(input.sessionId, busy);
    }
    const record = await runner.enqueue(input, async (tx, run) => {
      // The caller goes with the job, for the tool sources of the runtime that starts the run, and
      // the tenant its budgets count against.
      const tenantId = runTenant(input);
      const payload = {
        run_id: run.run_id,
        unconfined: input.unconfined === true,
        ...(input.principal ? { caller: storeCaller(input.principal) } : {}),
        ...(tenantId ? { tenant_id: tenantId } : {}),
      };
      await this.options.jobs.store.enqueue({ kind: runJobKind(input.component), ref: run.run_id, payload, maxAttempts: 3 }, tx);
    });
    this.options.jobs.wake();
    return { kind: 'queued', record };
  }

  /** Cancels the session's runs in progress (running anywhere, or queued), after checking it is the caller's. */
  private async interrupt(input: SubmitInput): Promise<void> {
    const { runner } = this.options;
    const { sessionId } = await runner.openSession(input);
    for (const run of await runner.queue.runsInProgress(sessionId)) {
      const outcome = await runner.cancel(run.run_id, 'interrupted by a new message');
      if (!outcome.cancelled && !outcome.alreadyFinished && outcome.status === 'RUNNING') {
        throw new RuntimeError('CONFLICT', `Run ${run.run_id} did not stop in time to be interrupted; try again`);
      }
    }
  }

  private handler(component: Runnable): JobHandler {
    const { runner, sessions, log } = this.options;
    return {
      run: async (job: Job) => {
        const runId = String(job.payload.run_id);
        let started: Awaited<ReturnType<Runner['startQueued']>>;
        try {
          const tenantId = typeof job.payload.tenant_id === 'string' ? job.payload.tenant_id : undefined;
          started = await runner.startQueued(component, runId, job.payload.unconfined === true, { tenantId, principal: storedCaller(job.payload.caller) });
        } catch (error) {
          // This runtime is shutting down: the job goes back, uncounted, for a runtime that is not.
          if (RuntimeError.isInstance(error) && error.code === 'SERVICE_UNAVAILABLE') return { retryAfterMs: SHUTDOWN_RETRY_MS };
          throw error;
        }
        if (started === 'wait') return { retryAfterMs: WAIT_MS };
        // Not queued any more: cancelled, or started by a runtime that died (the lease sweep ends it).
        if (started === 'gone') return;
        await started.done;
      },
      failed: async (job: Job, message: string) => {
        const runId = String(job.payload.run_id);
        const run = await sessions.getRun(runId);
        if (run?.status !== 'PENDING') return;
        log.warn(`queued run ${runId} could not be started: ${message}`);
        await sessions.saveRun({ ...run, status: 'ERROR', error: `The run could not be started: ${message}` });
      },
    };
  }
}
