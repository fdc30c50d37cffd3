/**
 * @module providers/anthropic/messages
 * Anthropic's Messages API (`POST {baseURL}/v1/messages`). The wire differs from OpenAI's in
 * ways this adapter hides: the system prompt is a top-level field, tool calls and results are
 * content blocks (`tool_use` in the assistant turn, `tool_result` in the next user turn), tool
 * arguments are objects, `max_tokens` is required, and a stream is a sequence of typed SSE
 * events where each content block starts, receives deltas and stops.
 */
import { ModelError, type FinishReason, type Model, type ModelRequest, type ModelResponse, type StreamPart, type ToolCall, type Usage } from '../../model/model.js';
import { parseSse } from '../../net/sse.js';
import { anthropicSettingsSchema } from '../../settings/providers.js';
import { defineChatProvider, type ChatFactoryOptions } from '../chat-provider.js';
import { asModelError, httpSettings, postForJson, postForStream, type HttpOptions, type HttpSettings } from '../http.js';
import { array, isRecord, num, optionalRecord, record, str, type JsonRecord } from '../json-fields.js';
import { argumentsText } from '../tool-arguments.js';
import { tokenCount, usageFrom } from '../usage.js';
import { toAnthropicMessages } from './conversation.js';

export const ANTHROPIC_DEFAULT_BASE_URL = 'https://api.anthropic.com';
/** The API version this adapter speaks; Anthropic requires it on every request. */
export const ANTHROPIC_VERSION = '2023-06-01';
/** Anthropic requires `max_tokens`; used when the request does not set maxOutputTokens. */
export const ANTHROPIC_DEFAULT_MAX_TOKENS = 4096;

export interface AnthropicMessagesModelOptions extends HttpOptions {
  /** e.g. `claude-sonnet-4-5`. */
  model: string;
  /** Sent as `x-api-key`. */
  apiKey: string;
  /** Default `https://api.anthropic.com` (without `/v1`, as Anthropic's SDKs take it). */
  baseURL?: string | undefined;
  /** `max_tokens` when a request gives no maxOutputTokens. Default 4096. */
  maxTokens?: number | undefined;
}

/** A content block being streamed; only tool calls need assembling, text is passed through. */
interface ToolBlock {
  id: string;
  name: string;
  json: string;
  /** The `input` given at block start; used if no `input_json_delta` follows. */
  input: unknown;
}

export class AnthropicMessagesModel implements Model {
  readonly provider = 'anthropic';
  readonly id: string;
  readonly #url: string;
  readonly #apiKey: string;
  readonly #maxTokens: number;
  readonly #http: HttpSettings;

  constructor(options: AnthropicMessagesModelOptions) {
    if (!options.apiKey) throw new ModelError('anthropic', 'MODEL_NOT_CONFIGURED', 'anthropic: an apiKey is required (ANTHROPIC_API_KEY)');
    this.id = options.model;
    this.#apiKey = options.apiKey;
    this.#maxTokens = options.maxTokens ?? ANTHROPIC_DEFAULT_MAX_TOKENS;
    this.#url = `${(options.baseURL ?? ANTHROPIC_DEFAULT_BASE_URL).replace(/\/+$/, '')}/v1/messages`;
    this.#http = httpSettings(this.provider, options);
  }

  async *stream(request: ModelRequest): AsyncGenerator<StreamPart> {
    try {
      const body = await postForStream(this.#http, this.#post(request, true));
      const tools = new Map<number, ToolBlock>();
      let counts: AnthropicCounts = {};
      let stopReason: string | undefined;
      let stopped = false;
      for await (const event of parseSse(body)) {
        const data = record(JSON.parse(event.data), 'a stream event');
        const index = num(data.index);
        switch (str(data.type) ?? event.event) {
          case 'message_start':
            counts = readCounts(optionalRecord(data.message)?.usage, counts);
            break;
          case 'content_block_start': {
            const block = record(data.content_block, 'content_block');
            if (block.type === 'tool_use') tools.set(index, { id: str(block.id) ?? '', name: str(block.name) ?? '', json: '', input: block.input });
            break;
          }
          case 'content_block_delta': {
            const delta = record(data.delta, 'delta');
            if (delta.type === 'text_delta' && str(delta.text)) yield { type: 'text-delta', text: str(delta.text) ?? '' };
            const tool = tools.get(index);
            if (delta.type === 'input_json_delta' && tool) tool.json += str(delta.partial_json) ?? '';
            // thinking_delta, signature_delta, citations: not part of the Model interface.
            break;
          }
          case 'content_block_stop': {
            const tool = tools.get(index);
            if (tool) {
              tools.delete(index);
              yield { type: 'tool-call', call: toolCall(tool.id, tool.name, tool.json || inputJson(tool.input)) };
            }
            break;
          }
          case 'message_delta':
            stopReason = str(optionalRecord(data.delta)?.stop_reason) ?? stopReason;
            counts = readCounts(data.usage, counts);
            break;
          case 'message_stop':
            stopped = true;
            break;
          case 'error':
            throw anthropicError(data.error);
          // `ping` and event types added later are skipped, as Anthropic's versioning policy asks.
        }
        if (stopped) break;
      }
      if (!stopped) throw new Error('the stream ended before message_stop');
      yield { type: 'finish', reason: mapStopReason(stopReason), usage: toUsage(counts) };
    } catch (error) {
      throw asModelError(this.provider, error);
    }
  }

  async generate(request: ModelRequest): Promise<ModelResponse> {
    try {
      const response = record(await postForJson(this.#http, this.#post(request, false)), 'the response');
      if (response.type === 'error') throw anthropicError(response.error);
      let text = '';
      const toolCalls: ToolCall[] = [];
      for (const item of array(response.content)) {
        const block = record(item, 'a content block');
        if (block.type === 'text') text += str(block.text) ?? '';
        else if (block.type === 'tool_use') toolCalls.push(toolCall(str(block.id) ?? '', str(block.name) ?? '', inputJson(block.input)));
      }
      return { text, toolCalls, finishReason: mapStopReason(str(response.stop_reason)), usage: toUsage(readCounts(response.usage)) };
    } catch (error) {
      throw asModelError(this.provider, error);
    }
  }

  #post(request: ModelRequest, stream: boolean) {
    const headers = {
      'content-type': 'application/json',
      accept: stream ? 'text/event-stream' : 'application/json',
      'x-api-key': this.#apiKey,
      'anthropic-version': ANTHROPIC_VERSION,
    };
    const { system, messages } = toAnthropicMessages(request.messages);
    const body: JsonRecord = { model: this.id, max_tokens: request.maxOutputTokens ?? this.#maxTokens, messages, stream };
    if (system !== undefined) body.system = system;
    if (request.tools?.length) {
      body.tools = request.tools.map((tool) => ({ name: tool.name, description: tool.description, input_schema: tool.parameters }));
    }
    if (request.temperature !== undefined) body.temperature = request.temperature;
    return { url: this.#url, headers, body, signal: request.signal };
  }
}

function toolCall(id: string, name: string, json: string): ToolCall {
  return { id, name, arguments: argumentsText(json) };
}

/** A tool_use `input` as JSON text; the empty `{}` placeholder of a streamed block stays empty. */
function inputJson(input: unknown): string {
  return isRecord(input) && Object.keys(input).length > 0 ? JSON.stringify(input) : '';
}

function mapStopReason(reason: string | undefined): FinishReason {
  switch (reason) {
    case 'end_turn':
    case 'stop_sequence':
      return 'stop';
    case 'tool_use':
      return 'tool-calls';
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return 'length';
    case 'refusal':
      return 'content-filter';
    default:
      return 'other';
  }
}

/** The usage fields as Anthropic sends them; undefined when not (yet) reported. */
interface AnthropicCounts {
  input?: number | undefined;
  cacheWrite?: number | undefined;
  cacheRead?: number | undefined;
  output?: number | undefined;
}

/**
 * Usage arrives in parts: message_start carries the input counts and a first output count;
 * message_delta carries cumulative counts (the output always, the input ones on newer API
 * versions). Being cumulative they never go down, so each field keeps the larger of what it had
 * and what an event says: a later event that leaves a field out (or a gateway that zeroes it)
 * cannot erase the count message_start gave.
 */
function readCounts(value: unknown, previous: AnthropicCounts = {}): AnthropicCounts {
  const usage = optionalRecord(value);
  return {
    input: later(previous.input, usage?.input_tokens),
    cacheWrite: later(previous.cacheWrite, usage?.cache_creation_input_tokens),
    cacheRead: later(previous.cacheRead, usage?.cache_read_input_tokens),
    output: later(previous.output, usage?.output_tokens),
  };
}

function later(had: number | undefined, field: unknown): number | undefined {
  const now = tokenCount(field);
  return now === undefined ? had : had === undefined ? now : Math.max(had, now);
}

/** Anthropic's `input_tokens` leaves out the cache reads and writes; Usage counts the whole prompt. */
function toUsage(counts: AnthropicCounts): Usage {
  const input = (counts.input ?? 0) + (counts.cacheWrite ?? 0) + (counts.cacheRead ?? 0);
  return usageFrom({ input, output: counts.output ?? 0, cachedInput: counts.cacheRead, cacheWriteInput: counts.cacheWrite });
}

/** Anthropic's error types, for errors that arrive inside a 200 stream with no status. */
const ERROR_STATUS: Record<string, number> = {
  invalid_request_error: 400,
  authentication_error: 401,
  permission_error: 403,
  not_found_error: 404,
  request_too_large: 413,
  rate_limit_error: 429,
  api_error: 500,
  overloaded_error: 529,
};

function anthropicError(error: unknown): ModelError {
  const details = optionalRecord(error);
  const message = str(details?.message) ?? 'unknown error';
  const status = ERROR_STATUS[str(details?.type) ?? ''] ?? 500;
  return new ModelError('anthropic', 'MODEL_HTTP_ERROR', `anthropic: error in the response: ${message.slice(0, 300)}`, { status });
}

/** The chat provider ANTHROPIC_API_KEY selects (its variables: settings/providers). */
export const ANTHROPIC_CHAT = defineChatProvider({
  id: 'anthropic',
  defaultModel: 'claude-sonnet-4-5',
  settings: anthropicSettingsSchema,
  selectedBy: (s) => s.apiKey !== undefined,
  // No key at all reaches the model as '', which refuses it naming ANTHROPIC_API_KEY.
  options: (s) => ({ model: s.model, apiKey: s.apiKey ?? '', baseURL: s.baseURL }),
  model: (options: AnthropicMessagesModelOptions) => new AnthropicMessagesModel(options),
});

/** Anthropic: ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL, ANTHROPIC_MODEL. */
export function anthropic(options: ChatFactoryOptions<AnthropicMessagesModelOptions> = {}): Model {
  return ANTHROPIC_CHAT.create(options);
}
