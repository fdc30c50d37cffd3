/**
 * A loopback fake LLM for tests and benchmarks: a real `node:http` server on 127.0.0.1 that
 * speaks the three wire formats the runtime's model providers use, so their real HTTP, SSE and
 * NDJSON code runs in every offline test, and the OpenAI Responses API, so real coding clients
 * (Codex) can be driven offline too.
 *
 *   POST /v1/chat/completions   OpenAI-compatible: JSON, or SSE when `stream: true`
 *   POST /v1/messages           Anthropic Messages: JSON, or SSE when `stream: true`
 *   POST /api/chat              Ollama: NDJSON unless `stream: false` (Ollama streams by default)
 *   POST /v1/responses          OpenAI Responses: JSON, or SSE when `stream: true`. Functions
 *                               inside a `namespace` tool are named `<namespace>.<function>`
 *                               in `toolNames` and tool calls (real names cannot contain dots)
 *   POST /v1/embeddings, /api/embed   embeddings, as `fake-embeddings.ts` answers them (not
 *                               recorded in `requests`, which stays a log of chat calls)
 *
 * Point providers at it with `openai({ baseURL: `${fake.url}/v1` })`,
 * `anthropic({ baseURL: fake.url })` or `ollama({ host: fake.url })`.
 *
 * Default answer (instant, no delays): if tools are offered and the conversation has no tool
 * result yet, call the first offered tool with `behaviour.toolArguments[name]` (default
 * `get_weather -> {"city":"Paris"}`, others `{}`); otherwise answer `You said: <last user
 * message>`. Streamed text comes a word per chunk and tool-call arguments are split across
 * several chunks, as real providers do.
 *
 * Requests are checked against the rules the real APIs enforce (Anthropic: `x-api-key`,
 * `anthropic-version`, `max_tokens`, only user/assistant roles (and `system` under Claude
 * Code's beta header), `input_schema`, non-empty text blocks, every `tool_result` answering a
 * `tool_use` of the previous message; Ollama: tool-call arguments are objects; Responses: a bearer key, `model`, every `function_call_output`
 * answering an earlier `function_call`) and answered with that API's 400/401, so an adapter
 * cannot pass here with a request the real service would reject.
 *
 * `script(...)` queues one-shot replies (faults or fixed answers) consumed by the next requests
 * in order; `setBehaviour(...)` changes what every later request does (`reply` picks a reply
 * from the conversation, for clients that interleave side requests with the one under test).
 * `requests` records what the clients sent.
 *
 * @example
 *   const fake = await startFakeLlm();
 *   fake.script({ kind: 'error', status: 429, retryAfter: '0', times: 2 }); // then succeeds
 *   fake.setBehaviour({ chunkDelayMs: 50 });                               // slow stream
 *   ...
 *   await fake.close();
 */
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { embeddingsReply } from './fake-embeddings.js';

export type FakeWire = 'openai' | 'anthropic' | 'ollama' | 'responses';

export interface FakeRequest {
  wire: FakeWire;
  path: string;
  headers: IncomingHttpHeaders;
  /** The parsed JSON body (undefined if it was not JSON); check it with `toMatchObject`. */
  body: unknown;
  /** True once the client closed the connection before the response was complete. */
  clientClosed: boolean;
  /** What the request's conversation holds, as the default answer reads it. */
  conversation: FakeConversation;
}

/** What the default answer may depend on. */
export interface FakeConversation {
  wire: FakeWire;
  lastUserMessage: string;
  /** The system text (system messages, Anthropic's `system`, the Responses API's `instructions`), joined by blank lines. */
  system: string;
  toolNames: string[];
  /** Contents of the tool results in the conversation, in order. */
  toolResults: string[];
}

export interface FakeBehaviour {
  /** Tool-call arguments by tool name for the default answer (unknown tools get `{}`). */
  toolArguments: Record<string, Record<string, unknown>>;
  /** The default text answer. */
  answer: (conversation: FakeConversation) => string;
  /** Delay before each streamed chunk (and before a JSON answer). 0 keeps answers instant. */
  chunkDelayMs: number;
  /** Token usage reported with every answer. */
  usage: { inputTokens: number; outputTokens: number };
  /** The reply to a request no scripted reply answers; undefined keeps the default answer. */
  reply: (conversation: FakeConversation) => FakeReply | undefined;
}

export type FakeFinish = 'stop' | 'length' | 'content-filter';

export interface FakeToolCall {
  name: string;
  arguments: Record<string, unknown>;
}

export type FakeReply = { times?: number } & (
  /** Answer this text (with this finish reason). */
  | { kind: 'text'; text: string; finish?: FakeFinish }
  /** Call this tool. */
  | { kind: 'tool-call'; name: string; arguments: Record<string, unknown> }
  /** Say `text` (if any), then call these tools in parallel, as one answer. */
  | { kind: 'tool-calls'; calls: FakeToolCall[]; text?: string }
  /** Stream the default answer's first `afterChunks` chunks, then the wire's in-stream error event (an HTTP error when not streaming). */
  | { kind: 'stream-error'; afterChunks: number; status: number; message?: string }
  /** Answer an error status in the wire's error format, optionally with Retry-After. */
  | { kind: 'error'; status: number; message?: string; retryAfter?: string }
  /** Send the default answer's first `afterChunks` chunks, then destroy the socket (0: before any response). */
  | { kind: 'disconnect'; afterChunks: number }
  /** Send nothing (no headers) or, with `afterChunks`, that many chunks, then go silent until the client leaves. */
  | { kind: 'hang'; afterChunks?: number }
  /** A 200 whose body (or, streaming, whose second chunk) is not valid JSON. */
  | { kind: 'malformed' }
);

export interface FakeLlm {
  /** e.g. `http://127.0.0.1:43123` (no trailing slash). */
  url: string;
  requests: FakeRequest[];
  script(...replies: FakeReply[]): void;
  setBehaviour(changes: Partial<FakeBehaviour>): void;
  close(): Promise<void>;
}

const WIRES: Record<string, FakeWire | undefined> = {
  '/v1/chat/completions': 'openai',
  '/v1/messages': 'anthropic',
  '/api/chat': 'ollama',
  '/v1/responses': 'responses',
};

const defaultBehaviour = (): FakeBehaviour => ({
  toolArguments: { get_weather: { city: 'Paris' } },
  answer: (conversation) => `You said: ${conversation.lastUserMessage}`,
  chunkDelayMs: 0,
  usage: { inputTokens: 12, outputTokens: 5 },
  reply: () => undefined,
});

export async function startFakeLlm(options: Partial<FakeBehaviour> = {}): Promise<FakeLlm> {
  let behaviour: FakeBehaviour = { ...defaultBehaviour(), ...options };
  const queue: FakeReply[] = [];
  const requests: FakeRequest[] = [];
  let counter = 0;

  const server = createServer((req, res) => {
    void handle(req, res).catch(() => res.destroy());
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    const wire: FakeWire | undefined = WIRES[path];
    const raw = await readAll(req);
    const embeddings = req.method === 'POST' ? embeddingsReply(path, parseJson(raw)) : undefined;
    if (embeddings) {
      res.writeHead(embeddings.status, { 'content-type': 'application/json' }).end(JSON.stringify(embeddings.body));
      return;
    }
    if (req.method !== 'POST' || !wire) {
      res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: `no route ${req.method} ${path}` }));
      return;
    }
    let body: unknown;
    try {
      body = JSON.parse(raw) as unknown;
    } catch {
      body = undefined;
    }
    const conversation = readConversation(wire, body);
    const record: FakeRequest = { wire, path, headers: req.headers, body, clientClosed: false, conversation };
    requests.push(record);
    res.on('close', () => {
      if (!res.writableFinished) record.clientClosed = true;
    });

    const problem = checkRequest(wire, req.headers, body);
    if (problem) {
      res.writeHead(problem.status, { 'content-type': 'application/json' }).end(JSON.stringify(errorBody(wire, problem.status, problem.message)));
      return;
    }

    const reply = takeReply() ?? behaviour.reply(conversation);
    const streaming = wire === 'ollama' ? field(body, 'stream') !== false : field(body, 'stream') === true;
    const model = field(body, 'model');
    const answer = answerFor(reply, conversation);
    const n = ++counter;

    if (reply?.kind === 'error' || (reply?.kind === 'stream-error' && !streaming)) {
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (reply.kind === 'error' && reply.retryAfter !== undefined) headers['retry-after'] = reply.retryAfter;
      res.writeHead(reply.status, headers).end(JSON.stringify(errorBody(wire, reply.status, reply.message ?? `fake error ${reply.status}`)));
      return;
    }
    if (reply?.kind === 'hang' && reply.afterChunks === undefined) return; // the client's timeout ends it
    if (reply?.kind === 'disconnect' && reply.afterChunks === 0) {
      req.socket.destroy();
      return;
    }

    if (!streaming) {
      await delay(behaviour.chunkDelayMs);
      const payload = reply?.kind === 'malformed' ? '{"id": "broken", "choices": [' : JSON.stringify(jsonAnswer(wire, answer, model, n));
      if (reply?.kind === 'disconnect') {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(payload.length) });
        await write(res, payload.slice(0, payload.length / 2));
        res.destroy();
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end(payload);
      return;
    }

    let frames = streamFrames(wire, answer, model, n, wire === 'openai' && field(field(body, 'stream_options'), 'include_usage') === true);
    if (reply?.kind === 'malformed') frames = [frames[0] ?? '', MALFORMED_FRAME[wire]];
    if (reply?.kind === 'stream-error') frames = [...frames.slice(0, reply.afterChunks), errorFrame(wire, reply.status, reply.message ?? `fake error ${reply.status}`)];
    const contentType = wire === 'ollama' ? 'application/x-ndjson' : 'text/event-stream';
    res.writeHead(200, { 'content-type': contentType, 'cache-control': 'no-cache' });
    res.flushHeaders();
    const limit = reply?.kind === 'disconnect' || reply?.kind === 'hang' ? (reply.afterChunks ?? 0) : frames.length;
    for (const frame of frames.slice(0, limit)) {
      await delay(behaviour.chunkDelayMs);
      if (res.destroyed) return;
      await write(res, frame);
    }
    if (reply?.kind === 'hang') return;
    if (reply?.kind === 'disconnect') {
      res.destroy();
      return;
    }
    res.end();
  }

  function takeReply(): FakeReply | undefined {
    const head = queue[0];
    if (!head) return undefined;
    if ((head.times ?? 1) <= 1) queue.shift();
    else queue[0] = { ...head, times: (head.times ?? 1) - 1 };
    return head;
  }

  function answerFor(reply: FakeReply | undefined, conversation: FakeConversation): Answer {
    const usage = behaviour.usage;
    if (reply?.kind === 'text') return { text: reply.text, toolCalls: [], finish: reply.finish ?? 'stop', usage };
    if (reply?.kind === 'tool-call') return { toolCalls: [{ name: reply.name, arguments: reply.arguments }], finish: 'tool-calls', usage };
    if (reply?.kind === 'tool-calls') return { ...(reply.text === undefined ? {} : { text: reply.text }), toolCalls: reply.calls, finish: 'tool-calls', usage };
    const firstTool = conversation.toolNames[0];
    if (firstTool !== undefined && conversation.toolResults.length === 0) {
      return { toolCalls: [{ name: firstTool, arguments: behaviour.toolArguments[firstTool] ?? {} }], finish: 'tool-calls', usage };
    }
    return { text: behaviour.answer(conversation), toolCalls: [], finish: 'stop', usage };
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    script: (...replies) => queue.push(...replies),
    setBehaviour: (changes) => {
      behaviour = { ...behaviour, ...changes };
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

interface Answer {
  text?: string;
  toolCalls: FakeToolCall[];
  finish: FakeFinish | 'tool-calls';
  usage: { inputTokens: number; outputTokens: number };
}

function readAll(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function delay(ms: number): Promise<void> {
  return ms > 0 ? new Promise((resolve) => setTimeout(resolve, ms)) : Promise.resolve();
}

/** Resolves once the frame is handed to the socket, so a following destroy cannot drop it. */
function write(res: ServerResponse, frame: string): Promise<void> {
  return new Promise((resolve) => res.write(frame, () => resolve()));
}

/** Reads a field of a JSON value that may not be an object (client bodies are untrusted). */
function field(value: unknown, key: string): unknown {
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[key] : undefined;
}

function list(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

/** Text of a string or of content blocks (`{text}` or nested `{content}`). */
function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  return list(content)
    .map((block) => {
      const inner = field(block, 'text') ?? field(block, 'content');
      return typeof inner === 'string' ? inner : '';
    })
    .join('');
}

function readConversation(wire: FakeWire, body: unknown): FakeConversation {
  if (wire === 'responses') return readResponsesConversation(body);
  const toolNames = list(field(body, 'tools'))
    .map((tool) => (wire === 'anthropic' ? field(tool, 'name') : field(field(tool, 'function'), 'name')))
    .filter((name): name is string => typeof name === 'string');
  const toolResults: string[] = [];
  let lastUserMessage = '';
  const system: string[] = wire === 'anthropic' && field(body, 'system') !== undefined ? [contentText(field(body, 'system'))] : [];
  for (const message of list(field(body, 'messages'))) {
    const role = field(message, 'role');
    const content = field(message, 'content');
    if (role === 'system') system.push(contentText(content));
    if (role === 'tool') toolResults.push(contentText(content));
    if (role !== 'user') continue;
    if (wire === 'anthropic' && Array.isArray(content)) {
      for (const block of content) {
        if (field(block, 'type') === 'tool_result') toolResults.push(contentText(field(block, 'content')));
        else if (field(block, 'type') === 'text') lastUserMessage = contentText([block]);
      }
    } else {
      lastUserMessage = contentText(content);
    }
  }
  return { wire, lastUserMessage, toolNames, toolResults, system: system.join('\n\n') };
}

/** The Responses API's `input`: a string, or items (messages, function calls and their outputs). */
function readResponsesConversation(body: unknown): FakeConversation {
  const toolNames: string[] = [];
  for (const tool of list(field(body, 'tools'))) {
    const name = field(tool, 'name');
    if (typeof name !== 'string') continue;
    if (field(tool, 'type') === 'namespace') {
      for (const inner of list(field(tool, 'tools'))) {
        const innerName = field(inner, 'name');
        if (typeof innerName === 'string') toolNames.push(`${name}.${innerName}`);
      }
    } else if (field(tool, 'type') === 'function') {
      toolNames.push(name);
    }
  }
  const input = field(body, 'input');
  const instructions = typeof field(body, 'instructions') === 'string' ? (field(body, 'instructions') as string) : '';
  if (typeof input === 'string') return { wire: 'responses', lastUserMessage: input, toolNames, toolResults: [], system: instructions };
  const toolResults: string[] = [];
  let lastUserMessage = '';
  for (const item of list(input)) {
    const type = field(item, 'type') ?? 'message';
    if (type === 'function_call_output') toolResults.push(contentText(field(item, 'output')));
    else if (type === 'message' && field(item, 'role') === 'user') lastUserMessage = contentText(field(item, 'content'));
  }
  return { wire: 'responses', lastUserMessage, toolNames, toolResults, system: instructions };
}

/** Words with their trailing spaces, so the chunks join back to the text. */
function words(value: string): string[] {
  return value.match(/\s*\S+\s*/g) ?? [value];
}

/** Tool arguments cut into at least three pieces (as providers stream them). */
function pieces(json: string): string[] {
  const size = Math.max(1, Math.ceil(json.length / 4));
  const out: string[] = [];
  for (let i = 0; i < json.length; i += size) out.push(json.slice(i, i + size));
  return out;
}

function errorBody(wire: FakeWire, status: number, message: string): unknown {
  if (wire === 'ollama') return { error: message };
  if (wire === 'anthropic') {
    const types: Record<number, string> = { 400: 'invalid_request_error', 401: 'authentication_error', 403: 'permission_error', 404: 'not_found_error', 429: 'rate_limit_error', 529: 'overloaded_error' };
    return { type: 'error', error: { type: types[status] ?? 'api_error', message } };
  }
  return { error: { message, type: status === 429 ? 'rate_limit_exceeded' : 'invalid_request_error', code: null } };
}

const OPENAI_FINISH = { stop: 'stop', length: 'length', 'content-filter': 'content_filter', 'tool-calls': 'tool_calls' } as const;
const ANTHROPIC_STOP = { stop: 'end_turn', length: 'max_tokens', 'content-filter': 'refusal', 'tool-calls': 'tool_use' } as const;
const OLLAMA_DONE = { stop: 'stop', length: 'length', 'content-filter': 'stop', 'tool-calls': 'stop' } as const;
/** Why a Responses answer stopped short; other finishes complete normally. */
const RESPONSES_INCOMPLETE: Partial<Record<Answer['finish'], string>> = { length: 'max_output_tokens', 'content-filter': 'content_filter' };

function jsonAnswer(wire: FakeWire, answer: Answer, model: unknown, n: number): unknown {
  const { inputTokens, outputTokens } = answer.usage;
  if (wire === 'responses') {
    const calls = answer.toolCalls.map((call, i) => functionCallItem(call, n, i));
    return responseObject(answer, model, n, finalStatus(answer), [...(hasMessage(answer) ? [messageItem(answer, n)] : []), ...calls]);
  }
  if (wire === 'openai') {
    return {
      id: `chatcmpl-${n}`,
      object: 'chat.completion',
      created: 0,
      model,
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: answer.text ?? null,
            ...(answer.toolCalls.length
              ? { tool_calls: answer.toolCalls.map((call, i) => ({ id: `call_${n}_${i}`, type: 'function', function: { name: call.name, arguments: JSON.stringify(call.arguments) } })) }
              : {}),
          },
          finish_reason: OPENAI_FINISH[answer.finish],
        },
      ],
      usage: { prompt_tokens: inputTokens, completion_tokens: outputTokens, total_tokens: inputTokens + outputTokens },
    };
  }
  if (wire === 'anthropic') {
    return {
      id: `msg_${n}`,
      type: 'message',
      role: 'assistant',
      model,
      content: [
        ...(answer.text ? [{ type: 'text', text: answer.text }] : []),
        ...answer.toolCalls.map((call, i) => ({ type: 'tool_use', id: `toolu_${n}_${i}`, name: call.name, input: call.arguments })),
      ],
      stop_reason: ANTHROPIC_STOP[answer.finish],
      stop_sequence: null,
      usage: { input_tokens: inputTokens, output_tokens: outputTokens },
    };
  }
  return {
    model,
    created_at: new Date(0).toISOString(),
    message: { role: 'assistant', content: answer.text ?? '', ...(answer.toolCalls.length ? { tool_calls: ollamaToolCalls(answer.toolCalls) } : {}) },
    done: true,
    done_reason: OLLAMA_DONE[answer.finish],
    prompt_eval_count: inputTokens,
    eval_count: outputTokens,
  };
}

/** Ollama sends each call whole, arguments as an object, with no id. */
function ollamaToolCalls(calls: FakeToolCall[]): unknown[] {
  return calls.map((call, index) => ({ function: { index, name: call.name, arguments: call.arguments } }));
}

const finalStatus = (answer: Answer): 'completed' | 'incomplete' => (RESPONSES_INCOMPLETE[answer.finish] ? 'incomplete' : 'completed');

/** A Responses answer has a message item when it says something, or when it calls nothing. */
const hasMessage = (answer: Answer): boolean => answer.text !== undefined || answer.toolCalls.length === 0;

function messageItem(answer: Answer, n: number) {
  return { id: `msg_${n}`, type: 'message', status: 'completed', role: 'assistant', content: [{ type: 'output_text', text: answer.text ?? '', annotations: [] }] };
}

/** A `<namespace>.<function>` name becomes the function's name plus its `namespace`. */
function functionCallItem(call: FakeToolCall, n: number, i: number) {
  const dot = call.name.lastIndexOf('.');
  const name = dot < 0 ? { name: call.name } : { name: call.name.slice(dot + 1), namespace: call.name.slice(0, dot) };
  return { id: `fc_${n}_${i}`, type: 'function_call', status: 'completed', call_id: `call_${n}_${i}`, ...name, arguments: JSON.stringify(call.arguments) };
}

function responseObject(answer: Answer, model: unknown, n: number, status: 'in_progress' | 'completed' | 'incomplete', output: unknown[]): unknown {
  const { inputTokens, outputTokens } = answer.usage;
  const reason = RESPONSES_INCOMPLETE[answer.finish];
  return {
    id: `resp_${n}`,
    object: 'response',
    created_at: 0,
    status,
    model,
    output,
    error: null,
    incomplete_details: status === 'incomplete' && reason ? { reason } : null,
    usage:
      status === 'in_progress'
        ? null
        : { input_tokens: inputTokens, input_tokens_details: { cached_tokens: 0 }, output_tokens: outputTokens, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: inputTokens + outputTokens },
  };
}

/** Every Responses event carries a sequence number; items are announced, streamed, then repeated whole. */
function responsesFrames(answer: Answer, model: unknown, n: number): string[] {
  let sequence = 0;
  const frame = (type: string, data: Record<string, unknown>) => event(type, { ...data, sequence_number: sequence++ });
  const frames = [frame('response.created', { response: responseObject(answer, model, n, 'in_progress', []) }), frame('response.in_progress', { response: responseObject(answer, model, n, 'in_progress', []) })];
  const output: unknown[] = [];
  if (hasMessage(answer)) {
    const item = messageItem(answer, n);
    const text = answer.text ?? '';
    const at = { item_id: item.id, output_index: output.length, content_index: 0 };
    frames.push(
      frame('response.output_item.added', { output_index: output.length, item: { ...item, status: 'in_progress', content: [] } }),
      frame('response.content_part.added', { ...at, part: { type: 'output_text', text: '', annotations: [] } }),
    );
    for (const word of words(text)) frames.push(frame('response.output_text.delta', { ...at, delta: word }));
    frames.push(
      frame('response.output_text.done', { ...at, text }),
      frame('response.content_part.done', { ...at, part: item.content[0] }),
      frame('response.output_item.done', { output_index: output.length, item }),
    );
    output.push(item);
  }
  for (const [i, call] of answer.toolCalls.entries()) {
    const item = functionCallItem(call, n, i);
    const at = { item_id: item.id, output_index: output.length };
    frames.push(frame('response.output_item.added', { output_index: output.length, item: { ...item, status: 'in_progress', arguments: '' } }));
    for (const piece of pieces(item.arguments)) frames.push(frame('response.function_call_arguments.delta', { ...at, delta: piece }));
    frames.push(frame('response.function_call_arguments.done', { ...at, arguments: item.arguments }), frame('response.output_item.done', { output_index: output.length, item }));
    output.push(item);
  }
  const status = finalStatus(answer);
  frames.push(frame(`response.${status}`, { response: responseObject(answer, model, n, status, output) }));
  return frames;
}

function event(type: string, data: Record<string, unknown>): string {
  return `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
}

/** The second frame of a `malformed` stream: the start of a JSON value that never ends. */
const MALFORMED_FRAME: Record<FakeWire, string> = {
  openai: 'data: {"choices": [\n\n',
  anthropic: 'event: content_block_delta\ndata: {"type": "content_block_delta", "index": 0,\n\n',
  ollama: '{"message": {"content": "x"\n',
  responses: 'event: response.output_text.delta\ndata: {"type": "response.output_text.delta", "delta":\n\n',
};

/** How each API reports a failure after it already answered 200 and began streaming. */
function errorFrame(wire: FakeWire, status: number, message: string): string {
  if (wire === 'openai') return `data: ${JSON.stringify(errorBody(wire, status, message))}\n\n`;
  if (wire === 'anthropic') return `event: error\ndata: ${JSON.stringify(errorBody(wire, status, message))}\n\n`;
  if (wire === 'responses') {
    const error = { code: status === 429 ? 'rate_limit_exceeded' : 'server_error', message };
    return event('response.failed', { response: { id: 'resp_failed', object: 'response', status: 'failed', output: [], error, incomplete_details: null, usage: null } });
  }
  return `${JSON.stringify({ error: message })}\n`;
}

function streamFrames(wire: FakeWire, answer: Answer, model: unknown, n: number, includeUsage: boolean): string[] {
  const { inputTokens, outputTokens } = answer.usage;
  if (wire === 'responses') return responsesFrames(answer, model, n);
  if (wire === 'openai') {
    const chunk = (delta: unknown, finish: string | null = null) =>
      `data: ${JSON.stringify({ id: `chatcmpl-${n}`, object: 'chat.completion.chunk', created: 0, model, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
    const frames = [chunk({ role: 'assistant', content: '' })];
    if (answer.text !== undefined) for (const word of words(answer.text)) frames.push(chunk({ content: word }));
    answer.toolCalls.forEach((call, index) => {
      frames.push(chunk({ tool_calls: [{ index, id: `call_${n}_${index}`, type: 'function', function: { name: call.name, arguments: '' } }] }));
      for (const piece of pieces(JSON.stringify(call.arguments))) frames.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
    });
    frames.push(chunk({}, OPENAI_FINISH[answer.finish]));
    if (includeUsage) {
      frames.push(
        `data: ${JSON.stringify({ id: `chatcmpl-${n}`, object: 'chat.completion.chunk', created: 0, model, choices: [], usage: { prompt_tokens: inputTokens, completion_tokens: outputTokens, total_tokens: inputTokens + outputTokens } })}\n\n`,
      );
    }
    frames.push('data: [DONE]\n\n');
    return frames;
  }
  if (wire === 'anthropic') {
    const frames = [
      event('message_start', {
        message: { id: `msg_${n}`, type: 'message', role: 'assistant', model, content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: inputTokens, output_tokens: 1 } },
      }),
      ': keep-alive comment\n\n',
    ];
    // One content block per text or tool call, numbered in order; a text block comes first.
    let index = 0;
    if (answer.text !== undefined || answer.toolCalls.length === 0) {
      frames.push(event('content_block_start', { index, content_block: { type: 'text', text: '' } }), event('ping', {}));
      for (const word of words(answer.text ?? '')) frames.push(event('content_block_delta', { index, delta: { type: 'text_delta', text: word } }));
      frames.push(event('content_block_stop', { index }));
      index++;
    }
    for (const [i, call] of answer.toolCalls.entries()) {
      frames.push(event('content_block_start', { index, content_block: { type: 'tool_use', id: `toolu_${n}_${i}`, name: call.name, input: {} } }));
      for (const piece of pieces(JSON.stringify(call.arguments))) frames.push(event('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: piece } }));
      frames.push(event('content_block_stop', { index }));
      index++;
    }
    frames.push(
      event('message_delta', { delta: { stop_reason: ANTHROPIC_STOP[answer.finish], stop_sequence: null }, usage: { output_tokens: outputTokens } }),
      event('message_stop', {}),
    );
    return frames;
  }
  const line = (message: unknown, done: Record<string, unknown> = { done: false }) =>
    `${JSON.stringify({ model, created_at: new Date(0).toISOString(), message, ...done })}\n`;
  const frames: string[] = [];
  if (answer.text !== undefined) for (const word of words(answer.text)) frames.push(line({ role: 'assistant', content: word }));
  if (answer.toolCalls.length) frames.push(line({ role: 'assistant', content: '', tool_calls: ollamaToolCalls(answer.toolCalls) }));
  frames.push(line({ role: 'assistant', content: '' }, { done: true, done_reason: OLLAMA_DONE[answer.finish], prompt_eval_count: inputTokens, eval_count: outputTokens }));
  return frames;
}

/** The first rule of the real API this request breaks, as that API words it; undefined if none. */
function checkRequest(wire: FakeWire, headers: IncomingHttpHeaders, body: unknown): { status: number; message: string } | undefined {
  if (wire === 'anthropic') return checkAnthropic(headers, body);
  if (wire === 'ollama') return checkOllama(body);
  if (wire === 'responses') return checkResponses(headers, body);
  return undefined;
}

function bad(message: string): { status: number; message: string } {
  return { status: 400, message };
}

function checkAnthropic(headers: IncomingHttpHeaders, body: unknown): { status: number; message: string } | undefined {
  if (!headers['x-api-key']) return { status: 401, message: 'x-api-key header is required' };
  if (!headers['anthropic-version']) return bad('anthropic-version: header is required');
  if (typeof field(body, 'model') !== 'string') return bad('model: Field required');
  if (typeof field(body, 'max_tokens') !== 'number') return bad('max_tokens: Field required');
  for (const [i, tool] of list(field(body, 'tools')).entries()) {
    if (typeof field(tool, 'input_schema') !== 'object') return bad(`tools.${i}.input_schema: Field required`);
  }
  // Claude Code sends `system` messages between turns under its own beta header (seen with
  // 2.1.331, which works against the real API), so only that beta unlocks the role here.
  const betas = String(headers['anthropic-beta'] ?? '').split(',');
  const systemRole = betas.some((beta) => beta.trim().startsWith('claude-code-'));
  let previousToolUses = new Set<string>();
  for (const [i, message] of list(field(body, 'messages')).entries()) {
    const role = field(message, 'role');
    if (role === 'system' && systemRole) continue;
    if (role !== 'user' && role !== 'assistant') return bad(`messages.${i}.role: Input should be 'user' or 'assistant'`);
    const content = field(message, 'content');
    const blocks = typeof content === 'string' ? [{ type: 'text', text: content }] : list(content);
    const toolUses = new Set<string>();
    for (const [j, block] of blocks.entries()) {
      const type = field(block, 'type');
      if (type === 'text' && field(block, 'text') === '') return bad('messages: text content blocks must be non-empty');
      if (type === 'tool_use') {
        const input = field(block, 'input');
        if (typeof input !== 'object' || input === null || Array.isArray(input)) return bad(`messages.${i}.content.${j}.tool_use.input: Input should be a valid dictionary`);
        toolUses.add(String(field(block, 'id')));
      }
      if (type === 'tool_result' && !previousToolUses.has(String(field(block, 'tool_use_id')))) {
        return bad(`messages.${i}.content.${j}: unexpected \`tool_use_id\` found in \`tool_result\` blocks. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`);
      }
    }
    previousToolUses = toolUses;
  }
  return undefined;
}

function checkOllama(body: unknown): { status: number; message: string } | undefined {
  if (typeof field(body, 'model') !== 'string') return bad('model is required');
  for (const message of list(field(body, 'messages'))) {
    for (const call of list(field(message, 'tool_calls'))) {
      const args = field(field(call, 'function'), 'arguments');
      if (typeof args !== 'object' || args === null || Array.isArray(args)) {
        return bad('json: cannot unmarshal string into Go struct field ToolCallFunction.messages.tool_calls.function.arguments of type api.ToolCallFunctionArguments');
      }
    }
  }
  return undefined;
}

function checkResponses(headers: IncomingHttpHeaders, body: unknown): { status: number; message: string } | undefined {
  if (!/^Bearer \S/.test(headers.authorization ?? '')) {
    return { status: 401, message: "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY)." };
  }
  if (typeof field(body, 'model') !== 'string') return bad("Missing required parameter: 'model'.");
  const calls = new Set<string>();
  for (const item of list(field(body, 'input'))) {
    const callId = String(field(item, 'call_id'));
    if (field(item, 'type') === 'function_call') calls.add(callId);
    if (field(item, 'type') === 'function_call_output' && !calls.has(callId)) return bad(`No tool call found for function call output with call_id ${callId}.`);
  }
  return undefined;
}

function parseJson(raw: string): unknown {
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return undefined;
  }
}
