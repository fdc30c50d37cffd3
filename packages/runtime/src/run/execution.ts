/**
 * @module run/execution
 * The contract between the runner and what it runs. Agents, teams and workflows implement
 * `Runnable`; the runner owns persistence, cancellation and event delivery around them.
 */
import type { HostedComponent } from '../components/component.js';
import type { RunCaller } from '../components/caller.js';
import type { TraceSpan } from '../components/tracer.js';
import type { ChatMessage, Model, Usage } from '../model/model.js';
import type { SessionType, ToolExecution } from '../sessions/types.js';

export interface ExecutionContext {
  runId: string;
  sessionId: string;
  userId: string | undefined;
  /** Under user isolation, the user whose data (and shared data) this run may reach; undefined: unconfined. */
  scopedUserId?: string | undefined;
  /** Under tenancy, the tenant whose data this run may reach (its session's); undefined: none (tenancy off, a global admin's run). */
  scopedTenantId?: string | undefined;
  /** Who started (or continued) the run, for tools that act with the caller's own credentials. */
  principal?: RunCaller | undefined;
  message: string;
  /** Earlier turns of this session, oldest first (user, assistant and tool messages). */
  history: ChatMessage[];
  signal: AbortSignal;
  /** The runtime's model, used when the component has none of its own. */
  defaultModel: Model | undefined;
  /**
   * Sends an event to the caller. `name` is the unprefixed event (`RunContent`); teams get
   * theirs prefixed (`TeamRunContent`) by the runner.
   */
  emit(name: string, fields?: Record<string, unknown>): void;
  /** Sends an event under exactly this name; `fields` override the run's identity fields. */
  emitRaw(event: string, fields?: Record<string, unknown>): void;
  /** Records a tool execution as soon as it finishes, so a cancelled run keeps it. */
  recordTool(execution: ToolExecution): void;
  /** Records this run's conversation so far, so a cancelled run keeps it. */
  recordMessages(messages: ChatMessage[]): void;
  /** Reports streamed text, so a cancelled run keeps what the caller already saw. */
  recordContent(text: string): void;
  /** Adds a model call's usage to the run (and to its budgets); `model`: the model's id, for its price. */
  addUsage(usage: Usage, model?: string): void;
  /**
   * Counts a model call made for the run after it has answered (memory extraction) against the
   * run's budgets only: its saved metrics are final by then. Absent: no budgets apply.
   */
  countUsage?(usage: Usage, model?: string): void;
  /**
   * Called before every model call: rejects (BUDGET_EXCEEDED) when a budget of the run is used
   * up, which ends the run. Absent: no budgets apply.
   */
  beforeModelCall?(): Promise<void>;
  /**
   * The span this execution records its work under (the run's, or a team member's or workflow
   * step's); absent when nothing traces the run.
   */
  trace?: TraceSpan;
  /**
   * Set when a paused run is continued: the run's conversation so far (ending with the model's
   * tool calls that waited) and the person's decision for each waiting call, by call id.
   */
  resume?: { messages: ChatMessage[]; decisions: ReadonlyMap<string, boolean> };
}

export interface ExecutionResult {
  content: string;
  /** The run stopped to wait for a person: these tool calls need a decision (see `resume`). */
  paused?: { tools: ToolExecution[] };
}

/**
 * The content of a member's (or step's) run. A member that stops to wait for a person cannot
 * be continued from inside a team or workflow, so that ends the run with a clear reason.
 */
export function memberContent(member: Runnable, result: ExecutionResult): string {
  if (result.paused) {
    const names = [...new Set(result.paused.tools.map((t) => t.tool_name))].join(', ');
    throw new RunFailure(
      `${member.name ?? member.id} needs a person to confirm ${names}; tools that need confirmation work only in agents run directly`,
      'ConfirmationNotSupported',
    );
  }
  return result.content;
}

export interface Runnable extends HostedComponent {
  readonly kind: SessionType;
  /** True when `execute` honours `context.resume` (agents with confirmation tools). */
  readonly supportsResume?: boolean;
  execute(context: ExecutionContext): Promise<ExecutionResult>;
}

/** Whether a hosted component can be run (agents, teams and workflows that implement `execute`). */
export function isRunnable(component: HostedComponent): component is Runnable {
  return typeof (component as Runnable).execute === 'function' && typeof (component as Runnable).kind === 'string';
}

/** A run that could not complete for a reason the caller should read (not a crash). */
export class RunFailure extends Error {
  readonly errorType: string;
  constructor(message: string, errorType = 'RunFailure') {
    super(message);
    this.name = 'RunFailure';
    this.errorType = errorType;
  }
}

export const NO_MODEL_MESSAGE =
  'No model is configured: set OPENAI_API_KEY (or OPENAI_BASE_URL for an OpenAI-compatible server such as vLLM or ' +
  "Ollama's /v1), ANTHROPIC_API_KEY or OLLAMA_HOST, or pass a model to the component";

/** Picks the component's model, else the runtime's, else fails with what to configure. */
export function requireModel(own: Model | undefined, context: ExecutionContext, what: string): Model {
  const model = own ?? context.defaultModel;
  if (!model) throw new RunFailure(`${what} cannot run. ${NO_MODEL_MESSAGE}.`, 'ModelNotConfigured');
  return model;
}
