/**
 * @module auth/failure-limiter
 * Slows down credential guessing: after `maxFailures` failed authentications from one client
 * within `windowMs`, further failures from it answer 429 until the window slides. Valid
 * credentials are checked first and never throttled, so a client that has the right token is
 * not locked out by someone else's guessing from a shared address.
 */

export interface FailureLimiterOptions {
  maxFailures: number;
  windowMs: number;
  /** How many client addresses to track at once (oldest forgotten first). */
  maxClients?: number;
}

export class FailureLimiter {
  private readonly failures = new Map<string, number[]>();
  private readonly maxClients: number;

  constructor(private readonly options: FailureLimiterOptions) {
    this.maxClients = options.maxClients ?? 10_000;
  }

  /**
   * Records one failure of `client`. Returns the seconds to wait when the client is already over
   * the limit (that failure is not recorded), else undefined.
   */
  fail(client: string, now = Date.now()): number | undefined {
    const since = now - this.options.windowMs;
    const recent = (this.failures.get(client) ?? []).filter((t) => t > since);
    if (recent.length >= this.options.maxFailures) {
      this.failures.set(client, recent);
      return Math.max(1, Math.ceil((recent[0]! + this.options.windowMs - now) / 1000));
    }
    recent.push(now);
    this.failures.delete(client);
    this.failures.set(client, recent);
    if (this.failures.size > this.maxClients) {
      const oldest = this.failures.keys().next().value;
      if (oldest !== undefined) this.failures.delete(oldest);
    }
    return undefined;
  }
}
