/**
 * @module storage/sqlite/local-bus
 * The notification bus of SQLite: one per database file in this process, so two runtimes on one
 * file in one process (tests, embedded use) hear each other. Delivery is synchronous, within
 * `publish`, so it never misses anything and is always connected.
 */
import { Subscribers, checkChannel, type NotificationBus } from '../notifications.js';

const buses = new Map<string, Subscribers>();

export function localBus(path: string): NotificationBus {
  // Every :memory: database is a different database.
  let subscribers = path === ':memory:' ? new Subscribers() : buses.get(path);
  if (!subscribers) buses.set(path, (subscribers = new Subscribers()));
  const shared = subscribers;
  const mine = new Set<() => void>();
  return {
    connected: true,
    subscribe(channel, handler) {
      const off = shared.add(channel, handler);
      mine.add(off);
      return () => {
        off();
        mine.delete(off);
      };
    },
    onReconnect() {
      // Never disconnected, so never reconnected.
      return () => {};
    },
    async publish(channel, payload) {
      shared.dispatch(checkChannel(channel), payload);
    },
    async close() {
      for (const off of mine) off();
      mine.clear();
    },
  };
}
