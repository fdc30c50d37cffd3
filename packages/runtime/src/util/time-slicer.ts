/**
 * @module util/time-slicer
 * Long synchronous loops on the main thread (rebuilding 150k chunks, copying them, writing them
 * to SQLite) hold the event loop for as long as they run. A `TimeSlicer` lets such a loop check,
 * cheaply and as often as it likes, whether it has used its slice of the loop, and yield when it
 * has: the loop then costs at most about `budgetMs` of delay per turn, however large the input.
 */
import { setImmediate as yieldToLoop } from 'node:timers/promises';

/** The synchronous work one slice may do before it yields; a few ms keeps p99 delay low. */
export const SLICE_MS = 4;

export class TimeSlicer {
  private start = performance.now();

  constructor(
    readonly budgetMs = SLICE_MS,
    private readonly signal?: AbortSignal,
  ) {}

  /** True once this slice has run for its budget (the caller should `yield()`). */
  due(): boolean {
    return performance.now() - this.start >= this.budgetMs;
  }

  /** Lets the event loop run, then starts a new slice; throws when the signal was aborted meanwhile. */
  async yield(): Promise<void> {
    await yieldToLoop();
    this.signal?.throwIfAborted();
    this.start = performance.now();
  }

  /** Yields when the slice is used up; otherwise returns at once (no promise is made). */
  pause(): Promise<void> | undefined {
    return this.due() ? this.yield() : undefined;
  }
}

/** `items.map(fn)`, yielding to the event loop whenever a slice is used up. */
export async function mapSliced<T, U>(items: readonly T[], fn: (item: T, index: number) => U, slicer = new TimeSlicer()): Promise<U[]> {
  const out: U[] = [];
  for (let i = 0; i < items.length; i++) {
    if ((i & 63) === 0 && slicer.due()) await slicer.yield();
    out.push(fn(items[i]!, i));
  }
  return out;
}
