/**
 * A conversation as the chat page shows it, and how each run event changes it: text deltas grow
 * the answer, tool calls appear when they start and fill in when they finish, a pause lists the
 * calls waiting for a decision. Pure functions of (state, event), so the page stays a view.
 */
import type { RunEvent, RunTool } from '../../api/runs';

export type Item =
  | { type: 'user'; key: string; text: string }
  | { type: 'assistant'; key: string; text: string }
  | { type: 'tool'; key: string; name: string; args: string; result: string | undefined; failed: boolean; done: boolean }
  | { type: 'notice'; key: string; text: string; tone: 'error' | 'info' };

export interface ChatState {
  items: Item[];
  sessionId: string | undefined;
  /** The run streaming now, or paused. */
  runId: string | undefined;
  streaming: boolean;
  /** Calls a paused run waits on. */
  paused: RunTool[] | undefined;
}

export const EMPTY: ChatState = { items: [], sessionId: undefined, runId: undefined, streaming: false, paused: undefined };

let counter = 0;
export const key = (): string => `i${++counter}`;

function text(value: unknown): string {
  return typeof value === 'string' ? value : value === undefined || value === null ? '' : JSON.stringify(value);
}

/** The answer being written: the last item when it is the assistant's, else a new one. */
function appendText(items: Item[], delta: string): Item[] {
  const last = items.at(-1);
  if (last?.type === 'assistant') return [...items.slice(0, -1), { ...last, text: last.text + delta }];
  return [...items, { type: 'assistant', key: key(), text: delta }];
}

export function applyEvent(state: ChatState, { event, data }: RunEvent): ChatState {
  const name = event.replace(/^Team(?=Run)/, '');
  const runId = typeof data.run_id === 'string' ? data.run_id : state.runId;
  const sessionId = typeof data.session_id === 'string' ? data.session_id : state.sessionId;
  const base = { ...state, runId, sessionId };
  if (name === 'RunContent') return { ...base, items: appendText(state.items, text(data.content)) };
  if (name === 'ToolCallStarted' || name === 'ToolCallCompleted') {
    const tool = (data.tool ?? {}) as Partial<RunTool> & { tool_call_error?: boolean };
    const id = text(tool.tool_call_id) || key();
    const found = state.items.find((item) => item.type === 'tool' && item.key === id);
    const done = name === 'ToolCallCompleted';
    const next: Item = {
      type: 'tool',
      key: id,
      name: text(tool.tool_name),
      args: text(tool.tool_args),
      result: done ? text(tool.result) : undefined,
      failed: tool.tool_call_error === true,
      done,
    };
    return { ...base, items: found ? state.items.map((item) => (item === found ? next : item)) : [...state.items, next] };
  }
  if (name === 'RunPaused') {
    const tools = ((data.tools ?? []) as RunTool[]).filter((t) => t.requires_confirmation && t.confirmed === null);
    return { ...base, paused: tools, streaming: false };
  }
  if (name === 'RunCompleted' || name === 'WorkflowCompleted') {
    // The final event repeats the whole answer: show it when no delta carried it (a workflow's last step).
    const last = state.items.at(-1);
    const content = text(data.content);
    const items = content && last?.type !== 'assistant' ? [...state.items, { type: 'assistant' as const, key: key(), text: content }] : state.items;
    return { ...base, items, streaming: false, paused: undefined };
  }
  if (name === 'RunError' || name === 'WorkflowError') {
    return { ...base, streaming: false, items: [...state.items, { type: 'notice', key: key(), text: `The run failed: ${text(data.content ?? data.error)}`, tone: 'error' }] };
  }
  if (name === 'RunCancelled' || name === 'WorkflowCancelled') {
    return { ...base, streaming: false, paused: undefined, items: [...state.items, { type: 'notice', key: key(), text: 'The run was cancelled.', tone: 'info' }] };
  }
  return base;
}
