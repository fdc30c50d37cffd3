/**
 * @module memory/agent-memory
 * What `memory: {...}` gives an agent, each part its own switch, and a switch that is off makes
 * no call of its own at all (no model call, no embedding, no memory read):
 * - `recall` (on): the user's relevant memories in the prompt, within `budgetTokens`;
 * - `tool` (on): the update_user_memory tool, which the model may call;
 * - `extract` (off): after a completed run, one model call proposes changes, off the response
 *   path (the run has answered before it starts), at most `maxChanges` applied, its failure
 *   logged and traced, never the run's;
 * - `summaries` (off): a session whose history exceeds `budgetTokens` (default: half the model's
 *   context window) carries a summary of its older turns instead of them.
 * Memories belong to the run's user; a run without a user has none, and none of the above runs.
 * The Runtime gives the agent its store (`attach`); an agent outside a runtime remembers nothing.
 */
import type { TraceSpan } from '../components/tracer.js';
import type { Embedder } from '../model/embedder.js';
import type { ChatMessage, Model } from '../model/model.js';
import type { AnyFunctionTool } from '../tools/function-tool.js';
import type { Logger } from '../util/logger.js';
import type { ChangeContext } from './changes.js';
import { extractMemories } from './extraction.js';
import type { MemoryStore } from './memory-store.js';
import type { MemorySpending } from './types.js';
import { memoryTool } from './memory-tool.js';
import { memoryLine, recall } from './recall.js';
import { historyWithinBudget } from './summaries.js';
import { contextWindow } from './tokens.js';

export interface AgentMemoryOptions {
  /** Put the user's relevant memories in the prompt (default true); `budgetTokens` default 500. */
  recall?: boolean | { budgetTokens?: number; maxMemories?: number };
  /** Give the model the update_user_memory tool (default true). */
  tool?: boolean;
  /**
   * After each completed run, a model call proposes memory changes (default false); at most
   * `maxChanges` (default 5) are applied; the call is given up after `timeoutMs` (default 60 s).
   */
  extract?: boolean | { maxChanges?: number; model?: Model; timeoutMs?: number };
  /** Summarise a long session's older turns (default false); `budgetTokens` default half the model's context window. */
  summaries?: boolean | { budgetTokens?: number; model?: Model };
  /** For semantic recall; default: the embedder of the agent's knowledge base, if it has one. */
  embedder?: Embedder;
}

/** What the Runtime hands an agent with memory. */
export interface MemoryServices {
  store: MemoryStore;
  /** Work started after a run answers (extraction); shutdown waits for it. */
  track(task: Promise<unknown>): void;
  log: Logger;
}

/** The run, as memory sees it. */
export interface MemoryRun {
  runId: string;
  sessionId: string;
  userId: string | undefined;
  message: string;
  model: Model;
  trace?: TraceSpan | undefined;
  signal: AbortSignal;
  /** Summaries count in the run (metrics and budgets), made before it answers. */
  during?: MemorySpending | undefined;
  /** Extraction counts against the run's budgets only, made after it answers. */
  after?: MemorySpending | undefined;
}

const RECALL_HEADING = 'What you remember about this user from earlier conversations (it may be out of date; use it when it helps):';

export class AgentMemory {
  private services: MemoryServices | undefined;
  readonly recall: { budgetTokens: number; maxMemories: number } | undefined;
  readonly useTool: boolean;
  readonly extract: { maxChanges: number; timeoutMs: number; model?: Model | undefined } | undefined;
  readonly summaries: { budgetTokens?: number | undefined; model?: Model | undefined } | undefined;
  private readonly embedder: Embedder | undefined;
  /** The memory versions each active run's prompt showed, by run id (bounded; dropped when the run ends). */
  private readonly seenByRun = new Map<string, Map<string, number>>();

  constructor(
    private readonly agentId: string,
    options: AgentMemoryOptions,
    fallbackEmbedder: Embedder | undefined,
  ) {
    const r = options.recall ?? true;
    this.recall = r === false ? undefined : { budgetTokens: (r === true ? undefined : r.budgetTokens) ?? 500, maxMemories: (r === true ? undefined : r.maxMemories) ?? 20 };
    this.useTool = options.tool ?? true;
    const e = options.extract ?? false;
    this.extract = e === false ? undefined : { maxChanges: (e === true ? undefined : e.maxChanges) ?? 5, timeoutMs: (e === true ? undefined : e.timeoutMs) ?? 60_000, model: e === true ? undefined : e.model };
    const s = options.summaries ?? false;
    this.summaries = s === false ? undefined : s === true ? {} : { budgetTokens: s.budgetTokens, model: s.model };
    this.embedder = options.embedder ?? fallbackEmbedder;
    this.tool = this.useTool ? memoryTool((runId, userId) => this.changes(runId, userId)) : undefined;
  }

  /** Called by the Runtime: where memories live. */
  attach(services: MemoryServices): void {
    this.services = services;
  }

  private changes(runId: string, userId: string, signal?: AbortSignal): ChangeContext | undefined {
    if (!this.services) return undefined;
    return { store: this.services.store, userId, agentId: this.agentId, runId, embedder: this.embedder, signal, seen: this.seenByRun.get(runId) };
  }

  private readonly tool: AnyFunctionTool | undefined;

  /** The tools memory adds to the agent's. */
  tools(): AnyFunctionTool[] {
    return this.tool ? [this.tool] : [];
  }

  /** Whether `tool` is memory's own (left out of runs without a user). */
  owns(tool: AnyFunctionTool): boolean {
    return tool === this.tool;
  }

  /** System text with the user's relevant memories, or undefined (no memories, no user, recall off). */
  async recallFor(run: MemoryRun): Promise<ChatMessage | undefined> {
    if (!this.recall || !this.services || !run.userId) return undefined;
    const span = run.trace?.child('memory', 'memory recall', { user_id: run.userId, budget_tokens: this.recall.budgetTokens });
    try {
      // Held to the run's tenant (its row says which), as every memory statement of a run is.
      const found = await recall(this.services.store, run.userId, run.message, { ...this.recall, embedder: this.embedder, signal: run.signal }, { run: run.runId });
      span?.end('ok', { search: found.search, candidates: found.candidates, recalled: found.memories.map((m) => m.memory_id), tokens: found.tokens });
      if (found.memories.length === 0) return undefined;
      if (this.useTool) {
        if (this.seenByRun.size >= 1_000) this.seenByRun.delete(this.seenByRun.keys().next().value!);
        this.seenByRun.set(run.runId, new Map(found.memories.map((m) => [m.memory_id, m.version])));
      }
      return { role: 'system', content: `${RECALL_HEADING}\n${found.memories.map((m) => memoryLine(m, this.useTool)).join('\n')}` };
    } catch (error) {
      // Remembering is a help, not a precondition: the run goes on without it.
      span?.end('error', { error: error instanceof Error ? error.message : String(error) });
      this.services.log.warn(`memory recall for run ${run.runId} failed: ${error instanceof Error ? error.message : String(error)}`);
      return undefined;
    }
  }

  /** The session's history within the summary budget; undefined when summaries are off (the runner's history stands). */
  async history(run: MemoryRun): Promise<ChatMessage[] | undefined> {
    if (!this.summaries || !this.services) return undefined;
    const model = this.summaries.model ?? run.model;
    const budgetTokens = this.summaries.budgetTokens ?? Math.floor(contextWindow(model) / 2);
    const log = this.services.log;
    try {
      const { history } = await historyWithinBudget({
        db: this.services.store.db,
        sessionId: run.sessionId,
        model,
        budgetTokens,
        trace: run.trace,
        signal: run.signal,
        spending: run.during,
        onError: (error) => log.warn(`session summary for run ${run.runId} failed: ${error instanceof Error ? error.message : String(error)}`),
      });
      return history;
    } catch (error) {
      // The session's turns could not be read here: the runner's history stands.
      log.warn(`session history for run ${run.runId} could not be budgeted: ${error instanceof Error ? error.message : String(error)}`);
      return undefined;
    }
  }

  /** After a completed run: extraction, started and not awaited. */
  afterRun(run: MemoryRun, answer: string): void {
    this.seenByRun.delete(run.runId);
    if (!this.extract || !this.services || !run.userId) return;
    // Its own deadline: the run's signal is done with once the run answers.
    const changes = this.changes(run.runId, run.userId, AbortSignal.timeout(this.extract.timeoutMs));
    if (!changes) return;
    const { log } = this.services;
    const span = run.trace?.child('memory', 'memory extraction', { user_id: run.userId, max_changes: this.extract.maxChanges });
    const task = extractMemories({ changes, model: this.extract.model ?? run.model, message: run.message, answer, maxChanges: this.extract.maxChanges, trace: span, spending: run.after }).then(
      (outcomes) => span?.end('ok', { outcomes }),
      (error: unknown) => {
        span?.end('error', { error: error instanceof Error ? error.message : String(error) });
        log.warn(`memory extraction after run ${run.runId} failed: ${error instanceof Error ? error.message : String(error)}`);
      },
    );
    this.services.track(task);
  }
}
