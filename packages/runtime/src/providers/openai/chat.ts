/**
 * @module providers/openai/chat
 * OpenAI-compatible chat completions (`POST {baseURL}/chat/completions`): OpenAI itself, and
 * the OpenAI-compatible endpoints of Ollama (`/v1`), vLLM, LM Studio and the like, which is
 * why the API key is optional.
 */
import { randomUUID } from 'node:crypto';
import { ModelError, type ChatMessage, type FinishReason, type Model, type ModelRequest, type ModelResponse, type StreamPart, type ToolCall, type Usage } from '../../model/model.js';
import { describeMedia, toolResultText } from '../../model/tool-media.js';
import { parseSse } from '../../net/sse.js';
import { openaiSettingsSchema } from '../../settings/providers.js';
import { defineChatProvider, type ChatFactoryOptions } from '../chat-provider.js';
import { asModelError, httpSettings, postForJson, postForStream, type HttpOptions, type HttpSettings } from '../http.js';
import { array, num, optionalRecord, record, str, type JsonRecord } from '../json-fields.js';
import { argumentsText } from '../tool-arguments.js';
import { tokenCount, usageFrom } from '../usage.js';

export const OPENAI_DEFAULT_BASE_URL = 'https://api.openai.com/v1';

export interface OpenAIChatModelOptions extends HttpOptions {
  /** e.g. `gpt-4o-mini`, or whatever name the compatible server serves. */
  model: string;
  /** Sent as `Authorization: Bearer`; omit for keyless servers (Ollama, vLLM). */
  apiKey?: string | undefined;
  /** Default `https://api.openai.com/v1`. */
  baseURL?: string | undefined;
}

export class OpenAIChatModel implements Model {
  readonly provider = 'openai';
  readonly id: string;
  readonly #url: string;
  readonly #apiKey: string | undefined;
  readonly #http: HttpSettings;

  constructor(options: OpenAIChatModelOptions) {
    if (!options.apiKey && !options.baseURL) {
      throw new ModelError('openai', 'MODEL_NOT_CONFIGURED', 'openai: give an apiKey, or a baseURL for a keyless OpenAI-compatible server');
    }
    this.id = options.model;
    this.#apiKey = options.apiKey || undefined;
    this.#url = `${(options.baseURL ?? OPENAI_DEFAULT_BASE_URL).replace(/\/+$/, '')}/chat/completions`;
    this.#http = httpSettings(this.provider, options);
  }

  async *stream(request: ModelRequest): AsyncGenerator<StreamPart> {
    try {
      const body = await postForStream(this.#http, this.#post(request, true));
      const calls = new Map<number, { id: string; name: string; arguments: string }>();
      let finish: FinishReason | undefined;
      let usage: Usage = { inputTokens: 0, outputTokens: 0, totalTokens: 0 };
      let done = false;
      const flushCalls = function* (): Generator<StreamPart> {
        for (const [, call] of [...calls].sort(([a], [b]) => a - b)) {
          yield { type: 'tool-call', call: { id: call.id || `call_${randomUUID()}`, name: call.name, arguments: argumentsText(call.arguments) } };
        }
        calls.clear();
      };

      for await (const event of parseSse(body)) {
        if (event.data === '[DONE]') {
          done = true;
          break;
        }
        const chunk = record(JSON.parse(event.data), 'a stream chunk');
        if (chunk.error !== undefined) throw streamError(chunk.error);
        // include_usage adds a last chunk, after the one with finish_reason, whose choices are
        // empty and whose usage is the request's; earlier chunks say `usage: null`. Servers that
        // report running usage on every chunk end with the final count, so the last one wins.
        if (optionalRecord(chunk.usage)) usage = readUsage(chunk.usage);
        for (const choice of array(chunk.choices)) {
          const delta = optionalRecord(record(choice, 'a choice').delta);
          const content = str(delta?.content);
          if (content) yield { type: 'text-delta', text: content };
          for (const item of array(delta?.tool_calls)) {
            const part = record(item, 'a tool call delta');
            const index = typeof part.index === 'number' ? part.index : 0;
            const fn = optionalRecord(part.function);
            const call = calls.get(index) ?? { id: '', name: '', arguments: '' };
            call.id ||= str(part.id) ?? '';
            call.name ||= str(fn?.name) ?? '';
            call.arguments += str(fn?.arguments) ?? '';
            calls.set(index, call);
          }
          const reason = str((choice as JsonRecord).finish_reason);
          if (reason) {
            finish = mapFinish(reason, calls.size > 0);
            // Arguments are complete once the choice finishes; the usage chunk may still follow.
            yield* flushCalls();
          }
        }
      }
      // Some compatible servers close without [DONE]; a finish_reason is proof enough of the end.
      if (!done && finish === undefined) throw new Error('the stream ended before the answer finished');
      yield* flushCalls();
      yield { type: 'finish', reason: finish ?? 'other', usage };
    } catch (error) {
      throw asModelError(this.provider, error);
    }
  }

  async generate(request: ModelRequest): Promise<ModelResponse> {
    let json: unknown;
    try {
      json = await postForJson(this.#http, this.#post(request, false));
      const response = record(json, 'the response');
      if (response.error !== undefined) throw streamError(response.error);
      const choice = record(array(response.choices)[0], 'choices[0]');
      const message = record(choice.message, 'choices[0].message');
      const toolCalls: ToolCall[] = array(message.tool_calls).map((item) => {
        const call = record(item, 'a tool call');
        const fn = record(call.function, 'a tool call function');
        return { id: str(call.id) ?? `call_${randomUUID()}`, name: str(fn.name) ?? '', arguments: argumentsText(str(fn.arguments) ?? '') };
      });
      return {
        text: str(message.content) ?? '',
        toolCalls,
        finishReason: mapFinish(str(choice.finish_reason) ?? '', toolCalls.length > 0),
        usage: readUsage(response.usage),
      };
    } catch (error) {
      throw asModelError(this.provider, error);
    }
  }

  #post(request: ModelRequest, stream: boolean) {
    const headers: Record<string, string> = { 'content-type': 'application/json', accept: stream ? 'text/event-stream' : 'application/json' };
    if (this.#apiKey) headers.authorization = `Bearer ${this.#apiKey}`;
    const body: JsonRecord = { model: this.id, messages: toOpenAIMessages(request.messages), stream };
    if (stream) body.stream_options = { include_usage: true };
    if (request.tools?.length) {
      body.tools = request.tools.map((tool) => ({ type: 'function', function: { name: tool.name, description: tool.description, parameters: tool.parameters } }));
    }
    if (request.temperature !== undefined) body.temperature = request.temperature;
    // max_tokens rather than max_completion_tokens: every compatible server understands it.
    if (request.maxOutputTokens !== undefined) body.max_tokens = request.maxOutputTokens;
    return { url: this.#url, headers, body, signal: request.signal };
  }
}

/** The image types OpenAI's vision models accept; other media (audio included) go as their description. */
const OPENAI_IMAGES = new Set(['image/jpeg', 'image/png', 'image/gif', 'image/webp']);

/**
 * The conversation on the wire. A tool message is text only, so the images tools returned follow
 * the run of tool messages answering one assistant turn as a user message of `image_url` data
 * URLs (the tool messages must directly follow their assistant turn, so it comes after them all);
 * each tool message names the images it returned.
 */
export function toOpenAIMessages(messages: readonly ChatMessage[]): JsonRecord[] {
  const out: JsonRecord[] = [];
  let images: JsonRecord[] = [];
  const flush = () => {
    if (images.length) out.push({ role: 'user', content: images });
    images = [];
  };
  for (const message of messages) {
    if (message.role !== 'tool') flush();
    if (message.role === 'tool') {
      const shown = (message.media ?? []).filter((m) => m.type === 'image' && OPENAI_IMAGES.has(m.mimeType));
      const notShown = (message.media ?? []).filter((m) => !shown.includes(m));
      const text = [toolResultText(message.content, notShown), ...shown.map((m) => `${describeMedia(m)}: in the next user message`)].filter((t) => t !== '');
      out.push({ role: 'tool', tool_call_id: message.toolCallId, content: text.join('\n') });
      if (shown.length) {
        images.push({ type: 'text', text: `The images the ${message.name} call (${message.toolCallId}) returned:` });
        for (const m of shown) images.push({ type: 'image_url', image_url: { url: `data:${m.mimeType};base64,${m.data}` } });
      }
    } else {
      out.push(toOpenAIMessage(message));
    }
  }
  flush();
  return out;
}

function toOpenAIMessage(message: Exclude<ChatMessage, { role: 'tool' }>): JsonRecord {
  switch (message.role) {
    case 'system':
    case 'user':
      return { role: message.role, content: message.content };
    case 'assistant':
      return {
        role: 'assistant',
        // OpenAI wants null, not '', beside tool calls.
        content: message.content === '' && message.toolCalls?.length ? null : message.content,
        ...(message.toolCalls?.length
          ? { tool_calls: message.toolCalls.map((call) => ({ id: call.id, type: 'function', function: { name: call.name, arguments: call.arguments } })) }
          : {}),
      };
  }
}

/** Some compatible servers (vLLM, older Ollama) say `stop` even when they called tools. */
function mapFinish(reason: string, calledTools: boolean): FinishReason {
  if (reason === 'tool_calls' || reason === 'function_call' || (reason === 'stop' && calledTools)) return 'tool-calls';
  if (reason === 'stop') return 'stop';
  if (reason === 'length') return 'length';
  if (reason === 'content_filter') return 'content-filter';
  return 'other';
}

/**
 * `prompt_tokens` already counts the cached ones (`prompt_tokens_details.cached_tokens`, sent by
 * OpenAI; many compatible servers send no details at all, and then no cache count is given).
 */
function readUsage(value: unknown): Usage {
  const usage = optionalRecord(value);
  return usageFrom({
    input: num(usage?.prompt_tokens),
    output: num(usage?.completion_tokens),
    total: tokenCount(usage?.total_tokens) || undefined,
    cachedInput: tokenCount(optionalRecord(usage?.prompt_tokens_details)?.cached_tokens),
  });
}

/** An error object inside a 200 (mid-stream failures): a provider error, status from its code when known. */
function streamError(error: unknown): ModelError {
  const details = optionalRecord(error);
  const message = str(details?.message) ?? (typeof error === 'string' ? error : 'unknown error');
  const code = details?.code;
  const status = typeof code === 'number' ? code : 500;
  return new ModelError('openai', 'MODEL_HTTP_ERROR', `openai: error in the response: ${message.slice(0, 300)}`, { status });
}

/** The chat provider OPENAI_API_KEY or OPENAI_BASE_URL selects (its variables: settings/providers). */
export const OPENAI_CHAT = defineChatProvider({
  id: 'openai',
  defaultModel: 'gpt-4o-mini',
  settings: openaiSettingsSchema,
  selectedBy: (s) => s.apiKey !== undefined || s.baseURL !== undefined,
  options: (s) => ({ model: s.model, apiKey: s.apiKey, baseURL: s.baseURL }),
  model: (options: OpenAIChatModelOptions) => new OpenAIChatModel(options),
});

/** OpenAI, or any OpenAI-compatible server: OPENAI_API_KEY, OPENAI_BASE_URL, OPENAI_MODEL. */
export function openai(options: ChatFactoryOptions<OpenAIChatModelOptions> = {}): Model {
  return OPENAI_CHAT.create(options);
}
