/**
 * @module knowledge/ingest/deadline
 * The time budget of one content's reading and chunking (KNOWLEDGE_MAX_READ_SECONDS): the work
 * gets a signal that also aborts when the time is up, which stops a worker doing it (its thread
 * is ended), a fetch and any sliced loop, and the content fails with a 422 naming the limit. The
 * caller's own cancellation (a job handed back at shutdown) still reads as cancellation.
 * Embedding and storing are not counted: their cost follows the chunk budget and the providers'
 * own time limits, not the bytes.
 */
import { tookTooLong } from '../limits.js';

export async function withinReadTime<T>(name: string, limitMs: number, signal: AbortSignal | undefined, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(tookTooLong(name, limitMs)), limitMs);
  timer.unref();
  try {
    return await work(signal ? AbortSignal.any([signal, deadline.signal]) : deadline.signal);
  } catch (error) {
    if (deadline.signal.aborted && !signal?.aborted) throw deadline.signal.reason;
    throw error;
  } finally {
    clearTimeout(timer);
  }
}
