/**
 * @module run/background-tasks
 * Work a request starts but does not wait for (processing an upload). Shutdown drains it
 * before the database closes, so a stop in the middle neither loses the outcome nor leaves a
 * record stuck in `processing`.
 */
export class BackgroundTasks {
  private readonly pending = new Set<Promise<void>>();

  /** Follows `task` until it settles; its own failure handling stays with the caller. */
  track(task: Promise<unknown>): void {
    const settled: Promise<void> = task.then(
      () => undefined,
      () => undefined,
    );
    this.pending.add(settled);
    void settled.finally(() => this.pending.delete(settled));
  }

  get size(): number {
    return this.pending.size;
  }

  /** Resolves once every tracked task has settled, including tasks started while waiting. */
  async drain(): Promise<void> {
    while (this.pending.size > 0) await Promise.all(this.pending);
  }
}
