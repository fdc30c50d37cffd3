/**
 * @module mcp-client/options
 * How an agent names an MCP server it uses: a command to spawn (stdio) or a URL (streamable
 * HTTP). Declared in code only: nothing a request carries can name a command or a URL here.
 */
import type { RunCaller } from '../components/caller.js';
import type { HostResolver } from '../net/safe-fetch.js';

/** What `headers(ctx)` is told about the run it supplies headers for. */
export interface McpHeadersContext {
  runId: string;
  sessionId: string;
  userId: string | undefined;
  /** Who the run acts for (kind, user, scopes, service account); undefined for runs started in code. */
  principal: RunCaller | undefined;
  /** A JWT caller's verified claims; empty for other callers. */
  claims: Readonly<Record<string, unknown>>;
}

export type McpHeaders = Record<string, string>;

interface CommonOptions {
  /** Names the server in `/config`, tool errors and logs: letters, digits, "_", "-", "." (max 64). */
  id: string;
  /** Offer only these of its tools (the server's names). */
  include?: readonly string[];
  /** Offer all but these. */
  exclude?: readonly string[];
  /** Put before each tool's name, to tell two servers' tools apart (`fs_` → `fs_read_file`). */
  prefix?: string;
  /**
   * Tools a person must approve before each call (the run pauses, as for a local tool with
   * `requiresConfirmation`): `true` for all, or the server's names of those that need it.
   */
  requiresConfirmation?: boolean | readonly string[];
  /** How long one call may take before it is cancelled and reported to the model; default 60 s. */
  callTimeoutMs?: number;
  /**
   * The decoded bytes of images and sounds one result may hand the model; past it each is
   * described as text. Default MCP_CLIENT_MAX_MEDIA_BYTES, else 3,750,000.
   */
  maxMediaBytes?: number;
  /** How long connecting and listing tools may take; default 30 s. */
  connectTimeoutMs?: number;
}

export interface StdioMcpServerOptions extends CommonOptions {
  command: string;
  args?: readonly string[];
  /** Added to a small safe default environment (PATH, HOME...), not to the runtime's whole one. */
  env?: Readonly<Record<string, string>>;
  cwd?: string;
}

export interface HttpMcpServerOptions extends CommonOptions {
  /** The server's streamable HTTP endpoint (http or https). */
  url: string;
  /**
   * Headers for every request: fixed, or computed at the start of each run from who the run
   * acts for, so each user's own token reaches the server. With a function, each user gets a
   * connection (and MCP session) of their own, never shared with another user.
   */
  headers?: McpHeaders | ((context: McpHeadersContext) => McpHeaders | Promise<McpHeaders>);
  /**
   * OAuth client credentials (the SDK's client_credentials provider): the runtime fetches and
   * refreshes tokens itself. Read the secret from your settings (environment), not source code.
   */
  oauth?: { clientId: string; clientSecret: string; scope?: string; expectedIssuer?: string };
  /**
   * Internal hosts (loopback, private networks) are refused unless allowed here (`true`, or host
   * names) or by MCP_CLIENT_PRIVATE_HOSTS.
   */
  allowPrivateHosts?: boolean | readonly string[];
  /** Resolves host names (tests); DNS by default. */
  resolve?: HostResolver;
}

export type McpServerOptions = StdioMcpServerOptions | HttpMcpServerOptions;

export const DEFAULT_CALL_TIMEOUT_MS = 60_000;
export const DEFAULT_CONNECT_TIMEOUT_MS = 30_000;
