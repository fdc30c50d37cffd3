/**
 * @module tools/tool-call
 * One tool call of a model, as the agent loop and a team's leader run it: the run's tools for
 * this run (those written in code, then each source's), and a call with its events
 * (`ToolCallStarted`, `ToolCallProgress`, `ToolCallCompleted`), its span, its record on the run
 * and the tool message the model reads next (with the media the tool returned). The run is
 * reached through the few parts of its context a call needs.
 */
import type { RunCaller } from '../components/caller.js';
import type { TraceSpan } from '../components/tracer.js';
import type { ChatMessage, ToolCall } from '../model/model.js';
import { toolResultText } from '../model/tool-media.js';
import { executeToolCall, type AnyFunctionTool, type ToolOutcome, type ToolProgress } from './function-tool.js';
import type { ToolSource } from './tool-source.js';

/** What a tool call needs of its run (the run's ExecutionContext has it all). */
export interface ToolCallRun {
  runId: string;
  sessionId: string;
  userId: string | undefined;
  scopedUserId?: string | undefined;
  scopedTenantId?: string | undefined;
  principal?: RunCaller | undefined;
  signal: AbortSignal;
  trace?: TraceSpan | undefined;
  emit(name: string, fields?: Record<string, unknown>): void;
  recordTool(execution: {
    tool_call_id: string;
    tool_name: string;
    tool_args: string;
    result: string | null;
    error: string | null;
    requires_confirmation?: boolean;
    confirmed?: boolean | null;
  }): void;
}

export type ToolMessage = Extract<ChatMessage, { role: 'tool' }>;

/** This run's tools: `own` first, then each source's for this run (a name already taken keeps its first owner). */
export async function toolsForRun(own: readonly AnyFunctionTool[], sources: readonly ToolSource[], run: ToolCallRun): Promise<AnyFunctionTool[]> {
  if (sources.length === 0) return [...own];
  const asked = { runId: run.runId, sessionId: run.sessionId, userId: run.userId, principal: run.principal, signal: run.signal };
  const found = await Promise.all(sources.map((s) => s.tools(asked)));
  const byName = new Map(own.map((t) => [t.name, t]));
  for (const t of found.flat()) if (!byName.has(t.name)) byName.set(t.name, t);
  return [...byName.values()];
}

/**
 * Runs one tool call and gives the message with its result. `decision` is a person's answer for
 * a tool that needs confirmation; anything but `true` declines the call, with `declined` as the
 * reason the model reads when given.
 */
export async function runToolCall(
  toolCall: ToolCall,
  byName: ReadonlyMap<string, AnyFunctionTool>,
  run: ToolCallRun,
  decision: boolean | undefined,
  declined?: string,
): Promise<ToolMessage> {
  const target = byName.get(toolCall.name);
  const confirmation = target?.requiresConfirmation ? { requires_confirmation: true, confirmed: decision === true } : {};
  const called = { tool_call_id: toolCall.id, tool_name: toolCall.name };
  run.emit('ToolCallStarted', { tool: { ...called, tool_args: toolCall.arguments, ...confirmation } });
  const span = run.trace?.child('tool', toolCall.name, { tool_call_id: toolCall.id, arguments: toolArguments(toolCall.arguments) });
  const reports: ToolProgress[] = [];
  const progress = (update: ToolProgress) => {
    run.emit('ToolCallProgress', { tool: called, progress: update.progress, total: update.total ?? null, message: update.message ?? null });
    // The span keeps the last 20 reports, each with when it came (ms since the epoch).
    reports.push({ ...update, at: Date.now() } as ToolProgress);
    span?.set({ progress: reports.slice(-20) });
  };
  let outcome: ToolOutcome;
  if (!target) {
    outcome = { ok: false, error: `Unknown tool "${toolCall.name}"; available: ${[...byName.keys()].join(', ') || 'none'}` };
  } else if (target.requiresConfirmation && decision !== true) {
    outcome = { ok: false, error: declined ?? `The user declined to run ${toolCall.name}` };
  } else {
    outcome = await executeToolCall(target, toolCall.arguments, {
      runId: run.runId,
      sessionId: run.sessionId,
      userId: run.userId,
      scopedUserId: run.scopedUserId,
      scopedTenantId: run.scopedTenantId,
      signal: run.signal,
      progress,
      ...(span ? { trace: span } : {}),
    });
  }
  const media = outcome.ok ? outcome.media : undefined;
  // Events, spans and the run's record keep the text, with the media described rather than copied.
  const described = outcome.ok ? toolResultText(outcome.result, media) : outcome.error;
  span?.end(outcome.ok ? 'ok' : run.signal.aborted ? 'cancelled' : 'error', outcome.ok ? { result: described } : { error: outcome.error });
  run.recordTool({ ...called, tool_args: toolCall.arguments, result: outcome.ok ? described : null, error: outcome.ok ? null : outcome.error, ...confirmation });
  run.emit('ToolCallCompleted', { tool: { ...called, tool_args: toolCall.arguments, result: described, tool_call_error: !outcome.ok, ...confirmation } });
  return { role: 'tool', toolCallId: toolCall.id, name: toolCall.name, content: outcome.ok ? outcome.result : outcome.error, ...(media ? { media } : {}) };
}

/** Tool arguments as the span keeps them: parsed when JSON (so credential fields can be redacted), else the text. */
function toolArguments(text: string): unknown {
  try {
    return JSON.parse(text || '{}');
  } catch {
    return text;
  }
}
