/**
 * @module util/loopback
 * Whether a URL's host is this machine by name or address, where plain http never leaves it:
 * the rule for sending a credential over http (a local whisper server, a loopback fake of a
 * cloud API), and nothing else.
 */

/**
 * `localhost`, `::1` and 127.0.0.0/8. Names under `.localhost` are not trusted: a resolver may
 * send them anywhere, and a credential must not follow.
 */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  return host === 'localhost' || host === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}
