/**
 * @module providers/http
 * The one place the providers touch the network: a JSON POST with a timeout to the first
 * byte, an idle timeout between body chunks, retries (net/retry.ts) on 429 / 5xx / network
 * errors honouring Retry-After, and the caller's AbortSignal honoured at every step. Every
 * failure leaves here as a ModelError, and no error message ever contains the API key
 * (net/redact.ts).
 */
import { ModelError } from '../model/model.js';
import { redact } from '../net/redact.js';
import { retryAfterMs } from '../net/retry-after.js';
import { withRetries, type RetryVerdict } from '../net/retry.js';

export interface HttpSettings {
  provider: string;
  /** Time allowed until the response headers arrive (each attempt). */
  timeoutMs: number;
  /** Time allowed between two chunks of the response body. */
  idleTimeoutMs: number;
  /** Retries after the first attempt, only before any response bytes were consumed. */
  maxRetries: number;
  /** First backoff delay; doubles each retry, with jitter. */
  retryBaseDelayMs: number;
  /** Upper bound for any wait between attempts, Retry-After included. */
  maxRetryDelayMs: number;
  /** Strings (API keys) that must never appear in an error message. */
  secrets: string[];
}

/** The transport options every provider accepts. */
export interface HttpOptions {
  /** Per attempt, until the response starts. Default 60 s. */
  timeoutMs?: number | undefined;
  /** Longest silence between stream chunks. Default: timeoutMs. */
  idleTimeoutMs?: number | undefined;
  /** Retries on 429 / 5xx / connection failures before any answer bytes. Default 2. */
  maxRetries?: number | undefined;
  /** First retry delay when the server gives no Retry-After. Default 500 ms. */
  retryBaseDelayMs?: number | undefined;
}

export const DEFAULT_TIMEOUT_MS = 60_000;
export const DEFAULT_MAX_RETRIES = 2;

export function httpSettings(provider: string, options: HttpOptions & { apiKey?: string | undefined }): HttpSettings {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  return {
    provider,
    timeoutMs,
    idleTimeoutMs: options.idleTimeoutMs ?? timeoutMs,
    maxRetries: options.maxRetries ?? DEFAULT_MAX_RETRIES,
    retryBaseDelayMs: options.retryBaseDelayMs ?? 500,
    maxRetryDelayMs: 30_000,
    secrets: options.apiKey ? [options.apiKey] : [],
  };
}

export interface PostRequest {
  url: string;
  headers: Record<string, string>;
  body: unknown;
  signal?: AbortSignal | undefined;
  /** Sees the headers of the successful answer (rate-limit headers, say) before its body is read. */
  onResponse?: ((headers: Headers) => void) | undefined;
}

const MAX_ERROR_MESSAGE = 300;
const MAX_ERROR_BODY_BYTES = 64 * 1024;

/** POSTs and returns the body as a chunk stream; bytes read from it are never retried. */
export async function postForStream(settings: HttpSettings, request: PostRequest): Promise<AsyncGenerator<Uint8Array>> {
  const { response, call } = await postWithRetries(settings, request);
  return readBody(settings, response, call);
}

/** POSTs and parses the JSON answer; a body that is not JSON is MODEL_BAD_RESPONSE. */
export async function postForJson(settings: HttpSettings, request: PostRequest): Promise<unknown> {
  const { response, call } = await postWithRetries(settings, request);
  const text = await readText(settings, response, call, Number.POSITIVE_INFINITY);
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new ModelError(settings.provider, 'MODEL_BAD_RESPONSE', `${settings.provider}: the response is not JSON: ${clip(redact(text, settings.secrets))}`, { cause: error });
  }
}

/** One attempt's abort wiring: the caller's signal and our timers both abort the fetch. */
interface Call {
  controller: AbortController;
  signal: AbortSignal | undefined;
  /** Why we aborted, when it was a timer rather than the caller. */
  timedOut: 'first-byte' | 'idle' | undefined;
  release(): void;
}

function startCall(signal: AbortSignal | undefined): Call {
  const controller = new AbortController();
  const onAbort = () => controller.abort(signal?.reason);
  signal?.addEventListener('abort', onAbort, { once: true });
  return {
    controller,
    signal,
    timedOut: undefined,
    release: () => signal?.removeEventListener('abort', onAbort),
  };
}

function cancelled(settings: HttpSettings, cause?: unknown): ModelError {
  return new ModelError(settings.provider, 'MODEL_CANCELLED', `${settings.provider}: the request was cancelled`, { cause });
}

/** Maps a failure while waiting on the network to cancelled / timeout / unreachable. */
function networkFailure(settings: HttpSettings, call: Call, error: unknown, phase: string): ModelError {
  if (ModelError.isInstance(error)) return error;
  if (call.signal?.aborted) return cancelled(settings, error);
  if (call.timedOut === 'first-byte') {
    return new ModelError(settings.provider, 'MODEL_TIMEOUT', `${settings.provider}: no response within ${settings.timeoutMs} ms`);
  }
  if (call.timedOut === 'idle') {
    return new ModelError(settings.provider, 'MODEL_TIMEOUT', `${settings.provider}: the response stalled for ${settings.idleTimeoutMs} ms`);
  }
  const detail = error instanceof Error ? describeNetworkError(error) : String(error);
  return new ModelError(settings.provider, 'MODEL_UNREACHABLE', `${settings.provider}: ${phase}: ${redact(detail, settings.secrets)}`, { cause: error });
}

/** undici reports "fetch failed" with the useful part (ECONNREFUSED...) in `cause`. */
function describeNetworkError(error: Error): string {
  const cause = error.cause;
  if (cause instanceof Error) return `${error.message} (${(cause as NodeJS.ErrnoException).code ?? cause.message})`;
  return error.message;
}

/** Worth another attempt: the provider was busy or failing (429, 5xx), or out of reach before answering. */
function retryable(error: unknown): RetryVerdict {
  if (!ModelError.isInstance(error)) return false;
  if (error.code === 'MODEL_UNREACHABLE') return { retry: 'after' };
  if (error.code === 'MODEL_HTTP_ERROR' && error.status !== undefined && (error.status === 429 || error.status >= 500)) return { retry: 'after', afterMs: error.retryAfterMs };
  return false;
}

async function postWithRetries(settings: HttpSettings, request: PostRequest): Promise<{ response: Response; call: Call }> {
  const body = JSON.stringify(request.body);
  return withRetries(() => postOnce(settings, request, body), {
    policy: { maxRetries: settings.maxRetries, baseDelayMs: settings.retryBaseDelayMs, maxBackoffMs: settings.maxRetryDelayMs },
    signal: request.signal,
    retryable,
    aborted: (reason) => cancelled(settings, reason),
  });
}

/** One attempt: the response once its headers are in, or a ModelError (an error status's body read for its message). */
async function postOnce(settings: HttpSettings, request: PostRequest, body: string): Promise<{ response: Response; call: Call }> {
  if (request.signal?.aborted) throw cancelled(settings, request.signal.reason);
  const call = startCall(request.signal);
  const timer = setTimeout(() => {
    call.timedOut = 'first-byte';
    call.controller.abort();
  }, settings.timeoutMs);
  let response: Response;
  try {
    response = await fetch(request.url, { method: 'POST', headers: request.headers, body, signal: call.controller.signal });
  } catch (error) {
    call.release();
    throw networkFailure(settings, call, error, 'request failed');
  } finally {
    clearTimeout(timer);
  }
  if (response.ok) {
    request.onResponse?.(response.headers);
    return { response, call };
  }

  let errorText: string;
  try {
    errorText = await readText(settings, response, call, MAX_ERROR_BODY_BYTES);
  } catch (error) {
    // A cancel or timeout while reading the error body wins over the status.
    if (ModelError.isInstance(error) && error.code !== 'MODEL_UNREACHABLE') throw error;
    errorText = '';
  }
  const message = providerMessage(errorText) ?? (response.statusText || 'no message');
  throw new ModelError(settings.provider, 'MODEL_HTTP_ERROR', `${settings.provider}: HTTP ${response.status}: ${clip(redact(message, settings.secrets))}`, {
    status: response.status,
    // The retries here honour it, and so do callers that retry on their own (the embedders' shared limits).
    retryAfterMs: retryAfterMs(response.headers.get('retry-after')),
  });
}

/** Body chunks with an idle timeout per read. Stopping early aborts the connection. */
async function* readBody(settings: HttpSettings, response: Response, call: Call): AsyncGenerator<Uint8Array> {
  if (!response.body) {
    call.release();
    return;
  }
  const reader = response.body.getReader();
  let finished = false;
  try {
    for (;;) {
      const timer = setTimeout(() => {
        call.timedOut = 'idle';
        call.controller.abort();
      }, settings.idleTimeoutMs);
      let result: Awaited<ReturnType<typeof reader.read>>;
      try {
        result = await reader.read();
      } catch (error) {
        throw networkFailure(settings, call, error, 'the connection broke mid-response');
      } finally {
        clearTimeout(timer);
      }
      if (result.done) {
        finished = true;
        return;
      }
      yield result.value;
      // The caller may have aborted while it held the chunk; say so rather than read on.
      if (call.signal?.aborted) throw cancelled(settings, call.signal.reason);
    }
  } finally {
    // Abandoned (break, error, cancel): close the socket so the provider stops generating.
    if (!finished) call.controller.abort();
    call.release();
  }
}

async function readText(settings: HttpSettings, response: Response, call: Call, limit: number): Promise<string> {
  const decoder = new TextDecoder();
  let text = '';
  let bytes = 0;
  for await (const chunk of readBody(settings, response, call)) {
    text += decoder.decode(chunk, { stream: true });
    bytes += chunk.byteLength;
    if (bytes >= limit) break;
  }
  return text + decoder.decode();
}

/** The message in the error shapes of OpenAI, Anthropic (`error.message`) and Ollama (`error`). */
export function providerMessage(text: string): string | undefined {
  if (text.trim() === '') return undefined;
  try {
    const body = JSON.parse(text) as unknown;
    if (typeof body === 'object' && body !== null) {
      const record = body as Record<string, unknown>;
      const error = record.error;
      if (typeof error === 'string') return error;
      if (typeof error === 'object' && error !== null && typeof (error as Record<string, unknown>).message === 'string') {
        return (error as Record<string, unknown>).message as string;
      }
      if (typeof record.message === 'string') return record.message;
      if (typeof record.detail === 'string') return record.detail;
    }
  } catch {
    // Not JSON (a proxy's HTML page, say): the text itself, clipped, is the best we have.
  }
  return text.trim();
}

export function clip(text: string): string {
  return text.length > MAX_ERROR_MESSAGE ? `${text.slice(0, MAX_ERROR_MESSAGE)}...` : text;
}

/** Anything not already a ModelError (a parse failure, a missing field) is a bad response. */
export function asModelError(provider: string, error: unknown): ModelError {
  if (ModelError.isInstance(error)) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new ModelError(provider, 'MODEL_BAD_RESPONSE', `${provider}: could not understand the response: ${clip(message)}`, { cause: error });
}
