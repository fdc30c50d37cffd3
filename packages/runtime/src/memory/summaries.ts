/**
 * @module memory/summaries
 * Session summaries: when a session's earlier turns exceed the agent's history budget, the
 * oldest runs are folded into a summary by the model and the prompt carries the summary in their
 * place, followed by the newest runs that fit. The runs stay stored as they were; the summary is
 * stored (svc_session_summaries) with the start of the last run it covers, so the next run
 * reuses it and a refresh folds only the runs after it into the old summary (incremental). Two
 * runs refreshing one session at once: the stored row is versioned, the second write is dropped
 * (its prompt still used its own summary). A failed summary never fails the run: the prompt then
 * carries only the newest runs that fit.
 */
import type { TraceSpan } from '../components/tracer.js';
import type { ChatMessage, Model } from '../model/model.js';
import { ModelCallSpan } from '../run/model-call.js';
import type { Db } from '../storage/db.js';
import { estimateTokens } from '../model/token-estimate.js';
import { messagesTokens } from './tokens.js';
import type { MemorySpending } from './types.js';

/** The text that opens the summarising call's instructions (fakes and tests recognise it). */
export const SUMMARY_MARKER = 'You summarise conversations.';
/** What the prompt says before the summary. */
export const SUMMARY_HEADING = 'Summary of the earlier part of this conversation:';

/** How many of a session's latest completed runs are read at most; how much a summary may read. */
const LIMITS = { runs: 500, messageChars: 2_000, foldChars: 24_000 } as const;

interface StoredSummary {
  summary: string;
  through_ms: number;
  runs_summarised: number;
  version: number;
}

interface RunTurns {
  started_ms: number;
  messages: ChatMessage[];
  tokens: number;
}

export interface SummaryRequest {
  db: Db;
  sessionId: string;
  model: Model;
  /** The most the history (summary and kept turns) may take of the prompt. */
  budgetTokens: number;
  trace?: TraceSpan | undefined;
  signal?: AbortSignal | undefined;
  onError?: (error: unknown) => void;
  /** The summary call counts against the run (its metrics and budgets). */
  spending?: MemorySpending | undefined;
}

async function readSummary(db: Db, sessionId: string): Promise<StoredSummary | undefined> {
  const rows = await db.query<Record<string, unknown>>('SELECT summary, through_ms, runs_summarised, version FROM svc_session_summaries WHERE session_id = $1', [sessionId]);
  const row = rows[0];
  return row ? { summary: String(row.summary), through_ms: Number(row.through_ms), runs_summarised: Number(row.runs_summarised), version: Number(row.version) } : undefined;
}

/** The completed runs after `afterMs`, oldest first (at most the latest 500). */
async function runsAfter(db: Db, sessionId: string, afterMs: number): Promise<RunTurns[]> {
  const rows = await db.query<Record<string, unknown>>(
    "SELECT started_ms, messages FROM svc_runs WHERE session_id = $1 AND status = 'COMPLETED' AND started_ms > $2 ORDER BY started_ms DESC, run_id DESC LIMIT $3",
    [sessionId, afterMs, LIMITS.runs],
  );
  return rows.toReversed().map((row) => {
    let messages: ChatMessage[] = [];
    try {
      messages = typeof row.messages === 'string' ? (JSON.parse(row.messages) as ChatMessage[]) : [];
    } catch {
      messages = [];
    }
    return { started_ms: Number(row.started_ms), messages, tokens: messagesTokens(messages) };
  });
}

async function saveSummary(db: Db, sessionId: string, next: StoredSummary, previous: StoredSummary | undefined): Promise<boolean> {
  const changed = await db.execute(
    `INSERT INTO svc_session_summaries (session_id, summary, through_ms, runs_summarised, version, updated_at) VALUES ($1, $2, $3, $4, $5, $6)
     ON CONFLICT (session_id) DO UPDATE SET summary = excluded.summary, through_ms = excluded.through_ms,
       runs_summarised = excluded.runs_summarised, version = excluded.version, updated_at = excluded.updated_at
     WHERE svc_session_summaries.version = $7`,
    [sessionId, next.summary, next.through_ms, next.runs_summarised, next.version, Math.floor(Date.now() / 1000), previous?.version ?? 0],
  );
  return changed > 0;
}

function transcript(runs: readonly RunTurns[]): string {
  const lines: string[] = [];
  for (const run of runs) {
    for (const m of run.messages) {
      if (m.role === 'user') lines.push(`User: ${m.content.slice(0, LIMITS.messageChars)}`);
      else if (m.role === 'assistant' && m.content !== '') lines.push(`Assistant: ${m.content.slice(0, LIMITS.messageChars)}`);
      else if (m.role === 'tool') lines.push(`Tool ${m.name}: ${m.content.slice(0, 300)}`);
    }
  }
  const text = lines.join('\n');
  // The newest part when it is too long: the old summary already holds what came before.
  return text.length > LIMITS.foldChars ? text.slice(text.length - LIMITS.foldChars) : text;
}

async function summarise(request: SummaryRequest, previous: string | undefined, runs: readonly RunTurns[], maxTokens: number): Promise<string> {
  const messages: ChatMessage[] = [
    {
      role: 'system',
      content: `${SUMMARY_MARKER} Write a concise summary of the conversation so far, keeping what later turns may need: the user's goals, facts, decisions and open questions. At most ${maxTokens * 3} words; no preamble.`,
    },
    { role: 'user', content: `${previous ? `The summary so far:\n${previous}\n\n` : ''}The turns to fold in:\n${transcript(runs)}` },
  ];
  await request.spending?.before?.();
  const call = new ModelCallSpan(request.trace, request.model, messages, undefined);
  try {
    const response = await request.model.generate({ messages, maxOutputTokens: maxTokens, ...(request.signal ? { signal: request.signal } : {}) });
    request.spending?.add?.(response.usage, request.model.id);
    call.end(response.text, [], { reason: response.finishReason, usage: response.usage });
    return response.text.trim();
  } catch (error) {
    call.fail(error, request.signal?.aborted === true);
    throw error;
  }
}

/** The prompt's history: the summary (as system text), then the kept runs' messages. */
function withSummary(summary: string | undefined, kept: readonly RunTurns[]): ChatMessage[] {
  return [...(summary ? [{ role: 'system' as const, content: `${SUMMARY_HEADING}\n${summary}` }] : []), ...kept.flatMap((r) => r.messages)];
}

/**
 * The session's history as the prompt should carry it, within the budget: the stored summary (if
 * any, refreshed when the turns after it no longer fit) and the newest turns. Never throws for a
 * failed summary call.
 */
export async function historyWithinBudget(request: SummaryRequest): Promise<{ history: ChatMessage[]; summarised: boolean; refreshed: boolean }> {
  const stored = await readSummary(request.db, request.sessionId);
  const runs = await runsAfter(request.db, request.sessionId, stored?.through_ms ?? -1);
  const summaryTokens = stored ? estimateTokens(stored.summary) + 12 : 0;
  const total = runs.reduce((n, r) => n + r.tokens, summaryTokens);
  if (total <= request.budgetTokens) return { history: withSummary(stored?.summary, runs), summarised: stored !== undefined, refreshed: false };

  // Room for the summary: a quarter of the budget, at most 1,000 tokens; the newest runs take the rest.
  const summaryRoom = Math.max(16, Math.min(1_000, Math.floor(request.budgetTokens / 4)));
  let room = request.budgetTokens - summaryRoom - 12;
  let first = runs.length;
  while (first > 0 && runs[first - 1]!.tokens <= room) {
    room -= runs[first - 1]!.tokens;
    first--;
  }
  const fold = runs.slice(0, first);
  const kept = runs.slice(first);
  if (fold.length === 0) return { history: withSummary(stored?.summary, kept), summarised: stored !== undefined, refreshed: false };
  const span = request.trace?.child('memory', 'session summary', { session_id: request.sessionId, runs_folded: fold.length, runs_kept: kept.length, budget_tokens: request.budgetTokens });
  try {
    const summary = (await summarise(request, stored?.summary, fold, summaryRoom)).slice(0, summaryRoom * 4);
    const next = { summary, through_ms: fold.at(-1)!.started_ms, runs_summarised: (stored?.runs_summarised ?? 0) + fold.length, version: (stored?.version ?? 0) + 1 };
    const saved = await saveSummary(request.db, request.sessionId, next, stored);
    span?.end('ok', { summary_tokens: estimateTokens(summary), stored: saved, runs_summarised: next.runs_summarised });
    return { history: withSummary(summary, kept), summarised: true, refreshed: true };
  } catch (error) {
    span?.end('error', { error: error instanceof Error ? error.message : String(error) });
    request.onError?.(error);
    // Without a new summary, the old one no longer fits beside these turns: the newest turns only.
    return { history: withSummary(undefined, kept), summarised: false, refreshed: false };
  }
}
