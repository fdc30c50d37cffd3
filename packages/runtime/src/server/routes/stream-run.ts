/**
 * Writes a run's events as server-sent events, each with its `id` (the stored event it is, see
 * run/run-events.ts), so a client that loses the connection resumes from the run's events route
 * with `Last-Event-ID`. The run is cancelled if the client goes away, unless the request said
 * `on_disconnect: "continue"`.
 */
import type { SSEStreamingApi } from 'hono/streaming';
import type { StartedRun } from '../../run/runner.js';

/** Idle streams get a comment line this often, so proxies do not time them out. */
const HEARTBEAT_MS = 15_000;

export type OnDisconnect = 'cancel' | 'continue';

export async function streamRun(stream: SSEStreamingApi, run: StartedRun, onDisconnect: OnDisconnect = 'cancel'): Promise<void> {
  const gone = () => {
    if (onDisconnect === 'cancel') run.cancel('client disconnected');
  };
  stream.onAbort(gone);
  const heartbeat = setInterval(() => void stream.write(': heartbeat\n\n').catch(gone), HEARTBEAT_MS);
  try {
    for await (const event of run.events) {
      if (stream.aborted || stream.closed) break;
      const id = run.eventId(event);
      await stream.writeSSE({ event: event.event, data: JSON.stringify(event), ...(id !== undefined ? { id } : {}) });
    }
  } finally {
    clearInterval(heartbeat);
    // Whatever happened to the connection, the run's record is saved before the handler ends.
    await run.done;
  }
}
