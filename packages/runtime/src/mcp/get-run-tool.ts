/**
 * @module mcp/get-run-tool
 * `get_run`: a run's status and result by its id, for a run started in the background (or
 * anywhere else): what run_agent answers once a run has ended, and for a PENDING or RUNNING run
 * a message saying to look again. The REST twin is GET /{agents,teams,workflows}/{id}/runs/{run_id}.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { RuntimeError } from '../errors.js';
import type { McpHost } from './host.js';
import { deny, guarded, PLURAL } from './mcp-tools.js';
import { RUN_OUTPUT, runResult } from './run-result.js';
import { assertRunVisible, type McpCaller } from './tool-gate.js';

export function registerGetRun(server: McpServer, ctx: McpHost, caller: McpCaller): void {
  server.registerTool(
    'get_run',
    {
      description: 'Read a run by its run_id: its status, and its answer (content) once it has ended. Use it for runs started with background true.',
      inputSchema: { run_id: z.string().min(1) },
      outputSchema: RUN_OUTPUT,
      annotations: { readOnlyHint: true, idempotentHint: true },
    },
    (args: { run_id: string }) =>
      guarded(async () => {
        const run = await ctx.sessions.getRun(args.run_id);
        if (!run) throw new RuntimeError('NOT_FOUND', `Run ${args.run_id} not found`);
        deny(caller, 'GET', `/${PLURAL[run.session_type]}/${encodeURIComponent(run.component_id)}/runs/${encodeURIComponent(run.run_id)}`);
        assertRunVisible(run, caller);
        return runResult(run);
      }),
  );
}
