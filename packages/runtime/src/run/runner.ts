/**
 * @module run/runner
 * Runs agents, teams and workflows: creates the session and run records, streams events,
 * honours cancellation (explicit, or the client going away), and always persists what
 * happened, including a run's partial output when it is cancelled or fails.
 */
import { randomUUID } from 'node:crypto';
import { RuntimeError } from '../errors.js';
import type { ChatMessage, Model, Usage } from '../model/model.js';
import { ModelError } from '../model/model.js';
import type { Logger } from '../util/logger.js';
import { RUN_EVENTS_CHANNEL, RunEventStore, type StoredRunEvent } from '../sessions/run-event-store.js';
import { RunLeaseStore, type RunLease } from '../sessions/run-lease-store.js';
import type { SessionStore } from '../sessions/session-store.js';
import { emptyMetrics, epochSeconds, isWaitingForDecision, type RunRecord, type RunStatus, type SessionType, type ToolExecution } from '../sessions/types.js';
import { AsyncQueue } from './async-queue.js';
import { RunFailure, type ExecutionContext, type Runnable } from './execution.js';
import { runScope } from '../auth/user-scope.js';

export type RunEvent = { event: string; created_at: number; run_id: string; session_id: string } & Record<string, unknown>;

export interface StartRunInput {
  component: Runnable;
  message: string;
  sessionId?: string | undefined;
  userId?: string | undefined;
  /** Started by an admin: its data reads are not confined to its user (see auth/user-scope.ts). */
  unconfined?: boolean | undefined;
  /** Digest of the MCP client session and request id, so a cancel notification can find the run. */
  mcpRequest?: string | undefined;
}

export interface ContinueRunInput {
  component: Runnable;
  runId: string;
  /** When given, the run must belong to this session. */
  sessionId?: string | undefined;
  /** When given (an authenticated caller), the run must be this user's. */
  userId?: string | undefined;
  /** A decision for every tool call the run waits on. */
  decisions: { tool_call_id: string; confirmed: boolean }[];
  /** Continued by an admin: as on start. */
  unconfined?: boolean | undefined;
  mcpRequest?: string | undefined;
}

/** What a cancel request found and did. */
export interface CancelOutcome {
  /** True when this request ended the run as CANCELLED. */
  cancelled: boolean;
  /** The run's status after the request. */
  status: RunStatus;
  /** True when the run had already ended before the request (nothing to cancel). */
  alreadyFinished: boolean;
}

/** Bus channel: "cancel run <id>", acted on by whichever runtime executes it. */
const CANCEL_CHANNEL = 'svc_run_cancel';

const FINAL: ReadonlySet<RunStatus> = new Set(['COMPLETED', 'ERROR', 'CANCELLED']);

export interface StartedRun {
  runId: string;
  sessionId: string;
  /** Every event of the run, ending after the final (Completed/Error/Cancelled) one. */
  events: AsyncIterable<RunEvent>;
  /** Resolves with the stored run once it has ended and been saved; never rejects. */
  done: Promise<RunRecord>;
  cancel(reason?: string): void;
}

const LIFECYCLE: Record<SessionType, { started: string; completed: string; error: string; cancelled: string; prefix: string }> = {
  agent: { started: 'RunStarted', completed: 'RunCompleted', error: 'RunError', cancelled: 'RunCancelled', prefix: '' },
  team: { started: 'TeamRunStarted', completed: 'TeamRunCompleted', error: 'TeamRunError', cancelled: 'TeamRunCancelled', prefix: 'Team' },
  workflow: { started: 'WorkflowStarted', completed: 'WorkflowCompleted', error: 'WorkflowError', cancelled: 'WorkflowCancelled', prefix: '' },
};

export function identityFields(component: Runnable): Record<string, unknown> {
  const name = component.name ?? component.id;
  if (component.kind === 'agent') return { agent_id: component.id, agent_name: name };
  if (component.kind === 'team') return { team_id: component.id, team_name: name };
  return { workflow_id: component.id, workflow_name: name };
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
}

interface ActiveRun {
  cancel: (reason: string) => void;
  done: Promise<RunRecord>;
  /** The text streamed so far, and how much of it is stored. */
  streamed: () => string;
  storedLength: number;
  /** Events streamed but not stored yet (consecutive text deltas merged). */
  unstored: StoredRunEvent[];
}

/** Text deltas, merged when stored so a long answer is a few rows rather than one per token. */
const CONTENT_EVENTS = new Set(['RunContent', 'TeamRunContent']);

export class Runner {
  private readonly active = new Map<string, ActiveRun>();
  private readonly store: SessionStore;
  private readonly leases: RunLeaseStore;
  readonly events: RunEventStore;
  /** This process, as the owner of the runs it executes. */
  readonly owner = randomUUID();
  private node: string | null = null;
  private readonly leaseMs: number;
  private readonly progressIntervalMs: number;
  private readonly eventsIntervalMs: number;
  private progressDueAt = 0;
  private progressTimer: NodeJS.Timeout | undefined;
  private sweepTimer: NodeJS.Timeout | undefined;
  private renewAt = 0;
  private chores: Promise<void> = Promise.resolve();
  private readonly defaultModel: Model | undefined;
  private readonly log: Logger;
  private readonly historyRuns: number;
  private readonly userIsolation: boolean;
  private shuttingDown = false;

  constructor(options: RunnerOptions) {
    this.store = options.store;
    this.defaultModel = options.defaultModel;
    this.log = options.log;
    this.historyRuns = options.historyRuns ?? 10;
    this.userIsolation = options.userIsolation === true;
    this.leases = new RunLeaseStore(options.store.db);
    this.leaseMs = options.leaseMs ?? 30_000;
    this.progressIntervalMs = options.progressIntervalMs ?? 1000;
    this.eventsIntervalMs = Math.min(options.eventsIntervalMs ?? 250, this.progressIntervalMs);
    this.events = new RunEventStore(options.store.db);
  }

  private lease(mcpRequest?: string): RunLease {
    return { owner: this.owner, node: this.node, expiresMs: Date.now() + this.leaseMs, mcpRequest: mcpRequest ?? null };
  }

  /**
   * Checks the session and records the run, then executes it in the background. Errors about
   * the request (a session owned by another component or user) reject here, before any event.
   */
  async start(input: StartRunInput): Promise<StartedRun> {
    if (this.shuttingDown) throw new RuntimeError('SERVICE_UNAVAILABLE', 'The runtime is shutting down');
    const { component } = input;
    const sessionId = input.sessionId?.trim() || randomUUID();
    const userId = input.userId?.trim() || undefined;
    await this.store.ensureSession({
      session_id: sessionId,
      session_type: component.kind,
      component_id: component.id,
      user_id: userId ?? null,
      session_name: input.message.slice(0, 80),
    });
    const history = await this.history(sessionId);

    const runId = randomUUID();
    const startedMs = Date.now();
    const record: RunRecord = {
      run_id: runId,
      session_id: sessionId,
      session_type: component.kind,
      component_id: component.id,
      user_id: userId ?? null,
      status: 'RUNNING',
      input: { message: input.message },
      content: null,
      messages: [{ role: 'user', content: input.message }],
      tools: [],
      metrics: emptyMetrics(),
      error: null,
      started_ms: startedMs,
      created_at: epochSeconds(startedMs),
      updated_at: epochSeconds(startedMs),
    };
    await this.store.saveRun(record, this.lease(input.mcpRequest));
    return this.launch(component, record, {
      message: input.message,
      history,
      userId,
      unconfined: input.unconfined === true,
      started: LIFECYCLE[component.kind].started,
      lastSeq: 0,
    });
  }

  /**
   * Continues a paused run with a person's decision on each tool call it waits for. The run
   * keeps its id and session; its events start with `RunContinued`.
   */
  async continue(input: ContinueRunInput): Promise<StartedRun> {
    if (this.shuttingDown) throw new RuntimeError('SERVICE_UNAVAILABLE', 'The runtime is shutting down');
    const { component } = input;
    const record = await this.store.getRun(input.runId);
    const userId = input.userId?.trim() || undefined;
    if (
      !record ||
      record.session_type !== component.kind ||
      record.component_id !== component.id ||
      (input.sessionId && record.session_id !== input.sessionId)
    ) {
      throw new RuntimeError('NOT_FOUND', 'Run not found');
    }
    if (userId && record.user_id && record.user_id !== userId) throw new RuntimeError('FORBIDDEN', 'This run belongs to another user');
    if (record.status !== 'PAUSED') throw new RuntimeError('CONFLICT', notPausedMessage(record.status));
    if (!component.supportsResume) throw new RuntimeError('CONFLICT', `This ${component.kind} cannot continue paused runs`);

    const waiting = record.tools.filter(isWaitingForDecision);
    const decisions = new Map<string, boolean>();
    for (const d of input.decisions) {
      if (!waiting.some((t) => t.tool_call_id === d.tool_call_id)) {
        throw new RuntimeError('BAD_REQUEST', `Tool call ${d.tool_call_id} is not waiting for a decision in run ${record.run_id}`);
      }
      decisions.set(d.tool_call_id, d.confirmed);
    }
    const undecided = waiting.filter((t) => !decisions.has(t.tool_call_id));
    if (undecided.length) {
      throw new RuntimeError(
        'BAD_REQUEST',
        `Decide on every waiting tool call (confirmed true or false): ${undecided.map((t) => `${t.tool_call_id} (${t.tool_name})`).join(', ')}`,
      );
    }
    // Only one caller may continue a run, also across runtime instances sharing the database.
    if (!(await this.store.transitionRun(record.run_id, 'PAUSED', 'RUNNING', this.lease(input.mcpRequest)))) {
      throw new RuntimeError('CONFLICT', 'run is already running');
    }
    record.status = 'RUNNING';
    const history = await this.history(record.session_id);
    const lastSeq = await this.events.lastSeq(record.run_id);
    return this.launch(component, record, {
      lastSeq,
      message: record.input.message,
      history,
      userId: record.user_id ?? undefined,
      unconfined: input.unconfined === true,
      started: `${LIFECYCLE[component.kind].prefix}RunContinued`,
      resume: { messages: record.messages, decisions },
    });
  }

  /** Executes a recorded run in the background, streaming its events and saving its end. */
  private launch(
    component: Runnable,
    record: RunRecord,
    options: {
      message: string;
      history: ChatMessage[];
      userId: string | undefined;
      /** Started or continued by an admin, whose runs read every user's data. */
      unconfined: boolean;
      started: string;
      resume?: ExecutionContext['resume'];
      /** Events of this run stored before (a continued run goes on numbering them). */
      lastSeq: number;
    },
  ): StartedRun {
    const runId = record.run_id;
    const sessionId = record.session_id;
    const startedMs = Date.now();
    const previousDuration = record.metrics.duration;
    const queue = new AsyncQueue<RunEvent>();
    const controller = new AbortController();
    const names = LIFECYCLE[component.kind];
    const base = () => ({ created_at: epochSeconds(), run_id: runId, session_id: sessionId });
    const identity = identityFields(component);
    let streamed = '';
    let seq = options.lastSeq;
    const unstored: StoredRunEvent[] = [];

    const send = (event: string, fields: Record<string, unknown> = {}) => {
      const payload: RunEvent = { event, ...base(), ...identity, ...fields };
      queue.push(payload);
      const last = unstored.at(-1);
      if (last && CONTENT_EVENTS.has(event) && last.event === event && typeof payload.content === 'string') {
        const merged = JSON.parse(last.data) as RunEvent;
        if (typeof merged.content === 'string') {
          merged.content += payload.content;
          last.data = JSON.stringify(merged);
          return;
        }
      }
      unstored.push({ seq: ++seq, event, data: JSON.stringify(payload) });
    };
    const context: ExecutionContext = {
      runId,
      sessionId,
      userId: options.userId,
      // The run acts for its user, so its knowledge searches see what that user may (user-scope.ts).
      scopedUserId: options.unconfined ? undefined : runScope(options.userId, this.userIsolation),
      message: options.message,
      history: options.history,
      signal: controller.signal,
      defaultModel: this.defaultModel,
      emit: (name, fields) => send(`${names.prefix}${name}`, fields),
      emitRaw: (event, fields) => send(event, fields),
      // A continued run updates the entry of a call that waited, rather than adding another.
      recordTool: (execution: ToolExecution) => {
        const index = record.tools.findIndex((t) => t.tool_call_id === execution.tool_call_id && t.by === execution.by);
        if (index >= 0) record.tools[index] = execution;
        else record.tools.push(execution);
      },
      recordMessages: (messages: ChatMessage[]) => (record.messages = messages),
      recordContent: (text: string) => (streamed += text),
      addUsage: (usage: Usage) => {
        record.metrics.input_tokens += usage.inputTokens;
        record.metrics.output_tokens += usage.outputTokens;
        record.metrics.total_tokens += usage.totalTokens;
      },
      ...(options.resume ? { resume: options.resume } : {}),
    };

    const finish = async (status: RunStatus, content: string | null, error: string | null): Promise<RunRecord> => {
      record.status = status;
      record.content = content;
      record.error = error;
      record.metrics.duration = previousDuration + (Date.now() - startedMs) / 1000;
      record.updated_at = epochSeconds();
      try {
        await this.store.saveRun(record);
      } catch (e) {
        this.log.error(`could not save run ${runId}`, e);
      }
      return record;
    };

    send(options.started, { ...describeModel(component, this.defaultModel) });
    const done = (async (): Promise<RunRecord> => {
      try {
        const result = await component.execute(context);
        if (controller.signal.aborted) throw controller.signal.reason;
        if (result.paused) {
          const saved = await finish('PAUSED', result.content || null, null);
          send(`${names.prefix}RunPaused`, { content: saved.content, tools: result.paused.tools });
          return saved;
        }
        const saved = await finish('COMPLETED', result.content, null);
        send(names.completed, { content: result.content, content_type: 'str', metrics: saved.metrics });
        return saved;
      } catch (error) {
        if (controller.signal.aborted) {
          const reason = String(controller.signal.reason ?? 'cancelled');
          const saved = await finish('CANCELLED', streamed || null, null);
          send(names.cancelled, { reason, content: saved.content });
          return saved;
        }
        const { message, type } = describeFailure(error);
        if (type === 'InternalError') this.log.error(`run ${runId} of ${component.kind} ${component.id} failed`, error);
        const saved = await finish('ERROR', streamed || null, message);
        const errorFields = component.kind === 'workflow' ? { error: message } : { content: message, error_type: type };
        send(names.error, errorFields);
        return saved;
      } finally {
        // The last events (the final one included) are stored before the run counts as ended.
        await this.storeEvents(runId, unstored).catch((e: unknown) => this.log.warn(`could not store the events of run ${runId}: ${describeError(e)}`));
        this.active.delete(runId);
        if (this.active.size === 0) this.stopProgressTimer();
        queue.close();
      }
    })();

    const cancel = (reason = 'cancelled') => {
      if (!controller.signal.aborted) controller.abort(reason);
    };
    this.active.set(runId, { cancel, done, streamed: () => streamed, storedLength: 0, unstored });
    this.startProgressTimer();
    return { runId, sessionId, events: queue, done, cancel };
  }

  /**
   * Cancels a run wherever it executes: here at once; in another runtime sharing the database
   * through a request its owner reads within a second (waiting up to `waitMs` for it to end); a
   * run whose process died, or one paused for a decision, is ended here. Partial output is kept.
   */
  async cancel(runId: string, reason = 'cancelled by request', waitMs = 10_000): Promise<CancelOutcome> {
    const local = this.active.get(runId);
    if (local) {
      local.cancel(reason);
      const ended = await local.done;
      return { cancelled: ended.status === 'CANCELLED', status: ended.status, alreadyFinished: false };
    }
    const deadline = Date.now() + waitMs;
    let requested = false;
    for (;;) {
      const record = await this.store.getRun(runId);
      if (!record) throw new RuntimeError('NOT_FOUND', 'Run not found');
      if (FINAL.has(record.status)) {
        return { cancelled: requested && record.status === 'CANCELLED', status: record.status, alreadyFinished: !requested };
      }
      if (record.status === 'PAUSED') {
        if (await this.store.transitionRun(runId, 'PAUSED', 'CANCELLED')) return { cancelled: true, status: 'CANCELLED', alreadyFinished: false };
        continue; // continued or cancelled meanwhile: look again
      }
      if (await this.leases.finishOrphan(runId, 'CANCELLED', null)) return { cancelled: true, status: 'CANCELLED', alreadyFinished: false };
      if (!requested) {
        requested = await this.leases.requestCancel(runId);
        // The owner also polls for the request; the message only makes it act at once.
        if (requested) await this.store.db.notifications().publish(CANCEL_CHANNEL, runId).catch(() => undefined);
      }
      if (Date.now() >= deadline) return { cancelled: false, status: record.status, alreadyFinished: false };
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  /** Cancels a run of this process only, without waiting; false when it is not active here. */
  cancelLocal(runId: string, reason = 'cancelled by request'): boolean {
    const run = this.active.get(runId);
    if (!run) return false;
    run.cancel(reason);
    return true;
  }

  /**
   * Finalises runs left behind by dead processes now, and again every half lease while this
   * runtime lives. Called when the runtime starts (after migrations).
   */
  startMaintenance(): void {
    if (this.sweepTimer || this.shuttingDown) return;
    this.store.db.notifications().subscribe(CANCEL_CHANNEL, (runId) => void this.cancelLocal(runId, 'cancelled by request'));
    this.queueChore(() => this.sweep());
    this.sweepTimer = setInterval(() => this.queueChore(() => this.sweep()), Math.max(50, this.leaseMs / 2));
    this.sweepTimer.unref();
  }

  /**
   * Names the host and port this process serves on. Runs an earlier process left under the same
   * name are finalised at once: that process has exited, since this one holds its port now.
   */
  async adoptNode(node: string): Promise<void> {
    this.node = node;
    this.queueChore(() => this.sweep());
    await this.chores;
  }

  /** Runs one piece of background bookkeeping after the previous one, never two at once. */
  private queueChore(chore: () => Promise<void>): void {
    this.chores = this.chores.then(chore).catch((error: unknown) => this.log.warn(`run bookkeeping failed: ${describeError(error)}`));
  }

  private async sweep(): Promise<void> {
    const interrupted = await this.leases.interruptOrphans({ node: this.node, self: this.owner });
    if (interrupted.length) this.log.warn(`marked ${interrupted.length} interrupted run(s) as ERROR: ${interrupted.join(', ')}`);
  }

  private startProgressTimer(): void {
    if (this.progressTimer) return;
    this.renewAt = Date.now() + this.leaseMs / 3;
    this.progressDueAt = Date.now() + this.progressIntervalMs;
    this.progressTimer = setInterval(() => this.queueChore(() => this.tick()), this.eventsIntervalMs);
    this.progressTimer.unref();
  }

  /** Stores new events often (followers wait on them), and the rest of the progress less often. */
  private async tick(): Promise<void> {
    for (const [runId, run] of this.active) await this.storeEvents(runId, run.unstored);
    if (Date.now() < this.progressDueAt) return;
    this.progressDueAt = Date.now() + this.progressIntervalMs;
    await this.progress();
  }

  /** Stores (and empties) a run's unstored events, then tells followers on every runtime. */
  private async storeEvents(runId: string, unstored: StoredRunEvent[]): Promise<void> {
    if (unstored.length === 0) return;
    const batch = unstored.splice(0, unstored.length);
    try {
      await this.events.append(runId, batch);
    } catch (error) {
      unstored.unshift(...batch);
      throw error;
    }
    await this.store.db.notifications().publish(RUN_EVENTS_CHANNEL, runId).catch(() => undefined);
  }

  private stopProgressTimer(): void {
    clearInterval(this.progressTimer);
    this.progressTimer = undefined;
  }

  /** Stores new partial output, renews leases when due, and applies cancel requests from elsewhere. */
  private async progress(): Promise<void> {
    if (this.active.size === 0) return;
    for (const [runId, run] of this.active) {
      const text = run.streamed();
      if (text.length === run.storedLength) continue;
      await this.leases.saveProgress(runId, this.owner, text);
      run.storedLength = text.length;
    }
    if (Date.now() >= this.renewAt) {
      this.renewAt = Date.now() + this.leaseMs / 3;
      await this.leases.renew(this.owner, Date.now() + this.leaseMs);
    }
    for (const runId of await this.leases.cancelRequests(this.owner)) this.cancelLocal(runId, 'cancelled by request');
  }

  /** Cancels the run an MCP request started, wherever it executes; no wait. */
  async cancelMcpRequest(digest: string, reason: string): Promise<void> {
    const runId = await this.leases.findByMcpRequest(digest);
    if (!runId || this.cancelLocal(runId, reason)) return;
    if (await this.leases.requestCancel(runId)) await this.store.db.notifications().publish(CANCEL_CHANNEL, runId).catch(() => undefined);
  }

  /** Ids of the runs in progress in this process. */
  activeRunIds(): string[] {
    return [...this.active.keys()];
  }

  /** Resolves with the saved run once an active run ends; undefined when it is not active here. */
  async waitFor(runId: string): Promise<RunRecord | undefined> {
    return this.active.get(runId)?.done;
  }

  /**
   * Cancels every active run and waits until each has been saved, for at most `boundMs`: a run
   * that does not stop by then (a tool ignoring cancellation) is recorded as interrupted, with
   * the output stored so far, rather than left RUNNING or waited for.
   */
  async shutdown(boundMs = Number.POSITIVE_INFINITY): Promise<void> {
    this.shuttingDown = true;
    clearInterval(this.sweepTimer);
    this.sweepTimer = undefined;
    const runs = [...this.active.entries()];
    for (const [, run] of runs) run.cancel('runtime shutting down');
    let timer: NodeJS.Timeout | undefined;
    const bound = Number.isFinite(boundMs) ? new Promise<void>((r) => (timer = setTimeout(r, boundMs))) : undefined;
    const all = Promise.all(runs.map(([, r]) => r.done)).then(() => undefined);
    await (bound ? Promise.race([all, bound]) : all);
    clearTimeout(timer);
    this.stopProgressTimer();
    await this.chores;
    const stuck = runs.map(([id]) => id).filter((id) => this.active.has(id));
    if (stuck.length > 0) {
      this.log.warn(`shutdown: ${stuck.length} run(s) did not stop in time; recording them as interrupted: ${stuck.join(', ')}`);
      await this.leases.interruptOwned(this.owner, stuck).catch((e: unknown) => this.log.error('could not record interrupted runs', e));
    }
  }

  /** The conversation so far: completed runs only, so a failed turn does not confuse the model. */
  private async history(sessionId: string): Promise<ChatMessage[]> {
    const runs = await this.store.recentRuns(sessionId, 'COMPLETED', this.historyRuns);
    return runs.flatMap((r) => r.messages);
  }
}

/** The reference's wording for each status that cannot be continued. */
function notPausedMessage(status: RunStatus): string {
  switch (status) {
    case 'RUNNING':
    case 'PENDING':
      return 'run is already running';
    case 'COMPLETED':
      return 'run is already completed';
    case 'ERROR':
      return 'run has errored';
    case 'CANCELLED':
      return 'run is already cancelled';
    default:
      return `run is not paused (status=${status})`;
  }
}

function describeModel(component: Runnable, fallback: Model | undefined): Record<string, unknown> {
  const own = (component as { model?: Model }).model;
  const model = own ?? (component.kind === 'workflow' ? undefined : fallback);
  return model ? { model: model.id, model_provider: model.provider } : {};
}

function describeError(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function describeFailure(error: unknown): { message: string; type: string } {
  if (error instanceof RunFailure) return { message: error.message, type: error.errorType };
  if (ModelError.isInstance(error)) return { message: `Model error (${error.provider}): ${error.message}`, type: error.code };
  if (RuntimeError.isInstance(error) && error.status < 500) return { message: error.message, type: error.code };
  // Anything else is a bug or an unexpected failure: say so without leaking internals.
  return { message: 'The run failed because of an internal error', type: 'InternalError' };
}
