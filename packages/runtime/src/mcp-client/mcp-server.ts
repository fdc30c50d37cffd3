/**
 * @module mcp-client/mcp-server
 * `mcpServer(...)`: an MCP server as a source of an agent's tools, reached through the official
 * SDK client over stdio (a command the runtime spawns under a watchdog) or streamable HTTP (a URL
 * behind the SSRF guard). Tools are listed at the start of each run and called with the run's
 * signal (cancelling the run sends `notifications/cancelled`), a timeout, and progress reported
 * as run events. With `headers(ctx)`, each user has a connection and MCP session of their own.
 *
 * @example
 * ```ts
 * const files = mcpServer({ id: 'files', command: 'npx', args: ['@modelcontextprotocol/server-filesystem', '/srv/docs'] });
 * const tracker = mcpServer({
 *   id: 'tracker',
 *   url: 'https://mcp.tracker.example/mcp',
 *   headers: ({ userId }) => ({ authorization: `Bearer ${tokens.forUser(userId)}` }),
 *   requiresConfirmation: ['delete_issue'],
 * });
 * new Agent({ id: 'helper', tools: [files, tracker] });
 * ```
 */
import { ClientCredentialsProvider } from '@modelcontextprotocol/sdk/client/auth-extensions.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, McpError, type CallToolResult, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { guardedFetch } from '../net/guarded-fetch.js';
import { parseUrl } from '../net/safe-fetch.js';
import type { AnyFunctionTool, ToolContext } from '../tools/function-tool.js';
import type { ToolSource, ToolSourceContext } from '../tools/tool-source.js';
import { McpConnection } from './connection.js';
import { describeMcpError } from './errors.js';
import { toFunctionTool, unavailableTool } from './mcp-tool.js';
import { DEFAULT_CALL_TIMEOUT_MS, DEFAULT_CONNECT_TIMEOUT_MS, type HttpMcpServerOptions, type McpHeaders, type McpServerOptions, type StdioMcpServerOptions } from './options.js';
import { DEFAULT_MAX_MEDIA_BYTES, maxMediaBytesSetting, privateHostsSetting, type McpClientHost } from './settings.js';
import { supervised } from './watchdog.js';

const SERVER_ID = /^[A-Za-z0-9_.-]{1,64}$/;
/** Per-user connections kept at most; the least recently used one is closed past it. */
const MAX_USER_CONNECTIONS = 200;
const SHARED = '';

export class McpServerSource implements ToolSource {
  readonly kind = 'tool-source' as const;
  readonly id: string;
  private readonly connections = new Map<string, McpConnection>();
  /** The headers each user's connection sends, from `headers(ctx)` at the start of their last run. */
  private readonly userHeaders = new Map<string, McpHeaders>();
  private host: McpClientHost = { env: process.env };
  private lastError: string | undefined;
  private maxMediaBytes = DEFAULT_MAX_MEDIA_BYTES;

  constructor(private readonly options: McpServerOptions) {
    if (!SERVER_ID.test(options.id ?? '')) throw new TypeError(`MCP server id "${options.id}" must be 1-64 letters, digits, "_", "-" or "."`);
    if ('url' in options && 'command' in options) throw new TypeError(`MCP server "${options.id}": give a command (stdio) or a url (HTTP), not both`);
    if (options.maxMediaBytes !== undefined && !(Number.isSafeInteger(options.maxMediaBytes) && options.maxMediaBytes >= 0)) {
      throw new TypeError(`MCP server "${options.id}": maxMediaBytes must be a whole number of bytes (0 sends no media)`);
    }
    this.maxMediaBytes = options.maxMediaBytes ?? DEFAULT_MAX_MEDIA_BYTES;
    if ('url' in options) parseUrl(options.url);
    else if (!options.command) throw new TypeError(`MCP server "${options.id}" needs a command or a url`);
    this.id = options.id;
  }

  /** Called by the runtime that hosts the agent: its settings (private hosts) and logger. */
  attach(host: McpClientHost): void {
    // A bad setting stops the runtime from starting, rather than being found by a run.
    this.maxMediaBytes = this.options.maxMediaBytes ?? maxMediaBytesSetting(host.env);
    this.host = host;
  }

  async tools(context: ToolSourceContext): Promise<AnyFunctionTool[]> {
    const prefix = this.options.prefix ?? '';
    const key = await this.connectionKey(context);
    if (key === undefined) return [unavailableTool(prefix, this.id, this.lastError ?? 'no headers')];
    const connection = this.connection(key);
    let listed: Tool[];
    try {
      listed = await withTimeout(connection.listTools(), this.connectTimeoutMs, `MCP server "${this.id}" did not list its tools within ${this.connectTimeoutMs} ms`);
      connection.succeeded();
      this.lastError = undefined;
    } catch (error) {
      this.lastError = describeMcpError(this.id, error);
      this.host.log?.warn(`${this.lastError} (run ${context.runId})`);
      // Not the list seen last (it may be stale): the model is told the server's tools are missing, and why.
      return [unavailableTool(prefix, this.id, this.lastError)];
    }
    const { maxMediaBytes } = this;
    // A tool that runs only as a task (the protocol's experimental tasks) cannot be called here.
    return listed.filter((t) => this.offered(t.name) && t.execution?.taskSupport !== 'required').map((t) =>
      toFunctionTool(t, {
        prefix,
        requiresConfirmation: this.needsConfirmation(t.name),
        maxMediaBytes,
        call: (name, args, toolContext) => this.call(connection, name, args, toolContext),
      }),
    );
  }

  describe(): Record<string, unknown> {
    const all = [...this.connections.values()];
    const status = all.some((c) => c.status === 'connected') ? 'connected' : (all.at(-1)?.status ?? 'idle');
    const tools = all.find((c) => c.tools)?.tools;
    const error = this.lastError ?? all.find((c) => c.lastError)?.lastError;
    return {
      id: this.id,
      transport: 'url' in this.options ? 'streamable-http' : 'stdio',
      // The origin and path only: a query string may carry a key. A command, not its arguments.
      ...('url' in this.options ? { url: urlWithoutSecrets(this.options.url) } : { command: this.options.command }),
      status,
      per_user: 'url' in this.options && typeof this.options.headers === 'function',
      connections: all.filter((c) => c.status === 'connected').length,
      tools: tools ? tools.filter((t) => this.offered(t.name)).map((t) => ({ name: `${this.options.prefix ?? ''}${t.name}`, requires_confirmation: this.needsConfirmation(t.name) })) : null,
      ...(error ? { error } : {}),
    };
  }

  /** The process ids of running stdio servers' watchdogs (the server runs in its process group). */
  pids(): number[] {
    return [...this.connections.values()].flatMap((c) => (c.pid ? [c.pid] : []));
  }

  async close(): Promise<void> {
    const all = [...this.connections.values()];
    this.connections.clear();
    await Promise.all(all.map((c) => c.close()));
  }

  private get connectTimeoutMs(): number {
    return this.options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
  }

  private offered(name: string): boolean {
    if (this.options.include && !this.options.include.includes(name)) return false;
    return !this.options.exclude?.includes(name);
  }

  private needsConfirmation(name: string): boolean {
    const rule = this.options.requiresConfirmation;
    return rule === true || (Array.isArray(rule) && rule.includes(name));
  }

  /** Which connection a run uses: its user's own when headers are per user, else the shared one. */
  private async connectionKey(context: ToolSourceContext): Promise<string | undefined> {
    const options = this.options;
    if (!('url' in options) || typeof options.headers !== 'function') return SHARED;
    const key = `user:${context.userId ?? `(${context.principal?.kind ?? 'anonymous'})`}`;
    try {
      const headers = await options.headers({
        runId: context.runId,
        sessionId: context.sessionId,
        userId: context.userId,
        principal: context.principal,
        claims: context.principal?.claims ?? {},
      });
      this.userHeaders.set(key, { ...headers });
    } catch (error) {
      this.lastError = `MCP server "${this.id}": headers(ctx) failed: ${error instanceof Error ? error.message : String(error)}`;
      this.host.log?.warn(this.lastError);
      return undefined;
    }
    return key;
  }

  private connection(key: string): McpConnection {
    let connection = this.connections.get(key);
    if (connection) {
      // Most recently used last, so the first is the one to close when there are too many.
      this.connections.delete(key);
      this.connections.set(key, connection);
      return connection;
    }
    connection = new McpConnection({
      server: this.id,
      transport: () => this.transport(key),
      restartOnExit: 'command' in this.options,
      connectTimeoutMs: this.connectTimeoutMs,
    });
    this.connections.set(key, connection);
    if (this.connections.size > MAX_USER_CONNECTIONS) {
      const [oldestKey, oldest] = this.connections.entries().next().value as [string, McpConnection];
      this.connections.delete(oldestKey);
      this.userHeaders.delete(oldestKey);
      void oldest.close();
    }
    return connection;
  }

  private transport(key: string): Transport {
    const options = this.options;
    if ('command' in options) return stdioTransport(options);
    return httpTransport(options, () => this.userHeaders.get(key) ?? {}, privateHostsSetting(this.host.env));
  }

  private async call(connection: McpConnection, name: string, args: Record<string, unknown>, context: ToolContext): Promise<CallToolResult> {
    const timeout = this.options.callTimeoutMs ?? DEFAULT_CALL_TIMEOUT_MS;
    try {
      const client = await connection.connected();
      const result = await client.callTool({ name, arguments: args }, undefined, {
        signal: context.signal,
        timeout,
        ...(context.progress ? { onprogress: (p: { progress: number; total?: number; message?: string }) => context.progress?.(p) } : {}),
      });
      connection.succeeded();
      // A server of the protocol's first version may answer with `toolResult` alone.
      return 'content' in result ? (result as CallToolResult) : { content: [{ type: 'text' as const, text: JSON.stringify(result.toolResult) }] };
    } catch (error) {
      if (context.signal.aborted) throw error;
      const message = describeMcpError(this.id, error);
      if (brokenConnection(error)) await connection.drop(message);
      throw new Error(message, { cause: error });
    }
  }
}

/** An MCP server as a source of an agent's tools (see the module notes). */
export function mcpServer(options: McpServerOptions): McpServerSource {
  return new McpServerSource(options);
}

function stdioTransport(options: StdioMcpServerOptions): Transport {
  const { command, args } = supervised(options.command, options.args ?? []);
  return new StdioClientTransport({
    command,
    args,
    ...(options.env ? { env: { ...options.env } } : {}),
    ...(options.cwd ? { cwd: options.cwd } : {}),
    // Read (so a chatty server never blocks on a full pipe) for the watchdog's own line only.
    stderr: 'pipe',
  });
}

function httpTransport(options: HttpMcpServerOptions, perUser: () => McpHeaders, settingHosts: boolean | readonly string[]): Transport {
  const own = options.allowPrivateHosts ?? false;
  const allowPrivateHosts = own === true || settingHosts === true ? true : [...(own || []), ...(settingHosts || [])];
  const guarded = guardedFetch({ allowPrivateHosts, ...(options.resolve ? { resolve: options.resolve } : {}) });
  const fixed = typeof options.headers === 'object' ? options.headers : {};
  return new StreamableHTTPClientTransport(new URL(options.url), {
    fetch: (url, init) => {
      const headers = new Headers(init?.headers);
      for (const [name, value] of Object.entries({ ...fixed, ...perUser() })) headers.set(name, value);
      return guarded(url, { ...init, headers });
    },
    ...(options.oauth
      ? {
          authProvider: new ClientCredentialsProvider({
            clientId: options.oauth.clientId,
            clientSecret: options.oauth.clientSecret,
            ...(options.oauth.scope ? { scope: options.oauth.scope } : {}),
            ...(options.oauth.expectedIssuer ? { expectedIssuer: options.oauth.expectedIssuer } : {}),
          }),
        }
      : {}),
  });
}

/**
 * Whether a failed call says the connection itself is broken (so it is made again), rather than
 * the server answering with an error: an HTTP status from the transport (404: the server forgot
 * the session), a request that could not be sent, a closed connection.
 */
function brokenConnection(error: unknown): boolean {
  if (error instanceof StreamableHTTPError || error instanceof TypeError) return true;
  return error instanceof McpError && error.code === ErrorCode.ConnectionClosed;
}

function urlWithoutSecrets(text: string): string {
  const url = new URL(text);
  return `${url.origin}${url.pathname}`;
}

function withTimeout<T>(work: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(message)), ms)));
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}
