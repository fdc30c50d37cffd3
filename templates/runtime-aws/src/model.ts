/**
 * A minimal OpenAI-compatible chat-completions model (OpenAI, or the /v1 endpoint of Ollama,
 * vLLM, LM Studio...). Why it lives here: @svc/runtime 0.1.0 exports the `Model` interface but
 * not its own OpenAI adapter, and does not pick a model from the environment yet. When it does,
 * delete this file and pass the runtime's model instead. It asks for whole answers (no token
 * streaming) because that keeps this file small; the runtime still streams run events.
 */
import { ModelError, type ChatMessage, type Model, type ModelRequest, type ModelResponse, type StreamPart } from '@svc/runtime';

/** Not exported by @svc/runtime 0.1.0 on its own, so taken from the response type. */
type FinishReason = ModelResponse['finishReason'];

const PROVIDER = 'openai';
const DEFAULT_BASE_URL = 'https://api.openai.com/v1';
const DEFAULT_MODEL = 'gpt-4o-mini';

interface WireToolCall {
  id?: string;
  function?: { name?: string; arguments?: string };
}
interface WireResponse {
  choices?: { message?: { content?: string | null; tool_calls?: WireToolCall[] }; finish_reason?: string }[];
  usage?: { prompt_tokens?: number; completion_tokens?: number; total_tokens?: number };
}

function toWire(message: ChatMessage): Record<string, unknown> {
  switch (message.role) {
    case 'assistant':
      return {
        role: 'assistant',
        content: message.content,
        ...(message.toolCalls?.length
          ? { tool_calls: message.toolCalls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } })) }
          : {}),
      };
    case 'tool':
      return { role: 'tool', tool_call_id: message.toolCallId, content: message.content };
    default:
      return { role: message.role, content: message.content };
  }
}

function finishReason(value: string | undefined): FinishReason {
  if (value === 'stop') return 'stop';
  if (value === 'tool_calls') return 'tool-calls';
  if (value === 'length') return 'length';
  if (value === 'content_filter') return 'content-filter';
  return 'other';
}

export class OpenAICompatibleModel implements Model {
  readonly provider = PROVIDER;
  readonly id: string;
  readonly #url: string;
  readonly #apiKey: string | undefined;

  constructor(options: { model: string; apiKey?: string | undefined; baseURL?: string | undefined }) {
    this.id = options.model;
    this.#apiKey = options.apiKey || undefined;
    this.#url = `${(options.baseURL || DEFAULT_BASE_URL).replace(/\/+$/, '')}/chat/completions`;
  }

  async generate(request: ModelRequest): Promise<ModelResponse> {
    let response: Response;
    try {
      response = await fetch(this.#url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(this.#apiKey ? { authorization: `Bearer ${this.#apiKey}` } : {}) },
        body: JSON.stringify({
          model: this.id,
          messages: request.messages.map(toWire),
          ...(request.tools?.length
            ? { tools: request.tools.map((t) => ({ type: 'function', function: { name: t.name, description: t.description, parameters: t.parameters } })) }
            : {}),
          ...(request.temperature === undefined ? {} : { temperature: request.temperature }),
          ...(request.maxOutputTokens === undefined ? {} : { max_tokens: request.maxOutputTokens }),
        }),
        ...(request.signal ? { signal: request.signal } : {}),
      });
    } catch (error) {
      if (request.signal?.aborted) throw new ModelError(PROVIDER, 'MODEL_CANCELLED', 'the run was cancelled', { cause: error });
      throw new ModelError(PROVIDER, 'MODEL_UNREACHABLE', `could not reach ${this.#url}`, { cause: error });
    }
    if (!response.ok) {
      // The body is not echoed: providers sometimes include request details in error bodies.
      throw new ModelError(PROVIDER, 'MODEL_HTTP_ERROR', `${this.#url} answered HTTP ${response.status}`, { status: response.status });
    }
    const body = (await response.json().catch(() => ({}))) as WireResponse;
    const choice = body.choices?.[0];
    if (!choice?.message) throw new ModelError(PROVIDER, 'MODEL_BAD_RESPONSE', 'the answer had no message');
    const input = body.usage?.prompt_tokens ?? 0;
    const output = body.usage?.completion_tokens ?? 0;
    return {
      text: choice.message.content ?? '',
      toolCalls: (choice.message.tool_calls ?? []).map((c, i) => ({
        id: c.id || `call_${i}`,
        name: c.function?.name ?? '',
        arguments: c.function?.arguments || '{}',
      })),
      finishReason: finishReason(choice.finish_reason),
      usage: { inputTokens: input, outputTokens: output, totalTokens: body.usage?.total_tokens ?? input + output },
    };
  }

  async *stream(request: ModelRequest): AsyncGenerator<StreamPart> {
    const answer = await this.generate(request);
    if (answer.text) yield { type: 'text-delta', text: answer.text };
    for (const call of answer.toolCalls) yield { type: 'tool-call', call };
    yield { type: 'finish', reason: answer.finishReason, usage: answer.usage };
  }
}

/** A model when OPENAI_API_KEY (or OPENAI_BASE_URL, for keyless local servers) is set. */
export function modelFromEnv(env: Record<string, string | undefined>): Model | undefined {
  const apiKey = env.OPENAI_API_KEY?.trim();
  const baseURL = env.OPENAI_BASE_URL?.trim();
  if (!apiKey && !baseURL) return undefined;
  return new OpenAICompatibleModel({ model: env.OPENAI_MODEL?.trim() || DEFAULT_MODEL, apiKey, baseURL });
}
