/**
 * @module mcp-client/connection
 * One client connection to one MCP server (for one user, when its headers are per user): made
 * on first use and reused; its tool list cached until the server says it changed
 * (`notifications/tools/list_changed`); after a failure the next attempt waits a backoff that
 * doubles from 0.5 s to 30 s. A stdio server that stops by itself is started again at once (then
 * after the backoff); the calls it was answering fail as tool errors the model reads.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ToolListChangedNotificationSchema, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { PACKAGE_VERSION } from '../version.js';
import { describeMcpError } from './errors.js';

export type ConnectionStatus = 'idle' | 'connecting' | 'connected' | 'failed' | 'closed';

export interface ConnectionOptions {
  /** The server's id, for messages. */
  server: string;
  /** A fresh transport for each attempt. */
  transport: () => Transport;
  /** Start again by itself after the server stopped (stdio); else on next use. */
  restartOnExit: boolean;
  connectTimeoutMs: number;
}

const MAX_BACKOFF_MS = 30_000;

export class McpConnection {
  status: ConnectionStatus = 'idle';
  lastError: string | undefined;
  /** The last tool list the server sent, until it says the list changed. */
  tools: Tool[] | undefined;
  lastUsed = Date.now();
  private client: Client | undefined;
  private connecting: Promise<Client> | undefined;
  private failures = 0;
  private nextAttemptAt = 0;
  private restartTimer: NodeJS.Timeout | undefined;
  private transport: Transport | undefined;

  constructor(private readonly options: ConnectionOptions) {}

  /** The process id of a stdio server's watchdog, while it runs. */
  get pid(): number | undefined {
    return (this.transport as { pid?: number | null } | undefined)?.pid ?? undefined;
  }

  /** The connected client, connecting first if needed; a tool error's text when that fails. */
  async connected(): Promise<Client> {
    this.lastUsed = Date.now();
    if (this.status === 'closed') throw new Error(`MCP server "${this.options.server}" is shut down`);
    if (this.client) return this.client;
    if (this.connecting) return this.connecting;
    const wait = this.nextAttemptAt - Date.now();
    if (wait > 0) {
      throw new Error(`MCP server "${this.options.server}" is unavailable (${this.lastError ?? 'it failed'}); the next attempt is in ${Math.ceil(wait / 1000)} s`);
    }
    this.connecting = this.connect().finally(() => (this.connecting = undefined));
    return this.connecting;
  }

  /** The server's tools (every page), from the cache when it still holds. */
  async listTools(): Promise<Tool[]> {
    if (this.tools && this.client) return this.tools;
    const client = await this.connected();
    const tools: Tool[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor ? { cursor } : {}, { timeout: this.options.connectTimeoutMs });
      tools.push(...page.tools);
      cursor = page.nextCursor;
    } while (cursor);
    this.tools = tools;
    return tools;
  }

  /**
   * The connection broke under a call (an HTTP server that restarted and forgot the session, a
   * refused connection): it is dropped, and the next use connects again after the backoff.
   */
  async drop(message: string): Promise<void> {
    const client = this.client;
    if (!client || this.status === 'closed') return;
    this.client = undefined;
    this.tools = undefined;
    this.failed(message);
    await client.close().catch(() => {});
  }

  /** A call went through: the backoff starts over. */
  succeeded(): void {
    this.failures = 0;
  }

  async close(): Promise<void> {
    this.status = 'closed';
    clearTimeout(this.restartTimer);
    const client = this.client ?? (await this.connecting?.catch(() => undefined));
    this.client = undefined;
    const pid = this.pid;
    // The watchdog ends the server's whole process group on SIGTERM; without this the SDK would
    // first wait two seconds for the server to notice its stdin closed.
    if (pid) {
      try {
        process.kill(pid, 'SIGTERM');
      } catch {
        // already gone
      }
    }
    await client?.close().catch(() => {});
  }

  private async connect(): Promise<Client> {
    this.status = 'connecting';
    const client = new Client({ name: 'svc-runtime', version: PACKAGE_VERSION }, { capabilities: {} });
    const transport = this.options.transport();
    this.transport = transport;
    let cannotStart: string | undefined;
    // A stdio server's stderr is read and dropped (it may print anything, secrets included),
    // except the watchdog's own line saying the command could not be started.
    (transport as { stderr?: NodeJS.ReadableStream | null }).stderr?.on('data', (chunk: Buffer) => {
      cannotStart ??= /^cannot start .*$/m.exec(chunk.toString())?.[0];
    });
    try {
      await client.connect(transport, { timeout: this.options.connectTimeoutMs });
    } catch (error) {
      // Its line may come a moment after the pipe closed.
      await new Promise((r) => setTimeout(r, 50));
      this.failed(cannotStart ? `MCP server "${this.options.server}" failed: ${cannotStart}` : describeMcpError(this.options.server, error));
      await client.close().catch(() => {});
      throw new Error(this.lastError, { cause: error });
    }
    // Closed while connecting (the runtime shut down meanwhile).
    if ((this.status as ConnectionStatus) === 'closed') {
      await client.close().catch(() => {});
      throw new Error(`MCP server "${this.options.server}" is shut down`);
    }
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      this.tools = undefined;
      // Fetched again now, so the next run starts with the new list without waiting for it.
      void this.listTools().catch(() => {});
    });
    // The SDK's Protocol calls this one handler when its transport closes (no event target).
    // oxlint-disable-next-line unicorn/prefer-add-event-listener
    client.onclose = () => {
      if (this.client !== client) return;
      this.client = undefined;
      this.tools = undefined;
      if (this.status === 'closed') return;
      this.failed(`MCP server "${this.options.server}" stopped`);
      if (this.options.restartOnExit) this.scheduleRestart();
    };
    this.client = client;
    this.status = 'connected';
    this.lastError = undefined;
    return client;
  }

  private failed(message: string): void {
    this.status = 'failed';
    this.lastError = message;
    this.failures += 1;
    this.nextAttemptAt = Date.now() + (this.failures === 1 ? 0 : Math.min(MAX_BACKOFF_MS, 500 * 2 ** (this.failures - 2)));
  }

  private scheduleRestart(): void {
    clearTimeout(this.restartTimer);
    this.restartTimer = setTimeout(() => {
      if (this.status === 'closed' || this.client || this.connecting) return;
      this.connecting = this.connect().finally(() => (this.connecting = undefined));
      this.connecting.then(
        () => this.listTools().catch(() => {}),
        () => this.scheduleRestart(),
      );
    }, Math.max(0, this.nextAttemptAt - Date.now()));
    this.restartTimer.unref();
  }
}
