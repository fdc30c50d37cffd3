/**
 * @module providers/ollama/chat
 * Ollama's native chat API (`POST {host}/api/chat`). It streams NDJSON (one JSON object per
 * line, and streams unless told `stream: false`), sends each tool call whole with arguments as
 * an object and no id, ends with a `done: true` line carrying the token counts, and reports
 * errors as `{"error": "..."}`, also mid-stream. No API key: Ollama runs locally.
 */
import { randomUUID } from 'node:crypto';
import { ModelError, type ChatMessage, type FinishReason, type Model, type ModelRequest, type ModelResponse, type StreamPart, type ToolCall, type Usage } from '../../model/model.js';
import { parseNdjson } from '../../net/ndjson.js';
import { ollamaSettingsSchema } from '../../settings/providers.js';
import { defineChatProvider, type ChatFactoryOptions } from '../chat-provider.js';
import { asModelError, httpSettings, postForJson, postForStream, type HttpOptions, type HttpSettings } from '../http.js';
import { array, isRecord, num, optionalRecord, record, str, type JsonRecord } from '../json-fields.js';
import { toolResultText } from '../../model/tool-media.js';
import { argumentsObject, argumentsText } from '../tool-arguments.js';
import { usageFrom } from '../usage.js';
import { OLLAMA_DEFAULT_HOST, ollamaBaseUrl } from './host.js';

export interface OllamaChatModelOptions extends HttpOptions {
  /** e.g. `llama3.2`; the model must be pulled on that Ollama server. */
  model: string;
  /** Default `http://localhost:11434`; `host`, `host:port` and `:port` work as with OLLAMA_HOST. */
  host?: string | undefined;
}

export class OllamaChatModel implements Model {
  readonly provider = 'ollama';
  readonly id: string;
  readonly #url: string;
  readonly #http: HttpSettings;

  constructor(options: OllamaChatModelOptions) {
    this.id = options.model;
    this.#url = `${ollamaBaseUrl(options.host ?? OLLAMA_DEFAULT_HOST)}/api/chat`;
    this.#http = httpSettings(this.provider, options);
  }

  async *stream(request: ModelRequest): AsyncGenerator<StreamPart> {
    try {
      const body = await postForStream(this.#http, this.#post(request, true));
      let calledTools = false;
      for await (const value of parseNdjson(body)) {
        const line = record(value, 'a stream line');
        if (line.error !== undefined) throw ollamaError(line.error);
        const message = optionalRecord(line.message);
        const content = str(message?.content);
        if (content) yield { type: 'text-delta', text: content };
        // Ollama sends each call complete in one line, so it can be passed on at once.
        for (const call of readToolCalls(message)) {
          calledTools = true;
          yield { type: 'tool-call', call };
        }
        if (line.done === true) {
          yield { type: 'finish', reason: mapDoneReason(str(line.done_reason), calledTools), usage: readUsage(line) };
          return;
        }
      }
      throw new Error('the stream ended before a done line');
    } catch (error) {
      throw asModelError(this.provider, error);
    }
  }

  async generate(request: ModelRequest): Promise<ModelResponse> {
    try {
      const response = record(await postForJson(this.#http, this.#post(request, false)), 'the response');
      if (response.error !== undefined) throw ollamaError(response.error);
      const message = record(response.message, 'message');
      const toolCalls = readToolCalls(message);
      return {
        text: str(message.content) ?? '',
        toolCalls,
        finishReason: mapDoneReason(str(response.done_reason), toolCalls.length > 0),
        usage: readUsage(response),
      };
    } catch (error) {
      throw asModelError(this.provider, error);
    }
  }

  #post(request: ModelRequest, stream: boolean) {
    const body: JsonRecord = { model: this.id, messages: request.messages.map(toOllamaMessage), stream };
    if (request.tools?.length) {
      body.tools = request.tools.map((tool) => ({ type: 'function', function: { name: tool.name, description: tool.description, parameters: tool.parameters } }));
    }
    const options: JsonRecord = {};
    if (request.temperature !== undefined) options.temperature = request.temperature;
    if (request.maxOutputTokens !== undefined) options.num_predict = request.maxOutputTokens;
    if (Object.keys(options).length > 0) body.options = options;
    const headers = { 'content-type': 'application/json', accept: stream ? 'application/x-ndjson' : 'application/json' };
    return { url: this.#url, headers, body, signal: request.signal };
  }
}

/** The image types Ollama decodes for its vision models. */
const OLLAMA_IMAGES = new Set(['image/jpeg', 'image/png', 'image/webp']);

function toOllamaMessage(message: ChatMessage): JsonRecord {
  switch (message.role) {
    case 'system':
    case 'user':
      return { role: message.role, content: message.content };
    case 'assistant':
      return {
        role: 'assistant',
        content: message.content,
        ...(message.toolCalls?.length
          ? { tool_calls: message.toolCalls.map((call) => ({ function: { name: call.name, arguments: argumentsObject(call.arguments) } })) }
          : {}),
      };
    case 'tool': {
      // Ollama matches results to calls by tool name (its calls have no ids). Any of its messages
      // may carry base64 `images`, which a vision model sees; other media go as their description.
      const images = (message.media ?? []).filter((m) => m.type === 'image' && OLLAMA_IMAGES.has(m.mimeType));
      const described = (message.media ?? []).filter((m) => !images.includes(m));
      return {
        role: 'tool',
        content: toolResultText(message.content, described),
        tool_name: message.name,
        ...(images.length ? { images: images.map((m) => m.data) } : {}),
      };
    }
  }
}

function readToolCalls(message: JsonRecord | undefined): ToolCall[] {
  return array(message?.tool_calls).map((item) => {
    const call = record(item, 'a tool call');
    const fn = record(call.function, 'a tool call function');
    const args = fn.arguments;
    // Objects on the wire; a string is tolerated in case a server sends OpenAI-style text.
    const json = typeof args === 'string' ? args : isRecord(args) ? JSON.stringify(args) : '';
    // Newer Ollama versions may send an id; otherwise one is made so results can be matched.
    return { id: str(call.id) || `call_${randomUUID()}`, name: str(fn.name) ?? '', arguments: argumentsText(json) };
  });
}

/** `stop` also ends a turn that called tools; `load`/`unload` answers carry no generation. */
function mapDoneReason(reason: string | undefined, calledTools: boolean): FinishReason {
  if (reason === undefined || reason === 'stop') return calledTools ? 'tool-calls' : 'stop';
  if (reason === 'length') return 'length';
  return 'other';
}

/**
 * The counts come only on the `done` line (streamed or not). Ollama reports no cache figures:
 * `prompt_eval_count` is what it evaluated for this prompt.
 */
function readUsage(line: JsonRecord): Usage {
  return usageFrom({ input: num(line.prompt_eval_count), output: num(line.eval_count) });
}

function ollamaError(error: unknown): ModelError {
  const message = typeof error === 'string' ? error : (str(optionalRecord(error)?.message) ?? 'unknown error');
  return new ModelError('ollama', 'MODEL_HTTP_ERROR', `ollama: error in the response: ${message.slice(0, 300)}`, { status: 500 });
}

/** The chat provider OLLAMA_HOST or OLLAMA_MODEL selects (its variables: settings/providers). */
export const OLLAMA_CHAT = defineChatProvider({
  id: 'ollama',
  defaultModel: 'llama3.2',
  settings: ollamaSettingsSchema,
  selectedBy: (s) => s.host !== undefined || s.model !== undefined,
  options: (s) => ({ model: s.model, host: s.host }),
  model: (options: OllamaChatModelOptions) => new OllamaChatModel(options),
});

/** Ollama's native API: OLLAMA_HOST, OLLAMA_MODEL. */
export function ollama(options: ChatFactoryOptions<OllamaChatModelOptions> = {}): Model {
  return OLLAMA_CHAT.create(options);
}
