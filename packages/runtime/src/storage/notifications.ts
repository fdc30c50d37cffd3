/**
 * @module storage/notifications
 * Messages between the runtimes sharing a database. On PostgreSQL they travel through
 * LISTEN/NOTIFY; on SQLite (one process by design) they stay inside the process, shared by every
 * connection to the same file. Subscribers must allow for loss: while `connected` is false, or
 * around a reconnect, a message may not arrive, so whatever relies on them (a cache) must stop
 * trusting itself then.
 */

export interface NotificationBus {
  /** True while a message published now reaches every subscriber of every runtime. */
  readonly connected: boolean;
  /** Channel names are internal constants: lower-case letters and underscores. */
  subscribe(channel: string, handler: (payload: string) => void): () => void;
  /** Called when the bus comes (back) up: messages sent while it was down were lost. */
  onReconnect(handler: () => void): () => void;
  publish(channel: string, payload: string): Promise<void>;
  close(): Promise<void>;
}

const CHANNEL = /^[a-z_]{1,63}$/;

export function checkChannel(channel: string): string {
  if (!CHANNEL.test(channel)) throw new TypeError(`Invalid notification channel "${channel}"`);
  return channel;
}

/** Subscribers by channel, dispatching each message to all of them; a throwing one is isolated. */
export class Subscribers {
  private readonly byChannel = new Map<string, Set<(payload: string) => void>>();
  private readonly reconnects = new Set<() => void>();

  add(channel: string, handler: (payload: string) => void): () => void {
    let set = this.byChannel.get(checkChannel(channel));
    if (!set) this.byChannel.set(channel, (set = new Set()));
    set.add(handler);
    return () => set.delete(handler);
  }

  addReconnect(handler: () => void): () => void {
    this.reconnects.add(handler);
    return () => this.reconnects.delete(handler);
  }

  channels(): string[] {
    return [...this.byChannel.keys()];
  }

  dispatch(channel: string, payload: string): void {
    for (const handler of this.byChannel.get(channel) ?? []) {
      try {
        handler(payload);
      } catch {
        // One subscriber's bug must not keep the message from the others.
      }
    }
  }

  reconnected(): void {
    for (const handler of this.reconnects) {
      try {
        handler();
      } catch {
        // As above.
      }
    }
  }
}
