/**
 * @module mcp/in-flight
 * Tool calls in progress, by the client connection and JSON-RPC id that made them. The endpoint
 * is stateless (a fresh MCP server per HTTP request), so the server that receives a client's
 * `notifications/cancelled` is not the one running the call it names: this registry, shared by
 * every request of the endpoint, connects the two. Across runtimes the same digest is stored
 * with the run, so another runtime can find it in the database.
 */
import { createHash } from 'node:crypto';
import type { Principal } from '../auth/principal.js';

/**
 * Who is on the other end: the authenticated identity plus the MCP session id the client echoes.
 * Request ids restart at 0 in every client, so an id alone would let one client cancel another's
 * call; a session id guessed without the identity is not enough either.
 */
export function connectionKey(principal: Principal | undefined, mcpSessionId: string | undefined): string {
  const who = principal ? `${principal.kind}:${principal.userId ?? ''}:${principal.serviceAccount ?? ''}` : 'anonymous';
  return createHash('sha256').update(`${who}\n${mcpSessionId ?? ''}`).digest('hex');
}

/** The digest naming one request of one connection (string and number ids differ, as in JSON-RPC). */
export function requestDigest(connection: string, requestId: string | number): string {
  return createHash('sha256').update(`${connection}\n${JSON.stringify(requestId)}`).digest('hex');
}

interface Entry {
  connection: string;
  cancel: (reason: string) => void;
}

export class InFlightCalls {
  private readonly calls = new Map<string, Entry>();

  /** Registers a call; the returned function unregisters it. */
  add(digest: string, connection: string, cancel: (reason: string) => void): () => void {
    const entry = { connection, cancel };
    this.calls.set(digest, entry);
    return () => {
      if (this.calls.get(digest) === entry) this.calls.delete(digest);
    };
  }

  /** Cancels the call of this digest in this process; false when it is not running here. */
  cancel(digest: string, reason: string): boolean {
    const entry = this.calls.get(digest);
    if (!entry) return false;
    entry.cancel(reason);
    return true;
  }

  /** Cancels every call of a connection (the client ended its MCP session). */
  cancelConnection(connection: string, reason: string): number {
    let count = 0;
    for (const entry of this.calls.values()) {
      if (entry.connection !== connection) continue;
      entry.cancel(reason);
      count += 1;
    }
    return count;
  }

  get size(): number {
    return this.calls.size;
  }
}
