/**
 * @module run/run-queue
 * Runs queued in their session (PENDING): the bus message that says a session's line moved,
 * and cancelling a run before it started, which stores its final event so a client following
 * it sees the end.
 */
import { RUN_EVENTS_CHANNEL, type RunEventStore } from '../sessions/run-event-store.js';
import type { SessionStore } from '../sessions/session-store.js';
import { epochSeconds } from '../sessions/types.js';
import { LIFECYCLE } from './run-events.js';

/** Bus channel: "a run of session <id> ended", so queued runs behind it start at once. */
export const RUN_QUEUE_CHANNEL = 'svc_run_queue';

/** Cancels `runId` if it is still queued; false when it is not (running, or ended). */
export async function cancelQueued(store: SessionStore, events: RunEventStore, runId: string, reason: string): Promise<boolean> {
  const record = await store.getRun(runId);
  if (record?.status !== 'PENDING' || !(await store.transitionRun(runId, 'PENDING', 'CANCELLED'))) return false;
  const event = LIFECYCLE[record.session_type].cancelled;
  const payload = {
    event,
    created_at: epochSeconds(),
    run_id: runId,
    session_id: record.session_id,
    [`${record.session_type}_id`]: record.component_id,
    reason,
    content: null,
  };
  await events.append(runId, [{ seq: (await events.lastSeq(runId)) + 1, event, data: JSON.stringify(payload) }]);
  const bus = store.db.notifications();
  await bus.publish(RUN_EVENTS_CHANNEL, runId).catch(() => undefined);
  await bus.publish(RUN_QUEUE_CHANNEL, record.session_id).catch(() => undefined);
  return true;
}
