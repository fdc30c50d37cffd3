/**
 * @module run/runner-types
 * What the runner takes and gives: a run to start or continue, the run it started, and its
 * options.
 */
import type { Budgets } from '../budgets/budgets.js';
import type { BudgetSubject } from '../budgets/types.js';
import type { ChatMessage, Model } from '../model/model.js';
import type { RunCaller } from '../components/caller.js';
import type { Tracer } from '../components/tracer.js';
import type { RunRecord } from '../sessions/types.js';
import type { SessionStore } from '../sessions/session-store.js';
import type { Logger } from '../util/logger.js';
import type { ExecutionContext, Runnable } from './execution.js';
import type { RunEvent } from './run-events.js';
import type { ContinueRequest } from './run-records.js';

export interface StartRunInput {
  component: Runnable;
  message: string;
  sessionId?: string | undefined;
  userId?: string | undefined;
  /** The caller's tenant (auth/tenancy.ts): its session must be that tenant's, and a new one is. */
  tenantId?: string | undefined;
  /** Started by an admin: its data reads are not confined to its user (see auth/user-scope.ts). */
  unconfined?: boolean | undefined;
  /** Who asked for the run (the request's principal), handed to tool sources as the run's caller. */
  principal?: RunCaller | undefined;
  /** Digest of the MCP client session and request id, so a cancel notification can find the run. */
  mcpRequest?: string | undefined;
  /** The new run's id, when the caller chose it (an idempotency key names it first). */
  runId?: string | undefined;
}

export interface ContinueRunInput extends ContinueRequest {
  runId: string;
  /** Continued by an admin: as on start. */
  unconfined?: boolean | undefined;
  principal?: RunCaller | undefined;
  mcpRequest?: string | undefined;
}

/** What a queued run's job kept: the tenant its budgets count against, the caller its tool sources see. */
export interface QueuedRunKept {
  tenantId?: string | undefined;
  principal?: RunCaller | undefined;
}

export interface StartedRun {
  runId: string;
  sessionId: string;
  /** Every event of the run, ending after the final (Completed/Error/Cancelled) one. */
  events: AsyncIterable<RunEvent>;
  /** Resolves with the stored run once it has ended and been saved; never rejects. */
  done: Promise<RunRecord>;
  cancel(reason?: string): void;
  /** An event's SSE id: the stored event it is (or, for a text delta, is part of). */
  eventId(event: RunEvent): string | undefined;
}

export interface RunnerOptions {
  store: SessionStore;
  defaultModel: Model | undefined;
  log: Logger;
  /** How many earlier completed runs of a session are replayed to the model. */
  historyRuns?: number;
  /**
   * How long a process's claim on a run lasts without renewal (default 30 s): after a crash,
   * other runtimes finalise its runs this long after its last renewal.
   */
  leaseMs?: number;
  /** How often partial output is stored and cancel requests are read (default 1 s). */
  progressIntervalMs?: number;
  /** How often streamed events are stored for clients following from elsewhere (default 250 ms). */
  eventsIntervalMs?: number;
  /** User isolation: a run with a user reaches only that user's data and shared data (its knowledge searches). */
  userIsolation?: boolean;
  /** Where runs record their spans (traces/); none: runs are not traced. */
  tracer?: Tracer;
  /** The budgets every run is admitted by and every model call checked against; none: no limits. */
  budgets?: Budgets | undefined;
}

/** How the runner executes a recorded run (Runner.launch). */
export interface LaunchOptions {
  message: string;
  history: ChatMessage[];
  userId: string | undefined;
  /** Started or continued by an admin, whose runs read every user's data. */
  unconfined: boolean;
  principal: RunCaller | undefined;
  started: string;
  resume?: ExecutionContext['resume'];
  /** Events of this run stored before (a continued run goes on numbering them). */
  lastSeq: number;
  /** Whom the run's model calls count against. */
  subject: BudgetSubject;
  /**
   * A new run's tenant (the caller's, its session's), which its knowledge searches are held to
   * (a tenant admin's too); a recorded run's is its record's.
   */
  tenantId?: string | undefined;
}
