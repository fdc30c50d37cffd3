/**
 * Follows a run's stored events as server-sent events, from whichever runtime the client
 * reached: first what is stored after the client's last event id, then each new batch as the
 * runtime executing the run stores it (a bus message wakes the follower; a slow poll covers a
 * lost message), until the run ends or pauses.
 */
import type { SSEStreamingApi } from 'hono/streaming';
import type { ResumePoint } from '../../run/run-events.js';
import { RUN_EVENTS_CHANNEL, type RunEventStore } from '../../sessions/run-event-store.js';
import type { SessionStore } from '../../sessions/session-store.js';
import type { NotificationBus } from '../../storage/notifications.js';

const HEARTBEAT_MS = 15_000;
/** The poll that covers a lost wake-up message. */
const POLL_MS = 1000;

export interface FollowInputs {
  runId: string;
  /** The last event id the client has (seq 0 for everything); `chars` inside a text event. */
  after: ResumePoint;
  events: RunEventStore;
  sessions: SessionStore;
  bus: NotificationBus;
}

export async function followRun(stream: SSEStreamingApi, inputs: FollowInputs): Promise<void> {
  const { runId, events, sessions, bus } = inputs;
  // A client that has part of a text event gets the rest of it, under the event's own id.
  const partial = inputs.after.chars !== undefined ? inputs.after : undefined;
  let seq = partial ? partial.seq - 1 : inputs.after.seq;
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
          const data = partial && e.seq === partial.seq ? remainder(e.data, partial.chars ?? 0) : e.data;
          if (data !== undefined) await stream.writeSSE({ id: String(e.seq), event: e.event, data });
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

/** A stored text event without its first `chars` characters; undefined when nothing is left. */
function remainder(data: string, chars: number): string | undefined {
  const event = JSON.parse(data) as { content?: unknown };
  if (typeof event.content !== 'string') return chars > 0 ? undefined : data;
  if (event.content.length <= chars) return undefined;
  return JSON.stringify({ ...event, content: event.content.slice(chars) });
}
