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

  /**
   * Resolves once every tracked task has settled, including tasks started while waiting, or
   * once `boundMs` has passed (shutdown does not wait forever).
   */
  async drain(boundMs = Number.POSITIVE_INFINITY): Promise<void> {
    const deadline = Date.now() + boundMs;
    while (this.pending.size > 0 && Date.now() < deadline) {
      let timer: NodeJS.Timeout | undefined;
      const bound = Number.isFinite(boundMs) ? new Promise<void>((r) => (timer = setTimeout(r, Math.max(0, deadline - Date.now())))) : undefined;
      await (bound ? Promise.race([Promise.all(this.pending), bound]) : Promise.all(this.pending));
      clearTimeout(timer);
    }
  }
}
