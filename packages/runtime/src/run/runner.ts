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
import type { Logger } from '../server/logger.js';
import type { SessionStore } from '../sessions/session-store.js';
import { emptyMetrics, epochSeconds, isWaitingForDecision, type RunRecord, type RunStatus, type SessionType, type ToolExecution } from '../sessions/types.js';
import { AsyncQueue } from './async-queue.js';
import { RunFailure, type ExecutionContext, type Runnable } from './execution.js';

export type RunEvent = { event: string; created_at: number; run_id: string; session_id: string } & Record<string, unknown>;

export interface StartRunInput {
  component: Runnable;
  message: string;
  sessionId?: string | undefined;
  userId?: string | undefined;
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
}

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
}

export class Runner {
  private readonly active = new Map<string, { cancel: (reason: string) => void; done: Promise<RunRecord> }>();
  private readonly store: SessionStore;
  private readonly defaultModel: Model | undefined;
  private readonly log: Logger;
  private readonly historyRuns: number;
  private shuttingDown = false;

  constructor(options: RunnerOptions) {
    this.store = options.store;
    this.defaultModel = options.defaultModel;
    this.log = options.log;
    this.historyRuns = options.historyRuns ?? 10;
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
    await this.store.saveRun(record);
    return this.launch(component, record, { message: input.message, history, userId, started: LIFECYCLE[component.kind].started });
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
      (input.sessionId && record.session_id !== input.sessionId) ||
      (userId && record.user_id && record.user_id !== userId)
    ) {
      throw new RuntimeError('NOT_FOUND', 'Run not found');
    }
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
    if (!(await this.store.transitionRun(record.run_id, 'PAUSED', 'RUNNING'))) throw new RuntimeError('CONFLICT', 'run is already running');
    record.status = 'RUNNING';
    const history = await this.history(record.session_id);
    return this.launch(component, record, {
      message: record.input.message,
      history,
      userId: record.user_id ?? undefined,
      started: `${LIFECYCLE[component.kind].prefix}RunContinued`,
      resume: { messages: record.messages, decisions },
    });
  }

  /** Executes a recorded run in the background, streaming its events and saving its end. */
  private launch(
    component: Runnable,
    record: RunRecord,
    options: { message: string; history: ChatMessage[]; userId: string | undefined; started: string; resume?: ExecutionContext['resume'] },
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

    const send = (event: string, fields: Record<string, unknown> = {}) => queue.push({ event, ...base(), ...identity, ...fields });
    const context: ExecutionContext = {
      runId,
      sessionId,
      userId: options.userId,
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
        this.active.delete(runId);
        queue.close();
      }
    })();

    const cancel = (reason = 'cancelled') => {
      if (!controller.signal.aborted) controller.abort(reason);
    };
    this.active.set(runId, { cancel, done });
    return { runId, sessionId, events: queue, done, cancel };
  }

  /** Cancels a run of this process; false when no such run is active here. */
  cancel(runId: string, reason = 'cancelled by request'): boolean {
    const run = this.active.get(runId);
    if (!run) return false;
    run.cancel(reason);
    return true;
  }

  /** Ids of the runs in progress in this process. */
  activeRunIds(): string[] {
    return [...this.active.keys()];
  }

  /** Resolves with the saved run once an active run ends; undefined when it is not active here. */
  async waitFor(runId: string): Promise<RunRecord | undefined> {
    return this.active.get(runId)?.done;
  }

  /** Cancels every active run and waits until each has been saved. */
  async shutdown(): Promise<void> {
    this.shuttingDown = true;
    const runs = [...this.active.values()];
    for (const run of runs) run.cancel('runtime shutting down');
    await Promise.all(runs.map((r) => r.done));
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

function describeFailure(error: unknown): { message: string; type: string } {
  if (error instanceof RunFailure) return { message: error.message, type: error.errorType };
  if (ModelError.isInstance(error)) return { message: `Model error (${error.provider}): ${error.message}`, type: error.code };
  if (RuntimeError.isInstance(error) && error.status < 500) return { message: error.message, type: error.code };
  // Anything else is a bug or an unexpected failure: say so without leaking internals.
  return { message: 'The run failed because of an internal error', type: 'InternalError' };
}
