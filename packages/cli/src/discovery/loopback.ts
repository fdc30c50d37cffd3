/**
 * Which hosts count as "this machine". Credentials may travel over plain HTTP only to these,
 * and URLs from files need no trust confirmation when they point here.
 */
import { isIP } from 'node:net';

export function isLoopbackHost(host: string | undefined): boolean {
  if (!host) return false;
  let h = host.toLowerCase();
  if (h.startsWith('[') && h.endsWith(']')) h = h.slice(1, -1);
  if (h === 'localhost') return true;
  const kind = isIP(h);
  if (kind === 4) return h.startsWith('127.') || h === '0.0.0.0';
  // Hosts come from URL parsing, which already normalises IPv6 spellings to ::1 and ::.
  if (kind === 6) return h === '::1' || h === '::';
  return false;
}

export function isLoopbackUrl(url: string): boolean {
  try {
    return isLoopbackHost(new URL(url).hostname);
  } catch {
    return false;
  }
}

/** Candidates that name the same server (127.0.0.1 vs localhost) collapse to one key. */
export function dedupKey(url: string): string {
  try {
    const u = new URL(url);
    const host = isLoopbackHost(u.hostname) ? 'loopback' : u.hostname.toLowerCase();
    return `${u.protocol.toLowerCase()}//${host}:${u.port}`;
  } catch {
    return url;
  }
}
