/**
 * Writes a run's events as server-sent events, and cancels the run if the client goes away.
 */
import type { SSEStreamingApi } from 'hono/streaming';
import type { StartedRun } from '../../run/runner.js';

/** Idle streams get a comment line this often, so proxies do not time them out. */
const HEARTBEAT_MS = 15_000;

export async function streamRun(stream: SSEStreamingApi, run: StartedRun): Promise<void> {
  stream.onAbort(() => run.cancel('client disconnected'));
  const heartbeat = setInterval(() => void stream.write(': heartbeat\n\n').catch(() => run.cancel('client disconnected')), HEARTBEAT_MS);
  try {
    for await (const event of run.events) {
      if (stream.aborted || stream.closed) break;
      await stream.writeSSE({ event: event.event, data: JSON.stringify(event) });
    }
  } finally {
    clearInterval(heartbeat);
    // Whatever happened to the connection, the run's record is saved before the handler ends.
    await run.done;
  }
}
