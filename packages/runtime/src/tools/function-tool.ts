/**
 * @module tools/function-tool
 * Function tools: a name, a description, a zod schema for the arguments and an `execute`
 * function. The schema is both what the model sees (as JSON Schema) and what validates the
 * model's arguments before `execute` runs.
 *
 * @example
 * ```ts
 * const getWeather = tool({
 *   name: 'get_weather',
 *   description: 'Current weather for a city',
 *   input: z.object({ city: z.string() }),
 *   execute: async ({ city }) => `Sunny in ${city}`,
 * });
 * ```
 */
import { z } from 'zod';
import type { ToolMedia, ToolSpec } from '../model/model.js';
import type { TraceSpan } from '../components/tracer.js';

/** What a tool's `execute` receives besides its arguments. */
export interface ToolContext {
  runId: string;
  sessionId: string;
  userId: string | undefined;
  /**
   * Under user isolation, the user whose data this call may reach (shared data besides);
   * undefined when the run is not confined. Tools reading per-user data pass it on.
   */
  scopedUserId?: string | undefined;
  /**
   * Under tenancy, the tenant whose data this call may reach (never another's, nor data of no
   * tenant); undefined when the run belongs to no tenant. Tools reading tenant data pass it on.
   */
  scopedTenantId?: string | undefined;
  /** Fires when the run is cancelled; long tools should stop. */
  signal: AbortSignal;
  /** This call's span in the run's trace: a tool may record what it did beneath it (a knowledge search). */
  trace?: TraceSpan;
  /** Reports how far a long call has come: a run event (`ToolCallProgress`) and the call's span. */
  progress?: (update: ToolProgress) => void;
}

/** One progress report of a running tool call (an MCP server's `notifications/progress`). */
export interface ToolProgress {
  progress: number;
  total?: number | undefined;
  message?: string | undefined;
}

export interface FunctionTool<Input = unknown> {
  readonly name: string;
  readonly description: string;
  readonly input: z.ZodType<Input>;
  /** A person must approve each call: the run pauses until it is continued with a decision. */
  readonly requiresConfirmation?: boolean;
  execute(input: Input, context: ToolContext): Promise<unknown> | unknown;
}

/**
 * A tool of any argument type, as agents hold them: each tool validates its own arguments with
 * its own schema before `execute` sees them, so the agent need not know their types.
 */
export interface AnyFunctionTool {
  readonly name: string;
  readonly description: string;
  readonly input: z.ZodType;
  /**
   * The JSON Schema the model sees, when the tool came with one (an MCP server's `inputSchema`);
   * `input` then validates against that same schema. Otherwise it is derived from `input`.
   */
  readonly parameters?: Record<string, unknown>;
  readonly requiresConfirmation?: boolean;
  execute(input: never, context: ToolContext): Promise<unknown> | unknown;
}

export interface ToolDefinition<S extends z.ZodType> {
  name: string;
  description: string;
  input: S;
  /** Pause the run before each call until a person confirms or declines it (`/continue`). */
  requiresConfirmation?: boolean;
  execute(input: z.infer<S>, context: ToolContext): Promise<unknown> | unknown;
}

const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

export function tool<S extends z.ZodType>(definition: ToolDefinition<S>): FunctionTool<z.infer<S>> {
  if (!TOOL_NAME.test(definition.name)) {
    throw new TypeError(`tool name "${definition.name}" must be 1-64 letters, digits, "_" or "-" (what model APIs accept)`);
  }
  return {
    name: definition.name,
    description: definition.description,
    input: definition.input as z.ZodType<z.infer<S>>,
    execute: definition.execute,
    ...(definition.requiresConfirmation ? { requiresConfirmation: true } : {}),
  };
}

/**
 * The JSON Schema the model sees: the input side, so fields with defaults are optional. `$schema`
 * is dropped: some providers reject unknown keys.
 */
export function toToolSpec(t: AnyFunctionTool): ToolSpec {
  if (t.parameters) return { name: t.name, description: t.description, parameters: t.parameters };
  const { $schema: _ignored, ...parameters } = z.toJSONSchema(t.input, { unrepresentable: 'any', io: 'input' }) as Record<string, unknown>;
  return { name: t.name, description: t.description, parameters };
}

const MEDIA_RESULT = Symbol.for('svc.runtime.tool-result-with-media');

/** What a tool's `execute` returns to give the model images (or sounds) besides text. */
export interface ToolResultWithMedia {
  readonly [MEDIA_RESULT]: true;
  readonly text: string;
  readonly media: readonly ToolMedia[];
}

/** A result of text and media: `return withMedia('The chart:', [{ type: 'image', mimeType: 'image/png', data }])`. */
export function withMedia(text: string, media: readonly ToolMedia[]): ToolResultWithMedia {
  return { [MEDIA_RESULT]: true, text, media };
}

function isWithMedia(value: unknown): value is ToolResultWithMedia {
  return typeof value === 'object' && value !== null && MEDIA_RESULT in value;
}

/** `media` is set only when the tool returned some (`withMedia`). */
export type ToolOutcome = { ok: true; result: string; media?: ToolMedia[] } | { ok: false; error: string };

/**
 * Runs one tool call from the model. Bad arguments and tool failures become an error text the
 * model can read and correct, never an exception that ends the run.
 */
export async function executeToolCall(t: AnyFunctionTool, rawArguments: string, context: ToolContext): Promise<ToolOutcome> {
  let args: unknown;
  try {
    args = rawArguments.trim() === '' ? {} : JSON.parse(rawArguments);
  } catch {
    return { ok: false, error: `Invalid arguments for ${t.name}: not valid JSON` };
  }
  const parsed = t.input.safeParse(args);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ');
    return { ok: false, error: `Invalid arguments for ${t.name}: ${issues}` };
  }
  try {
    const value = await t.execute(parsed.data as never, context);
    if (isWithMedia(value)) return { ok: true, result: value.text, ...(value.media.length ? { media: [...value.media] } : {}) };
    return { ok: true, result: typeof value === 'string' ? value : JSON.stringify(value ?? null) };
  } catch (error) {
    return { ok: false, error: `Tool ${t.name} failed: ${error instanceof Error ? error.message : String(error)}` };
  }
}
