/**
 * @module util/ids
 * Ids of rows written at a high rate (runs, sessions, trace spans) are UUIDv7 (RFC 9562): still
 * UUIDs to every client, but they begin with the time they were made, so each new row lands at
 * the end of its primary-key index instead of on a random page. Random v4 keys dirtied a page
 * per index per row, which was half of what writing a run's trace cost SQLite.
 *
 * Made from Node's `randomUUID`, which draws from a pooled entropy cache: the `uuid` package's
 * v7 fills 16 fresh bytes per id, a system call each, and that showed in the run profile.
 */
import { randomUUID } from 'node:crypto';

let prefixMs = -1;
let prefix = '';

/** A UUIDv7: 48 bits of Unix milliseconds, the version, then 74 random bits (the variant kept). */
export function timeOrderedId(now = Date.now()): string {
  // The time part is made once per millisecond: formatting it costs more than the random part.
  if (now !== prefixMs) {
    const time = now.toString(16).padStart(12, '0');
    prefix = `${time.slice(0, 8)}-${time.slice(8, 12)}-7`;
    prefixMs = now;
  }
  return prefix + randomUUID().slice(15);
}
