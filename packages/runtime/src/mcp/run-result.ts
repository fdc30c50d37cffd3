/**
 * @module mcp/run-result
 * What the run tools answer. Clients such as Claude Code and Codex hand a tool's
 * `structuredContent` to the model instead of its text whenever it is present, so the structured
 * result must carry everything the text says: the answer itself, what a paused run waits for,
 * why a run failed. The text blocks repeat fields of the structured result, nothing else.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { isWaitingForDecision, type RunRecord } from '../sessions/types.js';

const RequirementSchema = z.object({
  tool_call_id: z.string().describe('Pass this id back to continue_run with your decision'),
  tool_name: z.string(),
  tool_args: z.string().describe('The arguments of the call, as JSON text'),
});

/** The `outputSchema` of run_agent, run_team, run_workflow and continue_run. */
export const RUN_OUTPUT = {
  run_id: z.string(),
  session_id: z.string().describe('Pass it to the next run to continue this conversation'),
  status: z.enum(['PENDING', 'RUNNING', 'COMPLETED', 'PAUSED', 'CANCELLED', 'ERROR']),
  content: z
    .string()
    .nullable()
    .describe("The answer. For a run that did not complete, the output produced before it stopped (null when there was none)"),
  error: z.string().optional().describe('Why the run failed (status ERROR)'),
  requirements: z.array(RequirementSchema).optional().describe('Tool calls waiting for the user to confirm them (status PAUSED)'),
  message: z.string().optional().describe('What happened and what to do next, for a run that did not complete'),
};

type RunOutput = z.infer<z.ZodObject<typeof RUN_OUTPUT>>;

/** The result of a finished (or paused) run. Failed and cancelled runs are tool errors. */
export function runResult(record: RunRecord): CallToolResult {
  const base: RunOutput = { run_id: record.run_id, session_id: record.session_id, status: record.status, content: record.content };
  if (record.status === 'PAUSED') {
    const requirements = record.tools
      .filter(isWaitingForDecision)
      .map((t) => ({ tool_call_id: t.tool_call_id, tool_name: t.tool_name, tool_args: t.tool_args }));
    const list = requirements.map((r) => `- ${r.tool_call_id}: ${r.tool_name}(${r.tool_args})`).join('\n');
    const message =
      `Run ${record.run_id} is paused: these tool calls need the user's confirmation.\n${list}\n` +
      'Ask the user, then call continue_run with requirements [{"tool_call_id": ..., "confirmed": true|false}].';
    // Not an error: the run waits for the user, and the client shows the calls and asks.
    return withText({ ...base, requirements, message }, message, false);
  }
  if (record.status === 'ERROR') {
    const error = record.error ?? 'The run failed';
    return withText({ ...base, error, message: error }, error, true);
  }
  if (record.status === 'CANCELLED') {
    const message = `Run ${record.run_id} was cancelled` + (record.content ? '; content holds the output produced before it stopped' : '');
    return withText({ ...base, message }, message, true);
  }
  if (record.status === 'PENDING' || record.status === 'RUNNING') {
    const message = `Run ${record.run_id} is ${record.status}; call get_run with its run_id to read the result`;
    return withText({ ...base, message }, message, false);
  }
  return withText(base, record.content ?? '', false);
}

function withText(structured: RunOutput, text: string, isError: boolean): CallToolResult {
  return { content: [{ type: 'text', text }], structuredContent: structured, ...(isError ? { isError: true } : {}) };
}

/** The `outputSchema` of cancel_run. */
export const CANCEL_OUTPUT = {
  run_id: z.string(),
  cancelled: z.boolean().describe('True when this call stopped the run'),
  status: z.enum(['PENDING', 'RUNNING', 'COMPLETED', 'PAUSED', 'CANCELLED', 'ERROR']),
  already_finished: z.boolean().describe('True when the run had ended before the call, so nothing was cancelled'),
  message: z.string(),
};

export function cancelResult(runId: string, outcome: { cancelled: boolean; status: RunRecord['status']; alreadyFinished: boolean }): CallToolResult {
  let message: string;
  if (outcome.alreadyFinished) message = `Run ${runId} had already finished with status ${outcome.status}; nothing was cancelled`;
  else if (outcome.cancelled) message = `Run ${runId} cancelled`;
  else if (outcome.status === 'RUNNING' || outcome.status === 'PENDING') message = `Run ${runId} cancellation requested; it is still ${outcome.status}`;
  else message = `Run ${runId} ended with status ${outcome.status} before it could be cancelled`;
  const structured = { run_id: runId, cancelled: outcome.cancelled, status: outcome.status, already_finished: outcome.alreadyFinished, message };
  return { content: [{ type: 'text', text: message }], structuredContent: structured };
}
