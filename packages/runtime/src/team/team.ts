/**
 * @module team/team
 * A team: a leader model that hands work to member agents.
 * - `route`: the leader picks one member and that member's answer is the team's answer.
 * - `coordinate`: the leader may ask several members, then writes the answer itself.
 * The leader may also have tools of its own (function tools and `mcpServer(...)` sources), called
 * as an agent calls them; one needing a person's confirmation is declined, as a team's run
 * cannot pause (give such a tool to a member agent).
 *
 * @example
 * ```ts
 * const support = new Team({ id: 'support', mode: 'route', members: [billing, tech] });
 * ```
 */
import { timeOrderedId } from '../util/ids.js';
import { z } from 'zod';
import type { TraceSpan } from '../components/tracer.js';
import type { ChatMessage, Model, StreamPart, ToolCall } from '../model/model.js';
import { ModelCallSpan } from '../run/model-call.js';
import { memberContent, requireModel, RunFailure, type ExecutionContext, type ExecutionResult, type Runnable } from '../run/execution.js';
import { identityFields } from '../run/run-events.js';
import type { Db } from '../storage/db.js';
import { toToolSpec, tool, type AnyFunctionTool } from '../tools/function-tool.js';
import { runToolCall, toolsForRun } from '../tools/tool-call.js';
import { isToolSource, type ToolSource } from '../tools/tool-source.js';

export type TeamMode = 'route' | 'coordinate';

export interface TeamOptions {
  id: string;
  name?: string;
  description?: string;
  /** Every run's end is also posted here (signed; needs WEBHOOK_SECRET), besides a request's own `webhook`. */
  webhook?: string;
  /** Agents or other teams. */
  members: Runnable[];
  mode?: TeamMode;
  /** The leader's model; defaults to the runtime's. */
  model?: Model;
  instructions?: string;
  /** The leader's own tools: function tools, and sources of tools found at run time (`mcpServer(...)`). */
  tools?: (AnyFunctionTool | ToolSource)[];
  db?: Db;
  maxModelCalls?: number;
}

const HAND_OFF = z.object({
  member_id: z.string().describe('Id of the member to hand the task to'),
  task: z.string().min(1).describe('What the member should do, with all the context it needs'),
});

export class Team implements Runnable {
  readonly kind = 'team' as const;
  readonly id: string;
  readonly name: string;
  readonly description: string | undefined;
  readonly webhook: string | undefined;
  readonly members: readonly Runnable[];
  readonly mode: TeamMode;
  readonly model: Model | undefined;
  readonly instructions: string | undefined;
  readonly db: Db | undefined;
  readonly maxModelCalls: number;
  /** The leader's function tools. */
  readonly tools: readonly AnyFunctionTool[];
  /** Where the rest of the leader's tools come from, asked at the start of each run. */
  readonly toolSources: readonly ToolSource[];

  constructor(options: TeamOptions) {
    if (!options.members?.length) throw new TypeError(`Team "${options.id}" needs at least one member`);
    const ids = options.members.map((m) => m.id);
    const duplicate = ids.find((id, i) => ids.indexOf(id) !== i);
    if (duplicate) throw new TypeError(`Team "${options.id}" lists member "${duplicate}" twice`);
    this.id = options.id;
    this.name = options.name ?? options.id;
    this.description = options.description;
    this.webhook = options.webhook;
    this.members = [...options.members];
    this.mode = options.mode ?? 'coordinate';
    this.model = options.model;
    this.instructions = options.instructions;
    this.db = options.db;
    this.maxModelCalls = options.maxModelCalls ?? 10;
    this.tools = (options.tools ?? []).filter((t): t is AnyFunctionTool => !isToolSource(t));
    this.toolSources = (options.tools ?? []).filter(isToolSource);
    const names = new Set<string>([this.handOffName]);
    for (const t of [...this.tools, ...this.toolSources.map((s) => ({ name: `source ${s.id}` }))]) {
      if (names.has(t.name)) throw new TypeError(`Team "${options.id}" has two tools named "${t.name}"`);
      names.add(t.name);
    }
  }

  private get handOffName(): string {
    return this.mode === 'route' ? 'transfer_to_member' : 'delegate_task_to_member';
  }

  describe(): Record<string, unknown> {
    return {
      mode: this.mode,
      members: this.members.map((m) => ({ id: m.id, name: m.name ?? m.id, type: m.kind })),
      ...(this.model ? { model: { name: this.model.id, model: this.model.id, provider: this.model.provider } } : {}),
      ...(this.tools.length ? { tools: this.tools.map((t) => t.name) } : {}),
      ...(this.toolSources.length ? { mcp_servers: this.toolSources.map((s) => s.describe()) } : {}),
    };
  }

  private leaderInstructions(): string {
    const roster = this.members.map((m) => `- ${m.id}: ${m.name ?? m.id}${m.description ? ` — ${m.description}` : ''}`).join('\n');
    const how =
      this.mode === 'route'
        ? 'Pick the single member best suited to the request and hand it over with transfer_to_member. Do not answer yourself.'
        : 'Ask members for what you need with delegate_task_to_member (you may ask several), then write the final answer yourself.';
    return `${this.instructions ? `${this.instructions}\n\n` : ''}You lead the team "${this.name}". Members:\n${roster}\n\n${how}`;
  }

  async execute(context: ExecutionContext): Promise<ExecutionResult> {
    const model = requireModel(this.model, context, `Team "${this.name}"`);
    const toolName = this.handOffName;
    const handOff = toToolSpec(tool({ name: toolName, description: 'Hand a task to a team member and get its answer', input: HAND_OFF, execute: () => '' }));
    const own = (await toolsForRun(this.tools, this.toolSources, context)).filter((t) => t.name !== toolName);
    const byName = new Map(own.map((t) => [t.name, t]));
    const specs = [handOff, ...own.map(toToolSpec)];
    const turn: ChatMessage[] = [{ role: 'user', content: context.message }];
    const system: ChatMessage = { role: 'system', content: this.leaderInstructions() };
    let content = '';

    for (let call = 0; call < this.maxModelCalls; call++) {
      let text = '';
      const calls: ToolCall[] = [];
      const messages = [system, ...context.history, ...turn];
      await context.beforeModelCall?.();
      const modelCall = new ModelCallSpan(context.trace, model, messages, specs);
      let finish: Extract<StreamPart, { type: 'finish' }> | undefined;
      try {
        for await (const part of model.stream({ messages, tools: specs, signal: context.signal })) {
          modelCall.part();
          if (part.type === 'text-delta') {
            text += part.text;
            context.recordContent(part.text);
            context.emit('RunContent', { content: part.text, content_type: 'str' });
          } else if (part.type === 'tool-call') calls.push(part.call);
          else {
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
      if (calls.length === 0) return { content };

      for (const toolCall of calls) {
        if (toolCall.name !== toolName) {
          turn.push(await runToolCall(toolCall, byName, context, undefined, `${toolCall.name} needs a person's confirmation, which a team's leader cannot ask for`));
          context.recordMessages([...turn]);
          if (context.signal.aborted) throw context.signal.reason;
          continue;
        }
        const answer = await this.handOff(toolCall, context);
        turn.push({ role: 'tool', toolCallId: toolCall.id, name: toolCall.name, content: answer.text });
        context.recordMessages([...turn]);
        if (this.mode === 'route' && answer.ok) {
          // In route mode the chosen member's answer is the team's answer, verbatim.
          context.recordContent(answer.text);
          context.emit('RunContent', { content: answer.text, content_type: 'str' });
          return { content: content + answer.text };
        }
      }
    }
    throw new RunFailure(`Team "${this.name}" stopped after ${this.maxModelCalls} model calls without a final answer`, 'ToolCallLimit');
  }

  private async handOff(toolCall: ToolCall, context: ExecutionContext): Promise<{ ok: boolean; text: string }> {
    const started = { tool_call_id: toolCall.id, tool_name: toolCall.name, tool_args: toolCall.arguments };
    context.emit('ToolCallStarted', { tool: started });
    let parsed: z.infer<typeof HAND_OFF> | undefined;
    let error: string | undefined;
    try {
      const result = HAND_OFF.safeParse(JSON.parse(toolCall.arguments || '{}'));
      if (result.success) parsed = result.data;
      else error = `Invalid arguments: ${result.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`;
    } catch {
      error = 'Invalid arguments: not valid JSON';
    }
    const member = parsed ? this.members.find((m) => m.id === parsed.member_id) : undefined;
    if (parsed && !member) error = `No member "${parsed.member_id}"; members are ${this.members.map((m) => m.id).join(', ')}`;

    let text: string;
    if (member && parsed) {
      const span = context.trace?.child('member', member.id, { member_type: member.kind, tool_call_id: toolCall.id, task: parsed.task });
      try {
        text = memberContent(member, await member.execute(memberContext(context, member, parsed.task, span)));
        span?.end('ok', { content: text });
      } catch (e) {
        span?.end(context.signal.aborted ? 'cancelled' : 'error', { error: e instanceof Error ? e.message : String(e) });
        if (context.signal.aborted) throw e;
        error = `Member ${member.id} failed: ${e instanceof Error ? e.message : String(e)}`;
        text = error;
      }
    } else {
      text = error!;
    }
    context.recordTool({ ...started, result: error ? null : text, error: error ?? null, by: this.id });
    context.emit('ToolCallCompleted', { tool: { ...started, result: text, tool_call_error: Boolean(error) } });
    return { ok: !error, text };
  }
}

/**
 * A member works on the task alone (no team history), streams its own events under its own
 * identity and run id, and its usage counts toward the team's run.
 */
function memberContext(parent: ExecutionContext, member: Runnable, task: string, trace: TraceSpan | undefined): ExecutionContext {
  const runId = timeOrderedId();
  const identity = { ...identityFields(member), member_run_id: runId, parent_run_id: parent.runId };
  const prefix = member.kind === 'team' ? 'Team' : '';
  return {
    ...parent,
    runId,
    message: task,
    history: [],
    // Object.assign, not `{ ...a, ...b }`: V8 (Node 20) takes a slow path for an object literal
    // that starts with two spreads, ~1.6 µs against 0.14, and this runs for every streamed part.
    emit: (name, fields) => parent.emitRaw(`${prefix}${name}`, Object.assign({}, fields, identity)),
    emitRaw: (event, fields) => parent.emitRaw(event, Object.assign({}, identity, fields)),
    recordTool: (execution) => parent.recordTool({ ...execution, by: execution.by ?? member.id }),
    recordMessages: () => {},
    recordContent: () => {},
    ...(trace ? { trace } : {}),
  };
}
