/**
 * Follows a run's stored events as server-sent events, from whichever runtime the client
 * reached: first what is stored after the client's last event id, then each new batch as the
 * runtime executing the run stores it (a bus message wakes the follower; a slow poll covers a
 * lost message), until the run ends or pauses.
 */
import type { SSEStreamingApi } from 'hono/streaming';
import { RUN_EVENTS_CHANNEL, type RunEventStore } from '../../sessions/run-event-store.js';
import type { SessionStore } from '../../sessions/session-store.js';
import type { NotificationBus } from '../../storage/notifications.js';

const HEARTBEAT_MS = 15_000;
/** The poll that covers a lost wake-up message. */
const POLL_MS = 1000;

export interface FollowInputs {
  runId: string;
  /** The last event id the client has (0 for everything). */
  after: number;
  events: RunEventStore;
  sessions: SessionStore;
  bus: NotificationBus;
}

export async function followRun(stream: SSEStreamingApi, inputs: FollowInputs): Promise<void> {
  const { runId, events, sessions, bus } = inputs;
  let seq = inputs.after;
  let wake: (() => void) | undefined;
  const off = bus.subscribe(RUN_EVENTS_CHANNEL, (payload) => {
    if (payload === runId) wake?.();
  });
  stream.onAbort(() => wake?.());
  let lastWrite = Date.now();
  try {
    for (;;) {
      // Read the status first: events stored before a final status are then certain to be seen.
      const run = await sessions.getRun(runId);
      const ended = !run || run.status === 'COMPLETED' || run.status === 'ERROR' || run.status === 'CANCELLED' || run.status === 'PAUSED';
      for (;;) {
        const batch = await events.after(runId, seq);
        for (const e of batch) {
          if (stream.aborted) return;
          await stream.writeSSE({ id: String(e.seq), event: e.event, data: e.data });
          seq = e.seq;
          lastWrite = Date.now();
        }
        if (batch.length < 500) break;
      }
      if (ended || stream.aborted) return;
      if (Date.now() - lastWrite > HEARTBEAT_MS) {
        await stream.write(': heartbeat\n\n');
        lastWrite = Date.now();
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, POLL_MS);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      wake = undefined;
    }
  } finally {
    off();
  }
}
