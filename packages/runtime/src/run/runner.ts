/**
 * @module run/runner
 * Runs agents, teams and workflows: creates the session and run records, streams events,
 * honours cancellation (explicit, or the client going away), and always persists what
 * happened, including a run's partial output when it is cancelled or fails. Its parts: events
 * (run-events.ts), records (run-records.ts), progress and leases (chores.ts), cancelling a run
 * wherever it executes (cancellation.ts), and its budgets (run-spending.ts).
 */
import { randomUUID } from 'node:crypto';
import { timeOrderedId } from '../util/ids.js';
import { RuntimeError } from '../errors.js';
import { noTracer, type Tracer } from '../components/tracer.js';
import type { ChatMessage, Model, Usage } from '../model/model.js';
import type { Logger } from '../util/logger.js';
import { RunEventStore } from '../sessions/run-event-store.js';
import { RunLeaseStore, SHUTDOWN_MESSAGE } from '../sessions/run-lease-store.js';
import { RunQueueStore, type Alongside } from '../sessions/run-queue-store.js';
import type { SessionStore } from '../sessions/session-store.js';
import { epochSeconds, type RunRecord, type RunStatus, type ToolExecution } from '../sessions/types.js';
import { cancelRun, requestCancel, type CancelOutcome } from './cancellation.js';
import { RunChores, describeError, type ActiveRun } from './chores.js';
import type { ExecutionContext, Runnable } from './execution.js';
import { LIFECYCLE, RunEventLog, describeModel, identityFields } from './run-events.js';
import { checkContinue, describeFailure, newRunRecord, SessionBusyError } from './run-records.js';
import type { ContinueRunInput, LaunchOptions, QueuedRunKept, RunnerOptions, StartedRun, StartRunInput } from './runner-types.js';
import type { Admission, Budgets } from '../budgets/budgets.js';
import { budgetSubject, RunSpending, runTenant } from './run-spending.js';
import { cancelQueued, RUN_QUEUE_CHANNEL } from './run-queue.js';
import { runScope } from '../auth/user-scope.js';

export type { ContinueRunInput, RunnerOptions, StartedRun, StartRunInput } from './runner-types.js';

export class Runner {
  private readonly active = new Map<string, ActiveRun>();
  private readonly store: SessionStore;
  private readonly leases: RunLeaseStore;
  readonly queue: RunQueueStore;
  readonly events: RunEventStore;
  /** This process, as the owner of the runs it executes. */
  readonly owner = randomUUID();
  private readonly chores: RunChores;
  private readonly defaultModel: Model | undefined;
  private readonly log: Logger;
  private readonly historyRuns: number;
  private readonly userIsolation: boolean;
  private readonly tracer: Tracer;
  private readonly budgets: Budgets | undefined;
  private shuttingDown = false;

  constructor(options: RunnerOptions) {
    this.store = options.store;
    this.defaultModel = options.defaultModel;
    this.log = options.log;
    this.historyRuns = options.historyRuns ?? 10;
    this.userIsolation = options.userIsolation === true;
    this.tracer = options.tracer ?? noTracer;
    this.budgets = options.budgets;
    this.leases = new RunLeaseStore(options.store.db);
    this.events = new RunEventStore(options.store.db);
    this.queue = new RunQueueStore(options.store.db);
    const progressIntervalMs = options.progressIntervalMs ?? 1000;
    this.chores = new RunChores({
      store: this.store,
      leases: this.leases,
      events: this.events,
      log: this.log,
      owner: this.owner,
      active: this.active,
      leaseMs: options.leaseMs ?? 30_000,
      progressIntervalMs,
      eventsIntervalMs: Math.min(options.eventsIntervalMs ?? 250, progressIntervalMs),
      cancelLocal: (runId, reason) => this.cancelLocal(runId, reason),
    });
  }

  /**
   * Checks the session and records the run, then executes it in the background. Errors about
   * the request (a session owned by another component or user) reject here, before any event.
   */
  async start(input: StartRunInput): Promise<StartedRun> {
    const { record, admission } = await this.prepare(input);
    // One run at a time per session (sessions/run-queue-store.ts): a busy session refuses.
    const queued = await this.queue.admit(record, { lease: this.chores.lease(input.mcpRequest), queue: false }).catch(async (e: unknown) => {
      await admission.release();
      throw e;
    });
    if (!queued.admitted) {
      await admission.release();
      throw new SessionBusyError(record.session_id, queued.inProgress);
    }
    return this.launch(input.component, record, {
      subject: budgetSubject(input.component.id, record.user_id, runTenant(input)),
      tenantId: input.tenantId,
      history: await this.history(record.session_id),
      message: input.message,
      userId: record.user_id ?? undefined,
      unconfined: input.unconfined === true,
      principal: input.principal,
      started: LIFECYCLE[input.component.kind].started,
      lastSeq: 0,
    });
  }

  /**
   * Records a run PENDING, to be started by `startQueued` when it is first in its session's line;
   * `alongside` writes in the same transaction (the job that will start it).
   */
  async enqueue(input: StartRunInput, alongside: Alongside): Promise<RunRecord> {
    const { record, admission } = await this.prepare(input);
    record.status = 'PENDING';
    await this.queue.admit(record, { queue: true, alongside }).catch(async (e: unknown) => {
      await admission.release();
      throw e;
    });
    return record;
  }

  /**
   * The session (created on first use) and the record of a new run, not stored yet, admitted by
   * the budgets (budgets/: a refusal is BUDGET_EXCEEDED, 429), which count it from here.
   */
  private async prepare(input: StartRunInput): Promise<{ record: RunRecord; admission: Admission }> {
    if (this.shuttingDown) throw new RuntimeError('SERVICE_UNAVAILABLE', 'The runtime is shutting down');
    const { sessionId, userId } = await this.openSession(input);
    const admission = this.budgets ? await this.budgets.admit(budgetSubject(input.component.id, userId, runTenant(input))) : { release: async () => undefined };
    return { record: newRunRecord(input.component, sessionId, userId, input.message, input.runId), admission };
  }

  /**
   * The run's session, created on first use (a new id when none is given); refuses one that
   * belongs to another component or user.
   */
  async openSession(input: StartRunInput): Promise<{ sessionId: string; userId: string | undefined }> {
    const { component } = input;
    const sessionId = input.sessionId?.trim() || timeOrderedId();
    const userId = input.userId?.trim() || undefined;
    await this.store.ensureSession({
      session_id: sessionId,
      session_type: component.kind,
      component_id: component.id,
      user_id: userId ?? null,
      tenant_id: input.tenantId ?? null,
      session_name: input.message.slice(0, 80),
    });
    return { sessionId, userId };
  }

  /**
   * Starts a queued run here when it is first in its session's line: 'wait' when a run before it
   * is in progress, 'gone' when it is no longer queued (cancelled, or started elsewhere).
   */
  async startQueued(component: Runnable, runId: string, unconfined: boolean, kept: QueuedRunKept = {}): Promise<StartedRun | 'wait' | 'gone'> {
    const { tenantId, principal } = kept;
    if (this.shuttingDown) throw new RuntimeError('SERVICE_UNAVAILABLE', 'The runtime is shutting down');
    const outcome = await this.queue.startNext(runId, this.chores.lease());
    if (outcome !== 'started') return outcome;
    const record = await this.store.getRun(runId);
    if (!record) return 'gone';
    return this.launch(component, record, {
      message: record.input.message,
      history: await this.history(record.session_id),
      userId: record.user_id ?? undefined,
      unconfined,
      // Run from its record, perhaps on another runtime, with the caller its job kept (stored-caller.ts).
      principal,
      started: LIFECYCLE[component.kind].started,
      lastSeq: 0,
      subject: budgetSubject(component.id, record.user_id, tenantId),
    });
  }

  /**
   * Continues a paused run with a person's decision on each tool call it waits for. The run
   * keeps its id and session; its events start with `RunContinued`.
   */
  async continue(input: ContinueRunInput): Promise<StartedRun> {
    if (this.shuttingDown) throw new RuntimeError('SERVICE_UNAVAILABLE', 'The runtime is shutting down');
    const { component } = input;
    const { record, decisions } = checkContinue(await this.store.getRun(input.runId), input);
    // A continued run is no new run, but it calls its model again: a used-up budget refuses (429).
    const subject = budgetSubject(component.id, record.user_id, record.tenant_id ?? input.principal?.tenantId);
    await this.budgets?.beforeModelCall(subject);
    // Only one caller may continue a run, also across runtime instances sharing the database.
    if (!(await this.store.transitionRun(record.run_id, 'PAUSED', 'RUNNING', this.chores.lease(input.mcpRequest)))) {
      throw new RuntimeError('CONFLICT', 'run is already running');
    }
    record.status = 'RUNNING';
    const history = await this.history(record.session_id);
    const lastSeq = await this.events.lastSeq(record.run_id);
    return this.launch(component, record, {
      subject,
      lastSeq,
      message: record.input.message,
      history,
      userId: record.user_id ?? undefined,
      unconfined: input.unconfined === true,
      principal: input.principal,
      started: `${LIFECYCLE[component.kind].prefix}RunContinued`,
      resume: { messages: record.messages, decisions },
    });
  }

  /** Executes a recorded run in the background, streaming its events and saving its end. */
  private launch(component: Runnable, record: RunRecord, options: LaunchOptions): StartedRun {
    const runId = record.run_id;
    const sessionId = record.session_id;
    const startedMs = Date.now();
    const previousDuration = record.metrics.duration;
    const controller = new AbortController();
    const names = LIFECYCLE[component.kind];
    const log = new RunEventLog(runId, sessionId, identityFields(component), options.lastSeq);
    let streamed = '';
    const spending = new RunSpending(this.budgets, options.subject, this.log);
    const trace = this.tracer.startRun(
      { runId, sessionId, componentType: component.kind, componentId: component.id, userId: record.user_id },
      { input: options.message, ...(options.resume ? { continued: true } : {}) },
    );
    const context: ExecutionContext = {
      runId,
      sessionId,
      userId: options.userId,
      // The run acts for its user in its session's tenant: its knowledge searches see what they may (user-scope.ts).
      scopedUserId: options.unconfined ? undefined : runScope(options.userId, this.userIsolation),
      scopedTenantId: options.tenantId ?? record.tenant_id ?? undefined,
      principal: options.principal,
      message: options.message,
      history: options.history,
      signal: controller.signal,
      defaultModel: this.defaultModel,
      emit: (name, fields) => log.send(`${names.prefix}${name}`, fields),
      emitRaw: (event, fields) => log.send(event, fields),
      // A continued run updates the entry of a call that waited, rather than adding another.
      recordTool: (execution: ToolExecution) => {
        const index = record.tools.findIndex((t) => t.tool_call_id === execution.tool_call_id && t.by === execution.by);
        if (index >= 0) record.tools[index] = execution;
        else record.tools.push(execution);
      },
      recordMessages: (messages: ChatMessage[]) => (record.messages = messages),
      recordContent: (text: string) => (streamed += text),
      addUsage: (usage: Usage, model?: string) => {
        record.metrics.input_tokens += usage.inputTokens;
        record.metrics.output_tokens += usage.outputTokens;
        record.metrics.total_tokens += usage.totalTokens;
        spending.add(usage, model);
      },
      countUsage: (usage: Usage, model?: string) => spending.add(usage, model),
      beforeModelCall: () => spending.beforeModelCall(),
      ...(options.resume ? { resume: options.resume } : {}),
      trace,
    };

    /**
     * Ends the run: its final event is stored before its final status is saved (a follower that
     * reads an ended status finds every event), and streamed after (a client that reads the
     * final event finds the run ended).
     */
    const finish = async (status: RunStatus, content: string | null, error: string | null, final: (saved: RunRecord) => [string, Record<string, unknown>]): Promise<RunRecord> => {
      record.status = status;
      record.content = content;
      record.error = error;
      record.metrics.duration = previousDuration + (Date.now() - startedMs) / 1000;
      record.updated_at = epochSeconds();
      trace.finish(status, error);
      await spending.settled();
      const last = log.record(...final(record));
      // After a store the chores may have under way, so the events land in order before the status.
      await this.chores.idle();
      await this.chores.storeEvents(runId, log.unstored).catch((e: unknown) => this.log.warn(`could not store the events of run ${runId}: ${describeError(e)}`));
      try {
        await this.store.saveRun(record);
      } catch (e) {
        this.log.error(`could not save run ${runId}`, e);
      }
      log.stream.push(last);
      return record;
    };

    log.send(options.started, { ...describeModel(component, this.defaultModel) });
    const done = (async (): Promise<RunRecord> => {
      try {
        const result = await component.execute(context);
        if (controller.signal.aborted) throw controller.signal.reason;
        if (result.paused) {
          const tools = result.paused.tools;
          return await finish('PAUSED', result.content || null, null, (saved) => [`${names.prefix}RunPaused`, { content: saved.content, tools }]);
        }
        return await finish('COMPLETED', result.content, null, (saved) => [names.completed, { content: result.content, content_type: 'str', metrics: saved.metrics }]);
      } catch (error) {
        if (controller.signal.aborted) {
          const reason = String(controller.signal.reason ?? 'cancelled');
          return await finish('CANCELLED', streamed || null, null, (saved) => [names.cancelled, { reason, content: saved.content }]);
        }
        const { message, type } = describeFailure(error);
        if (type === 'InternalError') this.log.error(`run ${runId} of ${component.kind} ${component.id} failed`, error);
        const errorFields = component.kind === 'workflow' ? { error: message } : { content: message, error_type: type };
        return await finish('ERROR', streamed || null, message, () => [names.error, errorFields]);
      } finally {
        // Whatever finish could not store (it failed) gets another try before the run counts as ended.
        await this.chores.storeEvents(runId, log.unstored).catch((e: unknown) => this.log.warn(`could not store the events of run ${runId}: ${describeError(e)}`));
        this.active.delete(runId);
        if (this.active.size === 0) this.chores.stopProgress();
        log.stream.close();
        // Runs queued behind this one may start now, on whichever runtime holds their jobs.
        await this.store.db.notifications().publish(RUN_QUEUE_CHANNEL, sessionId).catch(() => undefined);
      }
    })();

    const cancel = (reason = 'cancelled') => {
      if (!controller.signal.aborted) controller.abort(reason);
    };
    this.active.set(runId, { cancel, done, streamed: () => streamed, storedLength: 0, unstored: log.unstored, endTrace: (error) => trace.finish('ERROR', error) });
    this.chores.startProgress();
    return { runId, sessionId, events: log.stream, done, cancel, eventId: (event) => log.eventId(event) };
  }

  /**
   * Cancels a run wherever it executes: here at once; in another runtime sharing the database
   * through a request its owner reads within a second (waiting up to `waitMs` for it to end); a
   * run whose process died, or one paused for a decision, is ended here. Partial output is kept.
   */
  async cancel(runId: string, reason = 'cancelled by request', waitMs = 10_000): Promise<CancelOutcome> {
    if (!this.active.has(runId) && (await cancelQueued(this.store, this.events, runId, reason))) {
      return { cancelled: true, status: 'CANCELLED', alreadyFinished: false };
    }
    return cancelRun({ store: this.store, leases: this.leases }, this.active.get(runId), runId, reason, waitMs);
  }

  /** Cancels a run of this process only, without waiting; false when it is not active here. */
  cancelLocal(runId: string, reason = 'cancelled by request'): boolean {
    const run = this.active.get(runId);
    run?.cancel(reason);
    return run !== undefined;
  }

  /** Finalises runs left behind by dead processes now, and every half lease while this runtime lives (called at start, after migrations). */
  startMaintenance(): void {
    if (!this.shuttingDown) this.chores.startMaintenance();
  }

  /**
   * Names the host and port this process serves on. Runs an earlier process left under the same
   * name are finalised at once: that process has exited, since this one holds its port now.
   */
  async adoptNode(node: string): Promise<void> {
    await this.chores.adoptNode(node);
  }

  /** Cancels the run an MCP request started, wherever it executes; no wait. */
  async cancelMcpRequest(digest: string, reason: string): Promise<void> {
    const runId = await this.leases.findByMcpRequest(digest);
    if (!runId || this.cancelLocal(runId, reason)) return;
    await requestCancel({ store: this.store, leases: this.leases }, runId);
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
    this.chores.stopMaintenance();
    const runs = [...this.active.entries()];
    for (const [, run] of runs) run.cancel('runtime shutting down');
    let timer: NodeJS.Timeout | undefined;
    const bound = Number.isFinite(boundMs) ? new Promise<void>((r) => (timer = setTimeout(r, boundMs))) : undefined;
    const all = Promise.all(runs.map(([, r]) => r.done)).then(() => undefined);
    await (bound ? Promise.race([all, bound]) : all);
    clearTimeout(timer);
    this.chores.stopProgress();
    await this.chores.idle();
    const stuck = runs.map(([id]) => id).filter((id) => this.active.has(id));
    if (stuck.length > 0) {
      this.log.warn(`shutdown: ${stuck.length} run(s) did not stop in time; recording them as interrupted: ${stuck.join(', ')}`);
      // Their trace summaries may still be in the writer's buffer as RUNNING, where the
      // database update below cannot reach them: ending the traces here puts the ERROR row in
      // that buffer after them, and the runtime's close writes both.
      for (const id of stuck) this.active.get(id)?.endTrace(SHUTDOWN_MESSAGE);
      await this.leases.interruptOwned(this.owner, stuck).catch((e: unknown) => this.log.error('could not record interrupted runs', e));
    }
  }

  /** The conversation so far: completed runs only, so a failed turn does not confuse the model. */
  private async history(sessionId: string): Promise<ChatMessage[]> {
    const runs = await this.store.recentRuns(sessionId, 'COMPLETED', this.historyRuns);
    return runs.flatMap((r) => r.messages);
  }
}
