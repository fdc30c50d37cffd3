/**
 * @module webhooks/delivery-store
 * The delivery rows and their attempts. A delivery is due once its run has ended (COMPLETED,
 * ERROR or CANCELLED; a PAUSED run has not) and its next attempt's time has come; a runtime
 * takes it for one attempt with a compare-and-set lease, so exactly one process sends each
 * attempt, and one that dies mid-attempt leaves it to another when the lease runs out.
 */
import { timeOrderedId } from '../util/ids.js';
import type { Db } from '../storage/db.js';

export type DeliveryState = 'pending' | 'delivered' | 'failed';

export interface DueDelivery {
  delivery_id: string;
  run_id: string;
  url: string;
  attempts: number;
}

export interface WebhookAttempt {
  attempt: number;
  status_code: number | null;
  error: string | null;
  duration_ms: number;
  attempted_at: string;
}

export interface WebhookDelivery {
  delivery_id: string;
  run_id: string;
  url: string;
  state: DeliveryState;
  attempts: WebhookAttempt[];
  /** When the next attempt is due (pending deliveries only). */
  next_attempt_at: string | null;
  created_at: string;
}

/** What one attempt ended with, and what becomes of the delivery. */
export interface AttemptOutcome {
  statusCode: number | null;
  error: string | null;
  durationMs: number;
  attemptedMs: number;
  state: DeliveryState;
  nextAttemptMs: number;
}

const ENDED = "('COMPLETED', 'ERROR', 'CANCELLED')";
const iso = (ms: number | bigint | string | null): string | null => (ms === null ? null : new Date(Number(ms)).toISOString());

export class DeliveryStore {
  constructor(private readonly db: Db) {}

  /** A run's delivery to `url`; the same pair twice is one delivery. */
  async register(runId: string, url: string, now = Date.now()): Promise<void> {
    await this.db.execute(
      `INSERT INTO svc_webhook_deliveries (delivery_id, run_id, url, state, attempts, next_attempt_ms, created_ms)
       VALUES ($1, $2, $3, 'pending', 0, $4, $4) ON CONFLICT (run_id, url) DO NOTHING`,
      [timeOrderedId(now), runId, url, now],
    );
  }

  /** Deliveries whose run has ended and whose attempt is due, unleased; oldest due first. */
  async due(now: number, limit: number): Promise<DueDelivery[]> {
    const rows = await this.db.query<{ delivery_id: string; run_id: string; url: string; attempts: number | string }>(
      `SELECT d.delivery_id, d.run_id, d.url, d.attempts FROM svc_webhook_deliveries d JOIN svc_runs r ON r.run_id = d.run_id
       WHERE d.state = 'pending' AND d.next_attempt_ms <= $1 AND (d.lease_until_ms IS NULL OR d.lease_until_ms < $1) AND r.status IN ${ENDED}
       ORDER BY d.next_attempt_ms LIMIT $2`,
      [now, limit],
    );
    return rows.map((r) => ({ ...r, attempts: Number(r.attempts) }));
  }

  /** Takes `delivery` for its next attempt until `leaseUntil`; false when another runtime did. */
  async claim(delivery: DueDelivery, owner: string, now: number, leaseUntil: number): Promise<boolean> {
    const changed = await this.db.execute(
      `UPDATE svc_webhook_deliveries SET lease_owner = $1, lease_until_ms = $2
       WHERE delivery_id = $3 AND state = 'pending' AND attempts = $4 AND (lease_until_ms IS NULL OR lease_until_ms < $5)`,
      [owner, leaseUntil, delivery.delivery_id, delivery.attempts, now],
    );
    return changed === 1;
  }

  /** Records attempt `attempt` and moves the delivery on, if `owner` still holds it. */
  async record(delivery: DueDelivery, owner: string, attempt: number, outcome: AttemptOutcome): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      const changed = await tx.execute(
        `UPDATE svc_webhook_deliveries SET attempts = $1, state = $2, next_attempt_ms = $3, lease_owner = NULL, lease_until_ms = NULL
         WHERE delivery_id = $4 AND lease_owner = $5 AND attempts = $6`,
        [attempt, outcome.state, outcome.nextAttemptMs, delivery.delivery_id, owner, attempt - 1],
      );
      if (changed !== 1) return false;
      await tx.execute(
        `INSERT INTO svc_webhook_attempts (delivery_id, attempt, status_code, error, duration_ms, attempted_ms) VALUES ($1, $2, $3, $4, $5, $6)`,
        [delivery.delivery_id, attempt, outcome.statusCode, outcome.error, Math.round(outcome.durationMs), outcome.attemptedMs],
      );
      return true;
    });
  }

  /** The deliveries of a run with every attempt, oldest first. */
  async forRun(runId: string): Promise<WebhookDelivery[]> {
    const deliveries = await this.db.query<{ delivery_id: string; run_id: string; url: string; state: DeliveryState; next_attempt_ms: string | number; created_ms: string | number }>(
      'SELECT delivery_id, run_id, url, state, next_attempt_ms, created_ms FROM svc_webhook_deliveries WHERE run_id = $1 ORDER BY created_ms, delivery_id',
      [runId],
    );
    if (deliveries.length === 0) return [];
    const attempts = await this.db.query<{ delivery_id: string; attempt: number | string; status_code: number | string | null; error: string | null; duration_ms: number | string; attempted_ms: number | string }>(
      `SELECT a.delivery_id, a.attempt, a.status_code, a.error, a.duration_ms, a.attempted_ms FROM svc_webhook_attempts a
       JOIN svc_webhook_deliveries d ON d.delivery_id = a.delivery_id WHERE d.run_id = $1 ORDER BY a.attempt`,
      [runId],
    );
    return deliveries.map((d) => ({
      delivery_id: d.delivery_id,
      run_id: d.run_id,
      url: d.url,
      state: d.state,
      attempts: attempts
        .filter((a) => a.delivery_id === d.delivery_id)
        .map((a) => ({
          attempt: Number(a.attempt),
          status_code: a.status_code === null ? null : Number(a.status_code),
          error: a.error,
          duration_ms: Number(a.duration_ms),
          attempted_at: iso(a.attempted_ms)!,
        })),
      next_attempt_at: d.state === 'pending' ? iso(d.next_attempt_ms) : null,
      created_at: iso(d.created_ms)!,
    }));
  }
}
