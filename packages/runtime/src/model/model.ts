/**
 * @module model/model
 * The one interface every chat model provider implements. Agents talk only to this; the
 * adapters in providers/ (OpenAI-compatible chat completions, Anthropic messages, Ollama chat)
 * translate it to their wire formats. Shaped after the Vercel AI SDK's spec: a stream of parts, with `generate`
 * built on the same request.
 */

/** A tool call requested by the model. `arguments` is the JSON text the model produced. */
export interface ToolCall {
  id: string;
  name: string;
  arguments: string;
}

/**
 * An image or a sound a tool returned (an MCP server's `image`/`audio` content), base64 with its
 * media type. Providers that accept it in a tool's result send it as such; the others send
 * `describeMedia`'s text in its place.
 */
export interface ToolMedia {
  type: 'image' | 'audio';
  mimeType: string;
  /** Base64, without a `data:` prefix. */
  data: string;
}

export type ChatMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string }
  | { role: 'assistant'; content: string; toolCalls?: ToolCall[] }
  /** `media` is absent from results without any (and from messages stored before it existed). */
  | { role: 'tool'; toolCallId: string; name: string; content: string; media?: ToolMedia[] };

/** A function the model may call; `parameters` is a JSON Schema object. */
export interface ToolSpec {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

/**
 * The tokens one model call used, as the provider reported them. Counts follow the OpenTelemetry
 * GenAI convention (`gen_ai.usage.input_tokens` counts every prompt token, cached or not), so
 * `inputTokens` is the whole prompt whichever way the provider splits it: OpenAI's
 * `prompt_tokens` already includes its cached tokens; Anthropic's `input_tokens` leaves out the
 * cache reads and writes, which the adapter adds back. The cache fields say how much of
 * `inputTokens` the prompt cache served or stored, for pricing them apart; each is set only when
 * the provider reported it (0 included), so absent means "not reported", never "none".
 */
export interface Usage {
  /** Every prompt token, cached ones included. */
  inputTokens: number;
  outputTokens: number;
  /** The provider's total when it gives one, else input + output. */
  totalTokens: number;
  /** Of `inputTokens`, those read from the prompt cache (OpenAI `cached_tokens`, Anthropic `cache_read_input_tokens`). */
  cachedInputTokens?: number;
  /** Of `inputTokens`, those written to the prompt cache (Anthropic `cache_creation_input_tokens`). */
  cacheWriteInputTokens?: number;
}

export type FinishReason = 'stop' | 'tool-calls' | 'length' | 'content-filter' | 'other';

export interface ModelRequest {
  messages: ChatMessage[];
  tools?: ToolSpec[];
  /** Aborting cancels the HTTP request and ends the stream with a MODEL_CANCELLED error. */
  signal?: AbortSignal;
  temperature?: number;
  maxOutputTokens?: number;
}

/**
 * What a stream yields, in order: any number of `text-delta` and `tool-call` parts (a
 * tool call is yielded once, complete, after its argument deltas are assembled), then exactly
 * one `finish`.
 */
export type StreamPart =
  | { type: 'text-delta'; text: string }
  | { type: 'tool-call'; call: ToolCall }
  | { type: 'finish'; reason: FinishReason; usage: Usage };

export interface ModelResponse {
  text: string;
  toolCalls: ToolCall[];
  finishReason: FinishReason;
  usage: Usage;
}

export interface Model {
  /** e.g. `openai`, `anthropic`, `ollama` */
  readonly provider: string;
  /** The model name sent to the provider, e.g. `gpt-4o-mini`. */
  readonly id: string;
  stream(request: ModelRequest): AsyncIterable<StreamPart>;
  generate(request: ModelRequest): Promise<ModelResponse>;
}

export type ModelErrorCode =
  /** No provider is configured (no API key or host in the environment or options). */
  | 'MODEL_NOT_CONFIGURED'
  /** The provider answered with an error status after retries (status is set). */
  | 'MODEL_HTTP_ERROR'
  /** No answer (or no progress on a stream) within the timeout. */
  | 'MODEL_TIMEOUT'
  /** The caller's AbortSignal fired. */
  | 'MODEL_CANCELLED'
  /** The provider's answer could not be understood. */
  | 'MODEL_BAD_RESPONSE'
  /** The provider could not be reached. */
  | 'MODEL_UNREACHABLE';

const MARKER = Symbol.for('svc.runtime.model-error');

export class ModelError extends Error {
  readonly [MARKER] = true;
  readonly code: ModelErrorCode;
  readonly status: number | undefined;
  readonly provider: string;
  /** How long the provider asked us to wait (its `Retry-After`), when it said. */
  readonly retryAfterMs: number | undefined;

  constructor(provider: string, code: ModelErrorCode, message: string, options: { status?: number; cause?: unknown; retryAfterMs?: number | undefined } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ModelError';
    this.provider = provider;
    this.code = code;
    this.status = options.status;
    this.retryAfterMs = options.retryAfterMs;
  }

  static isInstance(value: unknown): value is ModelError {
    return typeof value === 'object' && value !== null && MARKER in value;
  }
}

/** Collects a stream into one response; adapters may use this to implement `generate`. */
export async function collect(stream: AsyncIterable<StreamPart>): Promise<ModelResponse> {
  let text = '';
  const toolCalls: ToolCall[] = [];
  let finish: Extract<StreamPart, { type: 'finish' }> | undefined;
  for await (const part of stream) {
    if (part.type === 'text-delta') text += part.text;
    else if (part.type === 'tool-call') toolCalls.push(part.call);
    else finish = part;
  }
  return {
    text,
    toolCalls,
    finishReason: finish?.reason ?? 'other',
    usage: finish?.usage ?? { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
  };
}
