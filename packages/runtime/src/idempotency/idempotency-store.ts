/**
 * @module idempotency/idempotency-store
 * `Idempotency-Key`s (`svc_idempotency_keys`): the first request with a key claims it, for its
 * principal, by inserting the row; the primary key (principal, key) makes that claim atomic on
 * every runtime sharing the database, so concurrent repeats make one run or record. A repeat
 * reads what the first made; a different request under the same key is told apart by its
 * fingerprint. Keys live 24 hours; the run chores delete expired ones.
 */
import type { Db } from '../storage/db.js';

/** How long a key is remembered. */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

/** What the first request with a key answered, for replays of requests that made a record. */
export interface StoredResponse {
  status: number;
  body: string;
}

export interface KeyRef {
  /** Who sent the key: keys of different principals never meet. */
  principal: string;
  key: string;
}

export type Claim =
  /** This request is the first: it makes the run or record. */
  | { kind: 'new' }
  /** A request with the same fingerprint came first: its run id, and its answer once stored. */
  | { kind: 'repeat'; resourceId: string | null; response: StoredResponse | null }
  /** The key was used for another request. */
  | { kind: 'mismatch' };

interface Row {
  fingerprint: string;
  resource_id: string | null;
  response_status: number | string | null;
  response_body: string | null;
}

export class IdempotencyStore {
  constructor(private readonly db: Db) {}

  /** Claims `ref` for a request with this fingerprint, naming the resource it will make when known. */
  async claim(ref: KeyRef, fingerprint: string, resourceId: string | null, nowMs = Date.now()): Promise<Claim> {
    // An expired key is free again, whatever the chores have not deleted yet.
    await this.db.execute('DELETE FROM svc_idempotency_keys WHERE principal = $1 AND idem_key = $2 AND expires_ms < $3', [ref.principal, ref.key, nowMs]);
    const inserted = await this.db.execute(
      `INSERT INTO svc_idempotency_keys (principal, idem_key, fingerprint, resource_id, created_ms, expires_ms)
       VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (principal, idem_key) DO NOTHING`,
      [ref.principal, ref.key, fingerprint, resourceId, nowMs, nowMs + IDEMPOTENCY_TTL_MS],
    );
    if (inserted === 1) return { kind: 'new' };
    const row = await this.read(ref);
    // Released (its request failed) between the insert and this read: claim again.
    if (!row) return this.claim(ref, fingerprint, resourceId, nowMs);
    return row.fingerprint === fingerprint ? toRepeat(row) : { kind: 'mismatch' };
  }

  /** What the first request under `ref` made so far; undefined when the key is free. */
  async repeat(ref: KeyRef): Promise<Extract<Claim, { kind: 'repeat' }> | undefined> {
    const row = await this.read(ref);
    return row ? toRepeat(row) : undefined;
  }

  private async read(ref: KeyRef): Promise<Row | undefined> {
    const [row] = await this.db.query<Row>(
      'SELECT fingerprint, resource_id, response_status, response_body FROM svc_idempotency_keys WHERE principal = $1 AND idem_key = $2',
      [ref.principal, ref.key],
    );
    return row;
  }

  /** Stores the answer the first request gave, for repeats to replay. */
  async complete(ref: KeyRef, response: StoredResponse, resourceId?: string): Promise<void> {
    await this.db.execute(
      'UPDATE svc_idempotency_keys SET response_status = $1, response_body = $2, resource_id = COALESCE($3, resource_id) WHERE principal = $4 AND idem_key = $5',
      [response.status, response.body, resourceId ?? null, ref.principal, ref.key],
    );
  }

  /** Frees a key whose first request failed before making anything, so a retry may try again. */
  async release(ref: KeyRef): Promise<void> {
    await this.db.execute('DELETE FROM svc_idempotency_keys WHERE principal = $1 AND idem_key = $2', [ref.principal, ref.key]);
  }

  /** Deletes keys older than their 24 hours; answers how many. */
  async deleteExpired(nowMs = Date.now()): Promise<number> {
    return this.db.execute('DELETE FROM svc_idempotency_keys WHERE expires_ms < $1', [nowMs]);
  }
}

function toRepeat(row: Row): Extract<Claim, { kind: 'repeat' }> {
  const response = row.response_status !== null && row.response_body !== null ? { status: Number(row.response_status), body: row.response_body } : null;
  return { kind: 'repeat', resourceId: row.resource_id, response };
}
