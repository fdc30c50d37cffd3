/**
 * @module net/token-bucket
 * A per-minute rate as a token bucket holding one second's share, so a burst of one second goes
 * out at once and the rest at an even pace. A request costing more than the bucket holds waits
 * for a full bucket and leaves it in debt: the long-run rate holds without starving large
 * requests.
 */
export class TokenBucket {
  private level: number;
  private last = Date.now();

  constructor(private perMinute: number) {
    this.level = this.capacity;
  }

  get rate(): number {
    return this.perMinute;
  }

  private get capacity(): number {
    return Math.max(1, this.perMinute / 60);
  }

  private refill(now: number): void {
    this.level = Math.min(this.capacity, this.level + ((now - this.last) * this.perMinute) / 60_000);
    this.last = now;
  }

  /** How long until a request costing `cost` may go; 0 when it may go now. */
  waitMs(cost: number, now = Date.now()): number {
    this.refill(now);
    const need = Math.min(cost, this.capacity);
    return this.level >= need ? 0 : Math.ceil(((need - this.level) * 60_000) / this.perMinute);
  }

  take(cost: number): void {
    this.level -= cost;
  }

  /** Gives back (or, negative, charges) what an estimate got wrong. */
  credit(amount: number): void {
    this.level = Math.min(this.capacity, this.level + amount);
  }

  setRate(perMinute: number): void {
    this.refill(Date.now());
    this.perMinute = perMinute;
    this.level = Math.min(this.level, this.capacity);
  }
}
