/**
 * @module auth/service-accounts/revocations
 * Keeps every runtime's cache of verified tokens honest. A revocation is announced on the
 * database's notification bus; each caching runtime drops the token and acknowledges, and the
 * revoking request returns only once every live runtime has (or after a bound, when the laggards
 * are struck off the list of live listeners, which makes them flush their whole cache). A
 * runtime trusts its cache only while its bus is connected and its heartbeat is recent; after a
 * reconnect it flushes, since announcements may have been missed.
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from '../../util/logger.js';
import type { Db } from '../../storage/db.js';
import type { NotificationBus } from '../../storage/notifications.js';

const REVOKED = 'svc_token_revoked';
const ACKS = 'svc_token_acks';

export interface RevocationsOptions {
  /** How often this runtime proves it is listening; default 1 s. */
  heartbeatMs?: number;
  /** A listener silent this long is not waited for; default 3 heartbeats. */
  liveMs?: number;
  /** The longest a revocation waits for acknowledgements; default 2 s. */
  ackTimeoutMs?: number;
}

export class Revocations {
  /** This runtime, as a listener. */
  readonly id = randomUUID();
  private bus: NotificationBus | undefined;
  private readonly evictors = new Set<(hash: string | undefined) => void>();
  private readonly waiters = new Map<string, { pending: Set<string>; done: () => void }>();
  private heartbeat: NodeJS.Timeout | undefined;
  private lastBeatMs = 0;
  private readonly heartbeatMs: number;
  private readonly liveMs: number;
  private readonly ackTimeoutMs: number;
  private stopped = false;

  constructor(
    private readonly db: Db,
    private readonly log: Logger,
    options: RevocationsOptions = {},
  ) {
    this.heartbeatMs = options.heartbeatMs ?? 1000;
    this.liveMs = options.liveMs ?? this.heartbeatMs * 3;
    this.ackTimeoutMs = options.ackTimeoutMs ?? 2000;
  }

  /** Registers what to drop: one token's hash, or everything (undefined). */
  onEvict(evict: (hash: string | undefined) => void): void {
    this.evictors.add(evict);
  }

  /** Starts listening (after migrations: the listener table must exist). */
  async start(): Promise<void> {
    if (this.bus || this.stopped) return;
    const bus = this.db.notifications();
    this.bus = bus;
    bus.subscribe(REVOKED, (payload) => this.received(payload));
    bus.subscribe(ACKS, (payload) => this.acked(payload));
    bus.onReconnect(() => {
      this.evict(undefined);
      void this.beat();
    });
    await this.beat();
    this.heartbeat = setInterval(() => void this.beat(), this.heartbeatMs);
    this.heartbeat.unref();
  }

  /** Whether a cached verification may be used now. */
  trusted(now = Date.now()): boolean {
    return this.bus !== undefined && this.bus.connected && now - this.lastBeatMs < this.liveMs;
  }

  /**
   * Tells every runtime that a token is revoked and waits until each live one has dropped it
   * from its cache (this one included), or until the bound.
   */
  async announce(hash: string): Promise<void> {
    this.evict(hash);
    const bus = this.bus;
    if (!bus) return;
    const nonce = randomUUID();
    const live = await this.db.query<{ listener_id: string }>('SELECT listener_id FROM svc_auth_listeners WHERE seen_ms > $1', [Date.now() - this.liveMs]);
    const pending = new Set(live.map((r) => r.listener_id));
    pending.delete(this.id);
    let timer: NodeJS.Timeout | undefined;
    const settled = new Promise<void>((resolve) => {
      this.waiters.set(nonce, { pending, done: resolve });
      timer = setTimeout(resolve, this.ackTimeoutMs);
    });
    try {
      await bus.publish(REVOKED, JSON.stringify({ hash, nonce, from: this.id }));
      if (pending.size > 0) await settled;
    } finally {
      clearTimeout(timer);
      this.waiters.delete(nonce);
    }
    if (pending.size > 0) {
      // Not heard from in time: off the live list, so they flush everything on their next beat.
      this.log.warn(`token revocation: ${pending.size} runtime(s) did not confirm in time; they will drop their whole token cache`);
      for (const id of pending) await this.db.execute('DELETE FROM svc_auth_listeners WHERE listener_id = $1', [id]).catch(() => undefined);
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.heartbeat);
    await this.db.execute('DELETE FROM svc_auth_listeners WHERE listener_id = $1', [this.id]).catch(() => undefined);
  }

  private received(payload: string): void {
    let message: { hash?: unknown; nonce?: unknown; from?: unknown };
    try {
      message = JSON.parse(payload) as typeof message;
    } catch {
      return;
    }
    if (typeof message.hash !== 'string' || typeof message.nonce !== 'string') return;
    this.evict(message.hash);
    if (message.from === this.id) return;
    void this.bus?.publish(ACKS, `${message.nonce}:${this.id}`).catch(() => undefined);
  }

  private acked(payload: string): void {
    const [nonce, listener] = payload.split(':');
    const waiter = this.waiters.get(nonce ?? '');
    if (!waiter || !listener) return;
    waiter.pending.delete(listener);
    if (waiter.pending.size === 0) waiter.done();
  }

  private evict(hash: string | undefined): void {
    for (const evict of this.evictors) evict(hash);
  }

  private async beat(): Promise<void> {
    // Only a runtime that hears announcements may be waited for (and trust its cache).
    if (this.stopped || !this.bus?.connected) return;
    const now = Date.now();
    try {
      const updated = await this.db.execute('UPDATE svc_auth_listeners SET seen_ms = $1 WHERE listener_id = $2', [now, this.id]);
      if (updated === 0) {
        // New, or struck off by a revoker that did not hear from us: what we cache may be stale.
        if (this.lastBeatMs !== 0) this.evict(undefined);
        await this.db.execute('INSERT INTO svc_auth_listeners (listener_id, seen_ms) VALUES ($1, $2) ON CONFLICT (listener_id) DO UPDATE SET seen_ms = excluded.seen_ms', [
          this.id,
          now,
        ]);
      }
      this.lastBeatMs = now;
    } catch (error) {
      this.log.warn(`token cache heartbeat failed; verifying tokens in the database until it recovers: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
}
