import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { describe, expect, it } from 'vitest';
import { McpConnection } from './connection.js';

/** A transport that cannot start, counting the attempts. */
function refusing(attempts: { count: number }): () => Transport {
  return () => ({
    start: async () => {
      attempts.count += 1;
      throw new Error('connect ECONNREFUSED 127.0.0.1:9');
    },
    send: async () => {},
    close: async () => {},
  });
}

describe('an MCP connection that fails', () => {
  it('tries again at once after the first failure, then waits a doubling backoff without trying', async () => {
    const attempts = { count: 0 };
    const connection = new McpConnection({ server: 'down', transport: refusing(attempts), restartOnExit: false, connectTimeoutMs: 1000 });
    await expect(connection.connected()).rejects.toThrow('MCP server "down" failed: connect ECONNREFUSED 127.0.0.1:9');
    await expect(connection.connected()).rejects.toThrow('ECONNREFUSED');
    expect(attempts.count).toBe(2);
    await expect(connection.connected()).rejects.toThrow(/^MCP server "down" is unavailable \(MCP server "down" failed: connect ECONNREFUSED 127\.0\.0\.1:9\); the next attempt is in 1 s$/);
    expect(attempts.count).toBe(2);
    expect(connection.status).toBe('failed');
    await new Promise((r) => setTimeout(r, 550));
    await expect(connection.connected()).rejects.toThrow('ECONNREFUSED');
    expect(attempts.count).toBe(3);
    // Third failure: one second now.
    await new Promise((r) => setTimeout(r, 550));
    await expect(connection.connected()).rejects.toThrow(/unavailable/);
    expect(attempts.count).toBe(3);
  });

  it('refuses every use once closed', async () => {
    const connection = new McpConnection({ server: 'gone', transport: refusing({ count: 0 }), restartOnExit: false, connectTimeoutMs: 1000 });
    await connection.close();
    await expect(connection.connected()).rejects.toThrow('MCP server "gone" is shut down');
  });
});
