/**
 * The behaviour every model provider must share, run for each one against the loopback fake
 * over real HTTP: streaming, tool calls, usage, finish reasons, retries, cancellation,
 * timeouts and error mapping.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { ModelError, type Model, type ModelRequest, type StreamPart } from '../src/model/model.js';
import { AnthropicMessagesModel } from '../src/providers/anthropic/messages.js';
import { OllamaChatModel } from '../src/providers/ollama/chat.js';
import { ollamaBaseUrl } from '../src/providers/ollama/host.js';
import { OpenAIChatModel } from '../src/providers/openai/chat.js';
import { startFakeLlm, type FakeLlm } from './support/fake-llm.js';

const API_KEY = 'sk-test-secret-key-123';

interface Options {
  timeoutMs?: number;
  idleTimeoutMs?: number;
  maxRetries?: number;
}

interface ProviderCase {
  name: string;
  path: string;
  hasApiKey: boolean;
  /** What a content-filtered answer finishes with (Ollama has no such reason: the fake says stop). */
  contentFilterReason: 'content-filter' | 'stop';
  /** The status of an error event inside a 200 stream (only Anthropic's names its kind). */
  streamErrorStatus: number;
  make(url: string, options?: Options): Model;
}

const cases: ProviderCase[] = [
  {
    name: 'openai',
    path: '/v1/chat/completions',
    hasApiKey: true,
    contentFilterReason: 'content-filter',
    streamErrorStatus: 500,
    make: (url, options) => new OpenAIChatModel({ model: 'gpt-test', apiKey: API_KEY, baseURL: `${url}/v1`, retryBaseDelayMs: 10, ...options }),
  },
  {
    name: 'anthropic',
    path: '/v1/messages',
    hasApiKey: true,
    contentFilterReason: 'content-filter',
    streamErrorStatus: 529,
    make: (url, options) => new AnthropicMessagesModel({ model: 'claude-test', apiKey: API_KEY, baseURL: url, retryBaseDelayMs: 10, ...options }),
  },
  {
    name: 'ollama',
    path: '/api/chat',
    hasApiKey: false,
    contentFilterReason: 'stop',
    streamErrorStatus: 500,
    make: (url, options) => new OllamaChatModel({ model: 'llama-test', host: url, retryBaseDelayMs: 10, ...options }),
  },
];

const weatherTool = { name: 'get_weather', description: 'Weather for a city', parameters: { type: 'object', properties: { city: { type: 'string' } } } };
const timeTool = { name: 'get_time', description: 'Time in a zone', parameters: { type: 'object', properties: { zone: { type: 'string' } } } };
const parallelCalls = { kind: 'tool-calls', text: 'Let me check both.', calls: [{ name: 'get_weather', arguments: { city: 'Paris' } }, { name: 'get_time', arguments: { zone: 'CET' } }] } as const;

async function parts(model: Model, request: ModelRequest): Promise<StreamPart[]> {
  const out: StreamPart[] = [];
  for await (const part of model.stream(request)) out.push(part);
  return out;
}

async function failure(promise: Promise<unknown>): Promise<ModelError> {
  try {
    await promise;
  } catch (error) {
    if (ModelError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected a ModelError, got success');
}

const hello: ModelRequest = { messages: [{ role: 'user', content: 'hello there friend' }] };

describe.each(cases)('$name provider against the fake LLM', (c) => {
  let fake: FakeLlm;
  beforeAll(async () => {
    fake = await startFakeLlm();
  });
  afterAll(async () => {
    await fake.close();
  });
  beforeEach(() => {
    fake.requests.length = 0;
    fake.setBehaviour({ chunkDelayMs: 0 });
  });

  it('streams text in several deltas, then one finish with usage', async () => {
    const got = await parts(c.make(fake.url), hello);
    const deltas = got.filter((p) => p.type === 'text-delta');
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.map((p) => p.text).join('')).toBe('You said: hello there friend');
    expect(got.at(-1)).toEqual({ type: 'finish', reason: 'stop', usage: { inputTokens: 12, outputTokens: 5, totalTokens: 17 } });
    expect(got.filter((p) => p.type === 'finish')).toHaveLength(1);
    expect(fake.requests).toHaveLength(1);
    expect(fake.requests[0]?.path).toBe(c.path);
  });

  it('assembles a streamed tool call whose arguments arrive in pieces', async () => {
    const got = await parts(c.make(fake.url), { ...hello, tools: [weatherTool] });
    const calls = got.filter((p) => p.type === 'tool-call');
    expect(calls).toHaveLength(1);
    const call = calls[0]?.call;
    expect(call?.name).toBe('get_weather');
    expect(call?.id).toMatch(/\S/);
    expect(JSON.parse(call?.arguments ?? '')).toEqual({ city: 'Paris' });
    expect(got.at(-1)).toMatchObject({ type: 'finish', reason: 'tool-calls' });
  });

  it('answers after a tool result, with the tool result sent back', async () => {
    const model = c.make(fake.url);
    const first = await model.generate({ ...hello, tools: [weatherTool] });
    const call = first.toolCalls[0];
    if (!call) throw new Error('no tool call');
    const second = await model.generate({
      tools: [weatherTool],
      messages: [
        { role: 'system', content: 'Be brief.' },
        ...hello.messages,
        { role: 'assistant', content: '', toolCalls: [call] },
        { role: 'tool', toolCallId: call.id, name: call.name, content: 'sunny' },
      ],
    });
    expect(second).toMatchObject({ text: 'You said: hello there friend', toolCalls: [], finishReason: 'stop' });
  });

  it('streams text then parallel tool calls, each yielded once, complete and in order', async () => {
    fake.script({ ...parallelCalls, calls: [...parallelCalls.calls] });
    const got = await parts(c.make(fake.url), { ...hello, tools: [weatherTool, timeTool] });
    expect(got.filter((p) => p.type === 'text-delta').map((p) => p.text).join('')).toBe('Let me check both.');
    const calls = got.flatMap((p) => (p.type === 'tool-call' ? [p.call] : []));
    expect(calls.map((call) => [call.name, JSON.parse(call.arguments)])).toEqual([['get_weather', { city: 'Paris' }], ['get_time', { zone: 'CET' }]]);
    expect(new Set(calls.map((call) => call.id)).size).toBe(2);
    expect(got.findIndex((p) => p.type === 'tool-call')).toBeGreaterThan(got.findLastIndex((p) => p.type === 'text-delta'));
    expect(got.at(-1)).toMatchObject({ type: 'finish', reason: 'tool-calls' });
  });

  it('sends the results of parallel tool calls back in one round trip', async () => {
    const model = c.make(fake.url);
    fake.script({ ...parallelCalls, calls: [...parallelCalls.calls] });
    const first = await model.generate({ ...hello, tools: [weatherTool, timeTool] });
    expect(first).toMatchObject({ text: 'Let me check both.', finishReason: 'tool-calls' });
    expect(first.toolCalls).toHaveLength(2);
    const second = await model.generate({
      tools: [weatherTool, timeTool],
      messages: [
        ...hello.messages,
        { role: 'assistant', content: first.text, toolCalls: first.toolCalls },
        ...first.toolCalls.map((call, i) => ({ role: 'tool' as const, toolCallId: call.id, name: call.name, content: ['sunny', '14:00'][i] ?? '' })),
      ],
    });
    expect(second).toMatchObject({ text: 'You said: hello there friend', finishReason: 'stop' });
  });

  it('generates without streaming', async () => {
    const answer = await c.make(fake.url).generate(hello);
    expect(answer).toEqual({ text: 'You said: hello there friend', toolCalls: [], finishReason: 'stop', usage: { inputTokens: 12, outputTokens: 5, totalTokens: 17 } });
    expect(fake.requests[0]?.body).toMatchObject({ stream: false });
    const withTools = await c.make(fake.url).generate({ ...hello, tools: [weatherTool] });
    expect(withTools.finishReason).toBe('tool-calls');
    expect(withTools.toolCalls.map((call) => [call.name, JSON.parse(call.arguments)])).toEqual([['get_weather', { city: 'Paris' }]]);
  });

  it('maps the length finish reason (and content filtering where the provider has it)', async () => {
    fake.script({ kind: 'text', text: 'cut short', finish: 'length', times: 2 });
    expect((await parts(c.make(fake.url), hello)).at(-1)).toMatchObject({ reason: 'length' });
    expect((await c.make(fake.url).generate(hello)).finishReason).toBe('length');
    fake.script({ kind: 'text', text: '', finish: 'content-filter' });
    expect((await parts(c.make(fake.url), hello)).at(-1)).toMatchObject({ reason: c.contentFilterReason });
  });

  it('retries 429s, honouring Retry-After: 0, then succeeds', async () => {
    fake.script({ kind: 'error', status: 429, retryAfter: '0', times: 2 });
    const answer = await c.make(fake.url).generate(hello);
    expect(answer.text).toBe('You said: hello there friend');
    expect(fake.requests).toHaveLength(3);
  });

  it('waits as long as Retry-After says', async () => {
    fake.script({ kind: 'error', status: 429, retryAfter: '1' });
    const started = Date.now();
    await parts(c.make(fake.url), hello);
    // A lower bound only, so a slow machine cannot make it fail.
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    expect(fake.requests).toHaveLength(2);
  });

  it('retries 500s with backoff and gives up after maxRetries with the status', async () => {
    fake.script({ kind: 'error', status: 500, times: 2 });
    expect((await parts(c.make(fake.url), hello)).at(-1)).toMatchObject({ reason: 'stop' });
    expect(fake.requests).toHaveLength(3);

    fake.requests.length = 0;
    fake.script({ kind: 'error', status: 503, message: 'overloaded right now', times: 3 });
    const error = await failure(c.make(fake.url, { maxRetries: 1 }).generate(hello));
    expect(error).toMatchObject({ code: 'MODEL_HTTP_ERROR', status: 503, provider: c.name });
    expect(error.message).toContain('overloaded right now');
    expect(fake.requests).toHaveLength(2);
    fake.script({ kind: 'text', text: 'drain' }); // the unused third 503 is consumed here
    await c.make(fake.url).generate(hello);
  });

  it('retries a connection dropped before any response', async () => {
    fake.script({ kind: 'disconnect', afterChunks: 0 });
    expect((await c.make(fake.url).generate(hello)).text).toBe('You said: hello there friend');
    expect(fake.requests).toHaveLength(2);
  });

  it('never retries once stream bytes were consumed', async () => {
    fake.script({ kind: 'disconnect', afterChunks: 2 });
    const error = await failure(parts(c.make(fake.url), hello));
    expect(error.code).toBe('MODEL_UNREACHABLE');
    expect(error.message).toContain('mid-response');
    expect(fake.requests).toHaveLength(1);
  });

  it('maps an error status to MODEL_HTTP_ERROR with the provider message, never the key', async () => {
    fake.script({ kind: 'error', status: 401, message: `Incorrect API key provided: ${API_KEY}` });
    const error = await failure(parts(c.make(fake.url), hello));
    expect(error).toMatchObject({ code: 'MODEL_HTTP_ERROR', status: 401 });
    expect(error.message).toContain('Incorrect API key provided');
    // Redacted wherever the provider holds the key; a keyless provider has no secret to hide.
    expect(error.message.includes(API_KEY)).toBe(!c.hasApiKey);
    expect(fake.requests).toHaveLength(1);
  });

  it('reports an error event inside a 200 stream as MODEL_HTTP_ERROR, without retrying', async () => {
    fake.script({ kind: 'stream-error', afterChunks: 2, status: 529, message: 'Overloaded' });
    const error = await failure(parts(c.make(fake.url), hello));
    expect(error).toMatchObject({ code: 'MODEL_HTTP_ERROR', status: c.streamErrorStatus, provider: c.name });
    expect(error.message).toContain('Overloaded');
    expect(fake.requests).toHaveLength(1);
  });

  it('cancels mid-stream: rejects with MODEL_CANCELLED and the server sees the connection close', async () => {
    fake.setBehaviour({ chunkDelayMs: 100 });
    fake.script({ kind: 'text', text: 'one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen' });
    const controller = new AbortController();
    const seen: StreamPart[] = [];
    const started = Date.now();
    const error = await failure(
      (async () => {
        for await (const part of c.make(fake.url).stream({ ...hello, signal: controller.signal })) {
          seen.push(part);
          if (part.type === 'text-delta') controller.abort();
        }
      })(),
    );
    expect(error.code).toBe('MODEL_CANCELLED');
    expect(seen.filter((p) => p.type === 'finish')).toHaveLength(0);
    // Generous: the whole scripted stream would take at least 1.5 s.
    expect(Date.now() - started).toBeLessThan(1400);
    await vi.waitFor(() => expect(fake.requests[0]?.clientClosed).toBe(true));
  });

  it('cancels while waiting for the first byte and during a retry wait', async () => {
    fake.script({ kind: 'hang' });
    const early = new AbortController();
    setTimeout(() => early.abort(), 50);
    expect(await failure(c.make(fake.url).generate({ ...hello, signal: early.signal }))).toMatchObject({ code: 'MODEL_CANCELLED' });

    fake.script({ kind: 'error', status: 429, retryAfter: '30' });
    const waiting = new AbortController();
    setTimeout(() => waiting.abort(), 100);
    const started = Date.now();
    expect(await failure(c.make(fake.url).generate({ ...hello, signal: waiting.signal }))).toMatchObject({ code: 'MODEL_CANCELLED' });
    expect(Date.now() - started).toBeLessThan(10_000);

    const already = AbortSignal.abort();
    fake.requests.length = 0;
    expect(await failure(parts(c.make(fake.url), { ...hello, signal: already }))).toMatchObject({ code: 'MODEL_CANCELLED' });
    expect(fake.requests).toHaveLength(0);
  });

  it('stops early without leaking the connection when the consumer breaks', async () => {
    fake.setBehaviour({ chunkDelayMs: 50 });
    fake.script({ kind: 'text', text: 'a b c d e f g h i j k l m n o p' });
    for await (const part of c.make(fake.url).stream(hello)) {
      if (part.type === 'text-delta') break;
    }
    await vi.waitFor(() => expect(fake.requests[0]?.clientClosed).toBe(true));
  });

  it('times out with no response, and when a stream stalls', async () => {
    fake.script({ kind: 'hang' });
    expect(await failure(c.make(fake.url, { timeoutMs: 200 }).generate(hello))).toMatchObject({ code: 'MODEL_TIMEOUT' });
    expect(fake.requests).toHaveLength(1);

    fake.script({ kind: 'hang', afterChunks: 1 });
    const error = await failure(parts(c.make(fake.url, { timeoutMs: 5_000, idleTimeoutMs: 200 }), hello));
    expect(error.code).toBe('MODEL_TIMEOUT');
    expect(error.message).toContain('stalled');
  });

  it('reports malformed JSON as MODEL_BAD_RESPONSE, streaming or not', async () => {
    fake.script({ kind: 'malformed', times: 2 });
    expect(await failure(parts(c.make(fake.url), hello))).toMatchObject({ code: 'MODEL_BAD_RESPONSE' });
    expect(await failure(c.make(fake.url).generate(hello))).toMatchObject({ code: 'MODEL_BAD_RESPONSE' });
  });

  it('reports an unreachable server as MODEL_UNREACHABLE', async () => {
    const gone = await startFakeLlm();
    await gone.close();
    expect(await failure(c.make(gone.url, { maxRetries: 0 }).generate(hello))).toMatchObject({ code: 'MODEL_UNREACHABLE' });
  });
});

describe('anthropic wire details', () => {
  let fake: FakeLlm;
  beforeAll(async () => {
    fake = await startFakeLlm();
  });
  afterAll(async () => {
    await fake.close();
  });
  beforeEach(() => {
    fake.requests.length = 0;
  });
  const model = (maxTokens?: number) => new AnthropicMessagesModel({ model: 'claude-test', apiKey: API_KEY, baseURL: `${fake.url}/`, maxTokens });

  it('sends the key and version headers, a top-level system prompt, max_tokens and tool blocks', async () => {
    const first = await model().generate({ messages: [{ role: 'system', content: 'Be brief.' }, ...hello.messages], tools: [weatherTool], temperature: 0.2 });
    const call = first.toolCalls[0];
    if (!call) throw new Error('no tool call');
    await model().generate({
      tools: [weatherTool],
      maxOutputTokens: 100,
      messages: [
        { role: 'system', content: 'Be brief.' },
        ...hello.messages,
        { role: 'assistant', content: '', toolCalls: [call] },
        { role: 'tool', toolCallId: call.id, name: call.name, content: 'sunny' },
        { role: 'user', content: 'and tomorrow?' },
      ],
    });
    expect(fake.requests[0]?.headers).toMatchObject({ 'x-api-key': API_KEY, 'anthropic-version': '2023-06-01' });
    expect(fake.requests[0]?.headers.authorization).toBeUndefined();
    expect(fake.requests[0]?.body).toMatchObject({
      model: 'claude-test',
      system: 'Be brief.',
      max_tokens: 4096,
      temperature: 0.2,
      tools: [{ name: 'get_weather', description: 'Weather for a city', input_schema: weatherTool.parameters }],
      messages: [{ role: 'user', content: [{ type: 'text', text: 'hello there friend' }] }],
    });
    expect(fake.requests[1]?.body).toMatchObject({
      max_tokens: 100,
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'hello there friend' }] },
        { role: 'assistant', content: [{ type: 'tool_use', id: call.id, name: 'get_weather', input: { city: 'Paris' } }] },
        // The tool result and the next user message form the one user turn Anthropic expects.
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: call.id, content: 'sunny' }, { type: 'text', text: 'and tomorrow?' }] },
      ],
    });
  });

  it('uses the configured max_tokens and answers 400 (like Anthropic) to a tool result in the wrong turn', async () => {
    await model(256).generate(hello);
    expect(fake.requests[0]?.body).toMatchObject({ max_tokens: 256 });
    // The fake enforces the real pairing rule, so the round-trip tests above would catch a bad merge.
    const res = await fetch(`${fake.url}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': API_KEY, 'anthropic-version': '2023-06-01' },
      body: JSON.stringify({ model: 'claude-test', max_tokens: 10, messages: [{ role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_x', content: 'sunny' }] }] }),
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ type: 'error', error: { type: 'invalid_request_error' } });
  });

  it('refuses to start without an API key', () => {
    expect(() => new AnthropicMessagesModel({ model: 'claude-test', apiKey: '' })).toThrow(expect.objectContaining({ code: 'MODEL_NOT_CONFIGURED' }));
  });
});

describe('ollama wire details', () => {
  let fake: FakeLlm;
  beforeAll(async () => {
    fake = await startFakeLlm();
  });
  afterAll(async () => {
    await fake.close();
  });
  beforeEach(() => {
    fake.requests.length = 0;
  });
  const model = () => new OllamaChatModel({ model: 'llama-test', host: fake.url });

  it('sends tool calls with object arguments, results by tool name, and options; makes up missing ids', async () => {
    const first = await model().generate({ messages: [{ role: 'system', content: 'Be brief.' }, ...hello.messages], tools: [weatherTool], temperature: 0, maxOutputTokens: 64 });
    const call = first.toolCalls[0];
    if (!call) throw new Error('no tool call');
    // The fake, like Ollama, sends no id: the adapter must make a unique one.
    expect(call.id).toMatch(/^call_\S+/);
    await parts(model(), {
      tools: [weatherTool],
      messages: [...hello.messages, { role: 'assistant', content: '', toolCalls: [call] }, { role: 'tool', toolCallId: call.id, name: call.name, content: 'sunny' }],
    });
    expect(fake.requests[0]?.headers.authorization).toBeUndefined();
    expect(fake.requests[0]?.body).toMatchObject({
      model: 'llama-test',
      stream: false,
      options: { temperature: 0, num_predict: 64 },
      tools: [{ type: 'function', function: { name: 'get_weather', parameters: weatherTool.parameters } }],
      messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'hello there friend' }],
    });
    expect(fake.requests[1]?.body).toMatchObject({
      stream: true,
      messages: [
        { role: 'user', content: 'hello there friend' },
        { role: 'assistant', content: '', tool_calls: [{ function: { name: 'get_weather', arguments: { city: 'Paris' } } }] },
        { role: 'tool', content: 'sunny', tool_name: 'get_weather' },
      ],
    });
    expect(fake.requests[1]?.body).not.toHaveProperty('options');
  });

  it('reads OLLAMA_HOST-style hosts the way Ollama does', () => {
    expect(ollamaBaseUrl('http://localhost:11434/')).toBe('http://localhost:11434');
    expect(ollamaBaseUrl('gpu-box')).toBe('http://gpu-box:11434');
    expect(ollamaBaseUrl('0.0.0.0:9000')).toBe('http://0.0.0.0:9000');
    expect(ollamaBaseUrl(':11500')).toBe('http://localhost:11500');
    expect(ollamaBaseUrl('https://ollama.example.com/proxy')).toBe('https://ollama.example.com/proxy');
    expect(() => ollamaBaseUrl('not a host')).toThrow(expect.objectContaining({ code: 'MODEL_NOT_CONFIGURED' }));
  });
});
