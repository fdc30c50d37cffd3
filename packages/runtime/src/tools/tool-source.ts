/**
 * @module tools/tool-source
 * Tools an agent gets from elsewhere at run time (an MCP server), beside the function tools
 * written in code. A source is asked for its tools at the start of each run, with who the run
 * acts for, so it can reach its service with that caller's credentials; it never throws there:
 * a source that cannot list its tools offers a stand-in tool whose description says why (and
 * whose call reports it), never a list it saw earlier that may be stale.
 */
import type { RunCaller } from '../components/caller.js';
import type { AnyFunctionTool } from './function-tool.js';

/** What a source knows of the run asking for its tools. */
export interface ToolSourceContext {
  runId: string;
  sessionId: string;
  userId: string | undefined;
  /** Who the run acts for; undefined for runs started without a request (a component used directly). */
  principal: RunCaller | undefined;
  signal: AbortSignal;
}

export interface ToolSource {
  readonly kind: 'tool-source';
  /** Unique among one agent's sources; shown in `/config`. */
  readonly id: string;
  /** The tools for this run; never rejects. */
  tools(context: ToolSourceContext): Promise<AnyFunctionTool[]>;
  /** For `/config` and `GET /mcp-servers`: what it is, its status and tools; never a secret. */
  describe(): Record<string, unknown>;
  /** Ends its connections and processes (the runtime's shutdown). */
  close(): Promise<void>;
}

export function isToolSource(value: unknown): value is ToolSource {
  return typeof value === 'object' && value !== null && (value as { kind?: unknown }).kind === 'tool-source';
}
