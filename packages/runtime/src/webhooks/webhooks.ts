/**
 * @module webhooks/webhooks
 * Webhooks: a run request (or a schedule) names a URL, which receives the ended run as a signed
 * POST. The request is checked before the run starts (WEBHOOK_SECRET set, the URL one the SSRF
 * guard lets through); the delivery is a row in the database, sent by whichever runtime takes it
 * first once the run has ended (a poll every second, at once after a run of this process ends),
 * retried with exponential backoff on a non-2xx answer, a timeout or a refused connection, at most
 * WEBHOOK_MAX_ATTEMPTS times. Every attempt is recorded (GET .../runs/{run_id}/webhooks).
 */
import { randomUUID } from 'node:crypto';
import { RuntimeError, unprocessable } from '../errors.js';
import { backoffDelay } from '../net/retry.js';
import { checkUrl, safeFetch } from '../net/safe-fetch.js';
import { toRunResponse } from '../run/run-response.js';
import type { SessionStore } from '../sessions/session-store.js';
import type { WebhookSettings } from '../settings/webhooks.js';
import type { Db } from '../storage/db.js';
import type { Logger } from '../util/logger.js';
import { DeliveryStore, type AttemptOutcome, type DueDelivery, type WebhookDelivery } from './delivery-store.js';
import { SIGNATURE_HEADER, signWebhook } from './signature.js';

const POLL_MS = 1000;
const BATCH = 20;
const MAX_BACKOFF_MS = 3_600_000;
/** A receiver's answer is read only this far: nothing in it matters beyond its status. */
const MAX_ANSWER_BYTES = 64 * 1024;
export const WEBHOOK_USER_AGENT = 'svc-runtime-webhooks/1';

export interface WebhooksOptions {
  db: Db;
  sessions: SessionStore;
  settings: WebhookSettings;
  log: Logger;
}

export class Webhooks {
  readonly store: DeliveryStore;
  private readonly owner = randomUUID();
  private timer: NodeJS.Timeout | undefined;
  private running = false;
  private pass: Promise<void> | undefined;
  private again = false;
  private readonly inFlight = new AbortController();

  constructor(private readonly options: WebhooksOptions) {
    this.store = new DeliveryStore(options.db);
  }

  /**
   * The URL a request names, refused before anything starts: 422 when no WEBHOOK_SECRET is set
   * (a receiver could not tell our deliveries from anyone's), 400 when the SSRF guard refuses it.
   */
  async check(url: string): Promise<string> {
    const { secret, allowPrivateHosts } = this.options.settings;
    if (!secret) throw unprocessable('Webhooks are off on this runtime: set WEBHOOK_SECRET (at least 16 characters) to sign deliveries, then name a webhook');
    try {
      return (await checkUrl(url, { allowPrivateHosts, timeoutMs: 5000 })).href;
    } catch (error) {
      const detail = RuntimeError.isInstance(error) ? error.message.replace(/; set allowPrivateHosts.*$/, '') : 'the URL cannot be checked';
      const hint = allowPrivateHosts ? '' : ' (loopback and private receivers need WEBHOOK_ALLOW_PRIVATE_HOSTS=true)';
      throw new RuntimeError('BAD_REQUEST', `Webhook URL refused: ${detail}${hint}`, { cause: error });
    }
  }

  /** Records that `runId`'s end goes to `url` (checked by `check`). */
  async register(runId: string, url: string): Promise<void> {
    await this.store.register(runId, url);
  }

  /** A run of this process ended: look for due deliveries now rather than at the next poll. */
  nudge(): void {
    if (this.running) void this.runPass();
  }

  deliveries(runId: string): Promise<WebhookDelivery[]> {
    return this.store.forRun(runId);
  }

  /** Polls for due deliveries; not without WEBHOOK_SECRET (a runtime that has it delivers them). */
  start(): void {
    if (this.running || !this.options.settings.secret) return;
    this.running = true;
    const tick = (): void => {
      this.timer = setTimeout(() => void this.runPass().finally(() => this.running && tick()), POLL_MS);
      this.timer.unref();
    };
    tick();
  }

  /** Stops polling and waits for the attempts in flight (aborted after `boundMs`). */
  async stop(boundMs = 5000): Promise<void> {
    this.running = false;
    clearTimeout(this.timer);
    const abort = setTimeout(() => this.inFlight.abort(new RuntimeError('SERVICE_UNAVAILABLE', 'runtime shutting down')), boundMs);
    await this.pass?.catch(() => undefined);
    clearTimeout(abort);
  }

  /** One pass over the due deliveries; a nudge during a pass runs another after it. */
  private runPass(): Promise<void> {
    if (this.pass) {
      this.again = true;
      return this.pass;
    }
    this.pass = (async () => {
      do {
        this.again = false;
        try {
          const due = await this.store.due(Date.now(), BATCH);
          await Promise.all(due.map((d) => this.attempt(d).catch((error: unknown) => this.options.log.warn(`webhook delivery ${d.delivery_id}: ${(error as Error).message}`))));
        } catch (error) {
          this.options.log.warn(`webhook deliveries: ${(error as Error).message}`);
        }
      } while (this.again && this.running);
    })().finally(() => (this.pass = undefined));
    return this.pass;
  }

  private async attempt(delivery: DueDelivery): Promise<void> {
    const { settings, sessions, log } = this.options;
    const now = Date.now();
    if (!(await this.store.claim(delivery, this.owner, now, now + settings.timeoutMs + 30_000))) return;
    const attempt = delivery.attempts + 1;
    const run = await sessions.getRun(delivery.run_id);
    const outcome = run
      ? await this.send(delivery, attempt, JSON.stringify({ event: `run.${run.status.toLowerCase()}`, delivery_id: delivery.delivery_id, attempt, run: toRunResponse(run) }))
      : { statusCode: null, error: 'the run no longer exists', durationMs: 0, attemptedMs: now, ok: false, final: true };
    const last = outcome.final || attempt >= settings.maxAttempts;
    const next = outcome.ok || last ? outcome.attemptedMs : Date.now() + Math.round(backoffDelay({ baseDelayMs: settings.retryBaseMs, maxBackoffMs: MAX_BACKOFF_MS }, attempt - 1));
    const recorded: AttemptOutcome = { ...outcome, state: outcome.ok ? 'delivered' : last ? 'failed' : 'pending', nextAttemptMs: next };
    if (!(await this.store.record(delivery, this.owner, attempt, recorded))) log.warn(`webhook delivery ${delivery.delivery_id}: the lease ran out during attempt ${attempt}`);
    else if (recorded.state === 'failed') log.warn(`webhook delivery ${delivery.delivery_id} to ${delivery.url} failed after ${attempt} attempt(s): ${outcome.error ?? outcome.statusCode}`);
  }

  private async send(delivery: DueDelivery, attempt: number, body: string): Promise<{ statusCode: number | null; error: string | null; durationMs: number; attemptedMs: number; ok: boolean; final: boolean }> {
    const { settings } = this.options;
    const attemptedMs = Date.now();
    const started = performance.now();
    try {
      const answer = await safeFetch(delivery.url, {
        method: 'POST',
        body,
        headers: {
          'content-type': 'application/json',
          'user-agent': WEBHOOK_USER_AGENT,
          [SIGNATURE_HEADER]: signWebhook(settings.secret ?? '', body, Math.floor(attemptedMs / 1000)),
          'X-Svc-Delivery': delivery.delivery_id,
          'X-Svc-Attempt': String(attempt),
        },
        maxBytes: MAX_ANSWER_BYTES,
        truncate: true,
        allowHttpErrors: true,
        // A redirect would turn the POST into a GET elsewhere: it counts as a failed attempt.
        returnRedirects: true,
        allowPrivateHosts: settings.allowPrivateHosts,
        timeoutMs: settings.timeoutMs,
        connectTimeoutMs: settings.timeoutMs,
        signal: this.inFlight.signal,
      });
      const ok = answer.status >= 200 && answer.status < 300;
      return { statusCode: answer.status, error: ok ? null : `HTTP ${answer.status}`, durationMs: performance.now() - started, attemptedMs, ok, final: false };
    } catch (error) {
      const message = RuntimeError.isInstance(error) || error instanceof Error ? error.message : String(error);
      return { statusCode: null, error: message, durationMs: performance.now() - started, attemptedMs, ok: false, final: false };
    }
  }
}
