/**
 * @module run/run-records
 * The run records the runner saves: a new run's record, what a stored run must be for a request
 * to continue it (in the reference's wording), and what a failed run's record says.
 */
import { timeOrderedId } from '../util/ids.js';
import { RuntimeError } from '../errors.js';
import { ModelError } from '../model/model.js';
import { emptyMetrics, epochSeconds, isWaitingForDecision, type RunRecord, type RunStatus } from '../sessions/types.js';
import { RunFailure, type Runnable } from './execution.js';

/** The record of a run about to start, RUNNING with the user's message. */
export function newRunRecord(component: Runnable, sessionId: string, userId: string | undefined, message: string, runId?: string): RunRecord {
  const startedMs = Date.now();
  return {
    run_id: runId ?? timeOrderedId(),
    session_id: sessionId,
    session_type: component.kind,
    component_id: component.id,
    user_id: userId ?? null,
    status: 'RUNNING',
    input: { message },
    content: null,
    messages: [{ role: 'user', content: message }],
    tools: [],
    metrics: emptyMetrics(),
    error: null,
    started_ms: startedMs,
    created_at: epochSeconds(startedMs),
    updated_at: epochSeconds(startedMs),
  };
}

/** A message for a session that has a run in progress, under the `reject` policy (409 CONFLICT). */
export class SessionBusyError extends RuntimeError {
  constructor(sessionId: string, inProgress: readonly { run_id: string; status: string }[]) {
    const runs = inProgress.map((r) => `${r.run_id} (${r.status})`).join(', ');
    super(
      'CONFLICT',
      `Session ${sessionId} has a run in progress: ${runs}. Send multitask_strategy "enqueue" to run after it, or "interrupt" to cancel it first`,
    );
  }
}

/** What continuing a paused run asks for. */
export interface ContinueRequest {
  component: Runnable;
  /** When given, the run must belong to this session. */
  sessionId?: string | undefined;
  /** When given (an authenticated caller), the run must be this user's. */
  userId?: string | undefined;
  /** When given (tenancy: the caller's tenant), the run must be this tenant's. */
  tenantId?: string | undefined;
  /** A decision for every tool call the run waits on. */
  decisions: { tool_call_id: string; confirmed: boolean }[];
}

/**
 * Checks that `record` is a paused run of this component (and session and user, when given) and
 * that the request decides on every tool call it waits for, exactly those. Answers the decisions
 * by tool call id.
 */
export function checkContinue(record: RunRecord | undefined, request: ContinueRequest): { record: RunRecord; decisions: Map<string, boolean> } {
  const { component } = request;
  const userId = request.userId?.trim() || undefined;
  if (
    !record ||
    record.session_type !== component.kind ||
    record.component_id !== component.id ||
    (request.sessionId && record.session_id !== request.sessionId) ||
    // Another tenant's run, or one from before tenancy, is not there for a confined caller.
    (request.tenantId !== undefined && record.tenant_id !== request.tenantId)
  ) {
    throw new RuntimeError('NOT_FOUND', 'Run not found');
  }
  if (userId && record.user_id && record.user_id !== userId) throw new RuntimeError('FORBIDDEN', 'This run belongs to another user');
  if (record.status !== 'PAUSED') throw new RuntimeError('CONFLICT', notPausedMessage(record.status));
  if (!component.supportsResume) throw new RuntimeError('CONFLICT', `This ${component.kind} cannot continue paused runs`);

  const waiting = record.tools.filter(isWaitingForDecision);
  const decisions = new Map<string, boolean>();
  for (const d of request.decisions) {
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
  return { record, decisions };
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

/** A failed run's error message and type, as its record and final event give them. */
export function describeFailure(error: unknown): { message: string; type: string } {
  if (error instanceof RunFailure) return { message: error.message, type: error.errorType };
  if (ModelError.isInstance(error)) return { message: `Model error (${error.provider}): ${error.message}`, type: error.code };
  if (RuntimeError.isInstance(error) && error.status < 500) return { message: error.message, type: error.code };
  // Anything else is a bug or an unexpected failure: say so without leaking internals.
  return { message: 'The run failed because of an internal error', type: 'InternalError' };
}
