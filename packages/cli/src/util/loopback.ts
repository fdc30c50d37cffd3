/**
 * Which hosts count as "this machine". Credentials may travel over plain HTTP only to these,
 * and URLs from files need no trust confirmation when they point here.
 */
const OCTET = '(25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)';
const IPV4 = new RegExp(`^${OCTET}(\\.${OCTET}){3}$`);

/**
 * Checked by hand rather than with node:net's isIP: commands that never open a connection
 * should not load node:net, and its IPv6 pattern costs milliseconds the first time it runs.
 */
export function isLoopbackHost(host: string | undefined): boolean {
  if (!host) return false;
  let h = host.toLowerCase();
  if (h.startsWith('[') && h.endsWith(']')) h = h.slice(1, -1);
  if (h === 'localhost') return true;
  if (IPV4.test(h)) return h.startsWith('127.') || h === '0.0.0.0';
  // Hosts come from URL parsing, which already normalises IPv6 spellings to ::1 and ::.
  return h === '::1' || h === '::';
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

/**
 * One endpoint under every spelling: the dedup key plus the path without trailing slashes, so
 * `http://localhost:7777/mcp/` and `http://127.0.0.1:7777/mcp` are the same MCP server.
 */
export function endpointKey(url: string): string {
  try {
    return `${dedupKey(url)}${new URL(url).pathname.replace(/\/+$/, '')}`;
  } catch {
    return url;
  }
}

export function sameEndpoint(a: string, b: string): boolean {
  return endpointKey(a) === endpointKey(b);
}
