/**
 * @module agent/agent
 * An agent: a model, instructions and tools, run in a loop until the model answers without
 * calling a tool. Optionally backed by knowledge, which it searches through a tool.
 *
 * @example
 * ```ts
 * const assistant = new Agent({
 *   id: 'assistant',
 *   instructions: 'Answer briefly.',
 *   tools: [getWeather],
 * });
 * ```
 */
import { z } from 'zod';
import type { SearchableKnowledge } from '../components/component.js';
import type { ChatMessage, Model, StreamPart, ToolCall } from '../model/model.js';
import { ModelCallSpan } from '../run/model-call.js';
import { requireModel, RunFailure, type ExecutionContext, type ExecutionResult, type Runnable } from '../run/execution.js';
import { AgentMemory, type AgentMemoryOptions, type MemoryRun, type MemoryServices } from '../memory/agent-memory.js';
import type { Embedder } from '../model/embedder.js';
import type { Db } from '../storage/db.js';
import { tool, toToolSpec, type AnyFunctionTool } from '../tools/function-tool.js';
import { runToolCall, toolsForRun } from '../tools/tool-call.js';
import { isToolSource, type ToolSource } from '../tools/tool-source.js';

/** Knowledge an agent can search; `Knowledge` implements it. */
export interface AgentOptions {
  id: string;
  name?: string;
  description?: string;
  /** Every run's end is also posted here (signed; needs WEBHOOK_SECRET), besides a request's own `webhook`. */
  webhook?: string;
  /** Defaults to the runtime's model (from OPENAI_*, ANTHROPIC_API_KEY or OLLAMA_HOST). */
  model?: Model;
  instructions?: string;
  /** Function tools, and sources of tools found at run time (`mcpServer(...)`). */
  tools?: (AnyFunctionTool | ToolSource)[];
  knowledge?: SearchableKnowledge;
  /** Where this agent's sessions live; defaults to the runtime's database. */
  db?: Db;
  /** Upper bound on model calls in one run, so a looping model cannot run forever. */
  maxModelCalls?: number;
  /**
   * Remember the users of its runs (memory/agent-memory.ts): `true` for the defaults (recall and
   * the memory tool), or each part switched on or off. Absent or false: no memory work at all.
   */
  memory?: boolean | AgentMemoryOptions;
}

const AGENT_ID = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/;

export class Agent implements Runnable {
  readonly kind = 'agent' as const;
  readonly id: string;
  readonly name: string;
  readonly description: string | undefined;
  readonly webhook: string | undefined;
  readonly model: Model | undefined;
  readonly instructions: string | undefined;
  /** The function tools written in code (the knowledge search included). */
  readonly tools: readonly AnyFunctionTool[];
  /** Where the rest of its tools come from, asked at the start of each run. */
  readonly toolSources: readonly ToolSource[];
  readonly knowledge: SearchableKnowledge | undefined;
  readonly db: Db | undefined;
  readonly maxModelCalls: number;
  readonly memory: AgentMemory | undefined;

  constructor(options: AgentOptions) {
    if (!AGENT_ID.test(options.id ?? '')) {
      throw new TypeError(`Agent id "${options.id}" must start with a letter or digit and use only letters, digits, ".", "_" or "-" (max 128)`);
    }
    this.id = options.id;
    this.name = options.name ?? options.id;
    this.description = options.description;
    this.webhook = options.webhook;
    this.model = options.model;
    this.instructions = options.instructions;
    this.knowledge = options.knowledge;
    this.db = options.db;
    this.maxModelCalls = options.maxModelCalls ?? 10;
    const tools: AnyFunctionTool[] = (options.tools ?? []).filter((t): t is AnyFunctionTool => !isToolSource(t));
    const sources = (options.tools ?? []).filter(isToolSource);
    if (options.knowledge) tools.push(knowledgeTool(options.knowledge));
    const memory = options.memory === true ? {} : options.memory || undefined;
    // Semantic recall with the knowledge base's embedder when the options name none.
    this.memory = memory ? new AgentMemory(this.id, memory, (options.knowledge as { embedder?: Embedder } | undefined)?.embedder) : undefined;
    if (this.memory) tools.push(...this.memory.tools());
    const names = new Set<string>();
    for (const t of [...tools, ...sources.map((s) => ({ name: `source ${s.id}` }))]) {
      if (names.has(t.name)) throw new TypeError(`Agent "${options.id}" has two tools named "${t.name}"`);
      names.add(t.name);
    }
    this.tools = tools;
    this.toolSources = sources;
  }

  describe(): Record<string, unknown> {
    return {
      ...(this.model ? { model: { name: this.model.id, model: this.model.id, provider: this.model.provider } } : {}),
      tools: this.tools.map((t) => t.name),
      ...(this.toolSources.length ? { mcp_servers: this.toolSources.map((s) => s.describe()) } : {}),
      ...(this.knowledge ? { knowledge: { id: this.knowledge.id, name: this.knowledge.name ?? this.knowledge.id } } : {}),
      ...(this.db ? { db_id: this.db.id } : {}),
      ...(this.memory ? { memory: { recall: this.memory.recall !== undefined, tool: this.memory.useTool, extract: this.memory.extract !== undefined, summaries: this.memory.summaries !== undefined } } : {}),
    };
  }

  /** Called by the Runtime: where this agent's memories live. */
  useMemoryServices(services: MemoryServices): void {
    this.memory?.attach(services);
  }

  /** The detailed view for `GET /agents/{id}`. */
  details(): Record<string, unknown> {
    return {
      ...this.describe(),
      instructions: this.instructions ?? null,
      tools: { tools: this.tools.map(toToolSpec) },
    };
  }

  /** Agents can pause for tools that need a person's approval, and be continued. */
  readonly supportsResume = true;

  async execute(context: ExecutionContext): Promise<ExecutionResult> {
    const model = requireModel(this.model, context, `Agent "${this.name}"`);
    const runTools = await this.runTools(context);
    const specs = runTools.map(toToolSpec);
    const byName = new Map(runTools.map((t) => [t.name, t]));
    const system: ChatMessage[] = this.instructions ? [{ role: 'system', content: this.instructions }] : [];
    const run: MemoryRun = {
      runId: context.runId,
      sessionId: context.sessionId,
      userId: context.userId,
      message: context.message,
      model,
      trace: context.trace,
      signal: context.signal,
      during: { before: context.beforeModelCall, add: (usage, id) => context.addUsage(usage, id) },
      after: { before: context.beforeModelCall, add: context.countUsage },
    };
    const [recalled, budgeted] = this.memory ? await Promise.all([this.memory.recallFor(run), this.memory.history(run)]) : [undefined, undefined];
    if (recalled) system.push(recalled);
    const history = budgeted ?? context.history;
    let turn: ChatMessage[];
    let content = '';

    if (context.resume) {
      // Continue where the run paused: first the tool calls that waited for a decision.
      turn = [...context.resume.messages];
      for (const waiting of unansweredToolCalls(turn)) {
        await this.callTool(waiting, byName, context, turn, context.resume.decisions.get(waiting.id));
      }
    } else {
      turn = [{ role: 'user', content: context.message }];
    }

    for (let call = 0; call < this.maxModelCalls; call++) {
      let text = '';
      const calls: ToolCall[] = [];
      const messages = [...system, ...history, ...turn];
      await context.beforeModelCall?.();
      const modelCall = new ModelCallSpan(context.trace, model, messages, specs);
      let finish: Extract<StreamPart, { type: 'finish' }> | undefined;
      try {
        for await (const part of model.stream({ messages, ...(specs.length ? { tools: specs } : {}), signal: context.signal })) {
          modelCall.part();
          if (part.type === 'text-delta') {
            text += part.text;
            context.recordContent(part.text);
            context.emit('RunContent', { content: part.text, content_type: 'str' });
          } else if (part.type === 'tool-call') {
            calls.push(part.call);
          } else {
            finish = part;
            context.addUsage(part.usage, model.id);
          }
        }
      } catch (error) {
        modelCall.fail(error, context.signal.aborted);
        throw error;
      }
      modelCall.end(text, calls, finish);
      content += text;
      turn.push(calls.length ? { role: 'assistant', content: text, toolCalls: calls } : { role: 'assistant', content: text });
      context.recordMessages([...turn]);
      if (calls.length === 0) {
        this.memory?.afterRun(run, content);
        return { content };
      }

      // Nothing of this batch runs until a person has decided on every call that needs it.
      if (calls.some((c) => byName.get(c.name)?.requiresConfirmation)) {
        const tools = calls
          .filter((c) => byName.get(c.name)?.requiresConfirmation)
          .map((c) => ({ tool_call_id: c.id, tool_name: c.name, tool_args: c.arguments, result: null, error: null, requires_confirmation: true, confirmed: null }));
        for (const t of tools) context.recordTool(t);
        return { content, paused: { tools } };
      }
      for (const toolCall of calls) await this.callTool(toolCall, byName, context, turn, undefined);
    }
    throw new RunFailure(`Agent "${this.name}" stopped after ${this.maxModelCalls} model calls without a final answer`, 'ToolCallLimit');
  }

  /** This run's tools: those written in code, then each source's for this run. */
  private async runTools(context: ExecutionContext): Promise<AnyFunctionTool[]> {
    // A run without a user has no memories: its model is not offered the memory tool.
    const own = context.userId ? [...this.tools] : this.tools.filter((t) => !this.memory?.owns(t));
    return toolsForRun(own, this.toolSources, context);
  }

  /**
   * Runs one tool call and appends its result to the turn. `decision` is a person's answer for
   * a tool that needs confirmation; anything but `true` declines the call.
   */
  private async callTool(
    toolCall: ToolCall,
    byName: ReadonlyMap<string, AnyFunctionTool>,
    context: ExecutionContext,
    turn: ChatMessage[],
    decision: boolean | undefined,
  ): Promise<void> {
    turn.push(await runToolCall(toolCall, byName, context, decision));
    context.recordMessages([...turn]);
    if (context.signal.aborted) throw context.signal.reason;
  }
}

/** The tool calls of the last assistant message that have no result yet. */
export function unansweredToolCalls(messages: readonly ChatMessage[]): ToolCall[] {
  const lastAssistant = messages.findLastIndex((m) => m.role === 'assistant');
  const assistant = messages[lastAssistant];
  if (!assistant || assistant.role !== 'assistant' || !assistant.toolCalls?.length) return [];
  const answered = new Set(messages.slice(lastAssistant + 1).flatMap((m) => (m.role === 'tool' ? [m.toolCallId] : [])));
  return assistant.toolCalls.filter((c) => !answered.has(c.id));
}

function knowledgeTool(knowledge: SearchableKnowledge) {
  return tool({
    name: 'search_knowledge_base',
    description: `Search ${knowledge.name ?? knowledge.id}${knowledge.description ? ` (${knowledge.description})` : ''} for passages relevant to a query.`,
    input: z.object({ query: z.string().min(1).describe('What to look for'), limit: z.number().int().min(1).max(20).optional() }),
    execute: async ({ query, limit }, { scopedUserId, scopedTenantId, trace }) => {
      // The base's default search type, as the base reports it (null from one that does not);
      // the only filters an agent's search carries are its user and tenant.
      const scope = { ...(scopedUserId !== undefined ? { user_id: scopedUserId } : {}), ...(scopedTenantId !== undefined ? { tenant_id: scopedTenantId } : {}) };
      const span = trace?.child('knowledge', knowledge.id, { query, limit: limit ?? 5, search_type: null, filters: Object.keys(scope).length > 0 ? scope : null });
      let hits: Awaited<ReturnType<SearchableKnowledge['search']>>;
      try {
        hits = await knowledge.search(query, {
          limit: limit ?? 5,
          ...(scopedUserId !== undefined ? { userId: scopedUserId } : {}),
          ...(scopedTenantId !== undefined ? { tenantId: scopedTenantId } : {}),
          ...(span ? { onSearchType: (searchType: string) => span.set({ search_type: searchType }) } : {}),
        });
      } catch (error) {
        span?.end('error', { error: error instanceof Error ? error.message : String(error) });
        throw error;
      }
      span?.end('ok', { hits: hits.map((h) => ({ name: h.name ?? null, score: h.score ?? null, content: h.content.slice(0, 200) })) });
      if (hits.length === 0) return 'No relevant passages found.';
      return hits.map((h, i) => `[${i + 1}]${h.name ? ` ${h.name}` : ''}\n${h.content}`).join('\n\n');
    },
  });
}
