/**
 * @module auth/shared-failures
 * Failed authentications counted in the database, so a client guessing through a load balancer
 * meets the same limit as one talking to a single runtime. Only failures touch it: a valid
 * credential never reads or writes it. Windows are fixed, and the count is the sliding estimate
 * of the current window plus the part of the previous one still inside the window.
 */
import type { Db } from '../storage/db.js';

export interface SharedFailureOptions {
  maxFailures: number;
  windowMs: number;
}

export class SharedFailureCounter {
  private cleanedAt = 0;

  constructor(
    private readonly db: Db,
    private readonly options: SharedFailureOptions,
  ) {}

  /** Records a failure of `client`; the seconds to wait when it is over the limit, else undefined. */
  async fail(client: string, now = Date.now()): Promise<number | undefined> {
    const { windowMs, maxFailures } = this.options;
    const start = Math.floor(now / windowMs) * windowMs;
    const [current] = await this.db.query<{ failures: number | string }>(
      `INSERT INTO svc_auth_failures (client, window_ms, failures) VALUES ($1, $2, 1)
       ON CONFLICT (client, window_ms) DO UPDATE SET failures = svc_auth_failures.failures + 1
       RETURNING failures`,
      [client, start],
    );
    const [previous] = await this.db.query<{ failures: number | string }>('SELECT failures FROM svc_auth_failures WHERE client = $1 AND window_ms = $2', [
      client,
      start - windowMs,
    ]);
    const estimate = Number(current?.failures ?? 0) + Number(previous?.failures ?? 0) * (1 - (now - start) / windowMs);
    if (now - this.cleanedAt > windowMs) {
      this.cleanedAt = now;
      await this.db.execute('DELETE FROM svc_auth_failures WHERE window_ms < $1', [start - windowMs]).catch(() => undefined);
    }
    if (estimate <= maxFailures) return undefined;
    return Math.max(1, Math.ceil((start + windowMs - now) / 1000));
  }
}
