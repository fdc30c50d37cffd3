/**
 * @module net/rate-limiter
 * The limits of one endpoint, shared by everything in the process that calls it, so two callers
 * at once do not double the load:
 *
 * - at most `maxConcurrency` requests are in flight;
 * - requests and tokens (whatever unit a request costs) per minute are token buckets with one
 *   second's burst; a cost estimated up front is corrected once the server reports the truth;
 * - limits the server announces hold beside the configured ones, the stricter winning;
 * - `pause` stops everyone for a while (a 429 refuses them all alike).
 *
 * Interactive requests (someone is waiting on this one) go before queued bulk work. The
 * caller's AbortSignal takes a request out of the queue at once.
 */
import { TokenBucket } from './token-bucket.js';

export interface RateLimits {
  maxConcurrency: number;
  /** undefined: no limit of our own. */
  requestsPerMinute: number | undefined;
  tokensPerMinute: number | undefined;
}

interface Waiter {
  cost: number;
  interactive: boolean;
  resolve(release: () => void): void;
  reject(error: unknown): void;
  signal: AbortSignal | undefined;
  onAbort: () => void;
}

export class RateLimiter {
  private concurrencyLimit: number;
  private configuredRpm: number | undefined;
  private configuredTpm: number | undefined;
  private announcedRpm: number | undefined;
  private announcedTpm: number | undefined;
  private requests: TokenBucket | undefined;
  private tokens: TokenBucket | undefined;
  private inFlight = 0;
  private pausedUntil = 0;
  private readonly queue: Waiter[] = [];
  private timer: NodeJS.Timeout | undefined;

  /** `aborted` makes the error a request whose signal fires rejects with (each caller has its own). */
  constructor(
    limits: RateLimits,
    private readonly aborted: (reason: unknown) => unknown,
  ) {
    this.concurrencyLimit = limits.maxConcurrency;
    this.configuredRpm = limits.requestsPerMinute;
    this.configuredTpm = limits.tokensPerMinute;
    this.applyRates();
  }

  /** Requests allowed in flight at once. */
  get concurrency(): number {
    return this.concurrencyLimit;
  }

  /** The requests-per-minute limit in force, configured or announced; undefined when none. */
  get requestsPerMinute(): number | undefined {
    return this.requests?.rate;
  }

  get tokensPerMinute(): number | undefined {
    return this.tokens?.rate;
  }

  /** Another user of this endpoint with its own settings: the stricter of each limit applies to both. */
  tighten(limits: RateLimits): void {
    this.concurrencyLimit = Math.min(this.concurrencyLimit, limits.maxConcurrency);
    this.configuredRpm = minDefined(this.configuredRpm, limits.requestsPerMinute);
    this.configuredTpm = minDefined(this.configuredTpm, limits.tokensPerMinute);
    this.applyRates();
  }

  /** Limits the server announced; an undefined one leaves what it said before. */
  announce(limits: { requestsPerMinute?: number | undefined; tokensPerMinute?: number | undefined }): void {
    const rpm = limits.requestsPerMinute;
    const tpm = limits.tokensPerMinute;
    if ((rpm === undefined || rpm === this.announcedRpm) && (tpm === undefined || tpm === this.announcedTpm)) return;
    this.announcedRpm = rpm ?? this.announcedRpm;
    this.announcedTpm = tpm ?? this.announcedTpm;
    this.applyRates();
  }

  private applyRates(): void {
    this.requests = rebucket(this.requests, minDefined(this.configuredRpm, this.announcedRpm));
    this.tokens = rebucket(this.tokens, minDefined(this.configuredTpm, this.announcedTpm));
  }

  /**
   * Waits for a slot and for the rate limits to allow a request costing `cost` tokens; resolves
   * with the function that gives the slot back.
   */
  acquire(cost: number, signal: AbortSignal | undefined, interactive = false): Promise<() => void> {
    if (signal?.aborted) return Promise.reject(this.aborted(signal.reason));
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        cost,
        interactive,
        resolve,
        reject,
        signal,
        onAbort: () => {
          const at = this.queue.indexOf(waiter);
          if (at >= 0) this.queue.splice(at, 1);
          reject(this.aborted(signal?.reason));
          this.pump();
        },
      };
      signal?.addEventListener('abort', waiter.onAbort, { once: true });
      if (interactive) {
        const firstBulk = this.queue.findIndex((w) => !w.interactive);
        this.queue.splice(firstBulk < 0 ? this.queue.length : firstBulk, 0, waiter);
      } else {
        this.queue.push(waiter);
      }
      this.pump();
    });
  }

  /** Nobody on this limiter starts a request for `ms`. */
  pause(ms: number): void {
    this.pausedUntil = Math.max(this.pausedUntil, Date.now() + ms);
  }

  /** A request's true cost, once the server reported it. */
  settle(estimated: number, reported: number): void {
    if (!Number.isFinite(reported) || reported < 0 || !this.tokens) return;
    this.tokens.credit(estimated - reported);
    // Tokens given back may let a waiting request go now rather than when its timer says.
    this.pump();
  }

  private pump(): void {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    while (this.queue.length > 0 && this.inFlight < this.concurrencyLimit) {
      const head = this.queue[0]!;
      const now = Date.now();
      const wait = Math.max(this.pausedUntil - now, this.requests?.waitMs(1, now) ?? 0, this.tokens?.waitMs(head.cost, now) ?? 0);
      if (wait > 0) {
        this.timer = setTimeout(() => {
          this.timer = undefined;
          this.pump();
        }, wait);
        return;
      }
      this.queue.shift();
      head.signal?.removeEventListener('abort', head.onAbort);
      this.requests?.take(1);
      this.tokens?.take(head.cost);
      this.inFlight += 1;
      let released = false;
      head.resolve(() => {
        if (released) return;
        released = true;
        this.inFlight -= 1;
        this.pump();
      });
    }
  }
}

function minDefined(a: number | undefined, b: number | undefined): number | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return Math.min(a, b);
}

function rebucket(bucket: TokenBucket | undefined, perMinute: number | undefined): TokenBucket | undefined {
  if (perMinute === undefined) return undefined;
  if (!bucket) return new TokenBucket(perMinute);
  if (bucket.rate !== perMinute) bucket.setRate(perMinute);
  return bucket;
}
