/**
 * @module storage/postgres/pg-bus
 * LISTEN/NOTIFY on a connection of its own (a pooled connection cannot stay subscribed). The
 * connection opens on the first subscription; when it drops, the bus reports itself down,
 * reconnects with backoff, subscribes again and tells its subscribers that messages may have
 * been lost meanwhile.
 */
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { Subscribers, checkChannel, type NotificationBus } from '../notifications.js';

export class PgBus implements NotificationBus {
  private readonly subscribers = new Subscribers();
  private client: pg.Client | undefined;
  private connecting: Promise<void> | undefined;
  private closed = false;
  private delayMs = 250;
  private retry: NodeJS.Timeout | undefined;
  connected = false;
  /** Names this bus's connection in pg_stat_activity (operators, and tests that cut it). */
  readonly applicationName = `svc-bus-${randomUUID().slice(0, 8)}`;

  constructor(
    private readonly url: string,
    private readonly publishQuery: (sql: string, params: string[]) => Promise<unknown>,
  ) {}

  subscribe(channel: string, handler: (payload: string) => void): () => void {
    const isNew = !this.subscribers.channels().includes(checkChannel(channel));
    const off = this.subscribers.add(channel, handler);
    if (isNew && this.client && this.connected) void this.client.query(`LISTEN ${channel}`).catch(() => this.lost());
    void this.ensure();
    return off;
  }

  onReconnect(handler: () => void): () => void {
    return this.subscribers.addReconnect(handler);
  }

  async publish(channel: string, payload: string): Promise<void> {
    await this.publishQuery('SELECT pg_notify($1, $2)', [checkChannel(channel), payload]);
  }

  /** Resolves once listening (or once the first attempt failed; retries continue in the background). */
  ensure(): Promise<void> {
    if (this.closed || this.client) return this.connecting ?? Promise.resolve();
    this.connecting = this.connect().finally(() => (this.connecting = undefined));
    return this.connecting;
  }

  private async connect(): Promise<void> {
    const client = new pg.Client({ connectionString: this.url, connectionTimeoutMillis: 10_000, application_name: this.applicationName });
    this.client = client;
    client.on('notification', (message) => this.subscribers.dispatch(message.channel, message.payload ?? ''));
    client.on('error', () => this.lost(client));
    client.on('end', () => this.lost(client));
    try {
      await client.connect();
      for (const channel of this.subscribers.channels()) await client.query(`LISTEN ${channel}`);
    } catch {
      this.lost(client);
      return;
    }
    if (this.closed || this.client !== client) return;
    this.connected = true;
    this.delayMs = 250;
    this.subscribers.reconnected();
  }

  private lost(client: pg.Client | undefined = this.client): void {
    if (!client || this.client !== client) return;
    this.connected = false;
    this.client = undefined;
    client.removeAllListeners('notification');
    client.end().catch(() => {});
    if (this.closed) return;
    clearTimeout(this.retry);
    this.retry = setTimeout(() => void this.ensure(), this.delayMs);
    this.retry.unref();
    this.delayMs = Math.min(this.delayMs * 2, 5000);
  }

  async close(): Promise<void> {
    this.closed = true;
    this.connected = false;
    clearTimeout(this.retry);
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => {});
  }
}
