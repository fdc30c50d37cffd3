/**
 * @module knowledge/readers/sources/providers/service
 * Calling a JSON API a source reader depends on (Firecrawl, Tavily, SearXNG): through
 * `context.fetchService` (the operator configured its URL), errors read from the answer and
 * turned into typed errors a content record can show. A 429 or 5xx is SERVICE_UNAVAILABLE, so
 * the ingestion job retries it later; any other refusal is the request's fault (400). Secrets
 * are cut out of every message, in case a service echoes what it was sent.
 */
import { badRequest, RuntimeError } from '../../../../errors.js';
import { redact } from '../../../../net/redact.js';
import type { SourceContext, SourceFetchOptions } from '../source-reader.js';

/** Large enough for a crawl page of results; the knowledge limit applies when it is lower. */
const MAX_API_ANSWER_BYTES = 32 * 1024 * 1024;

export interface ServiceCall {
  /** For messages, e.g. `Firecrawl`. */
  service: string;
  /** Added to a 401/403 message, e.g. `check FIRECRAWL_API_KEY`. */
  authHint?: string | undefined;
  /** Values never to repeat in an error message. */
  secrets?: readonly (string | undefined)[];
}

/** The refusal for a non-2xx answer. */
export function serviceError(call: ServiceCall, status: number, detail: string | undefined): RuntimeError {
  const hint = status === 401 || status === 403 ? call.authHint : undefined;
  const text = redact(`${call.service} answered HTTP ${status}${detail ? `: ${detail}` : ''}${hint ? ` (${hint})` : ''}`, call.secrets);
  return status === 429 || status >= 500 ? new RuntimeError('SERVICE_UNAVAILABLE', text) : badRequest(text);
}

/** The human part of an API's error body: `error`, `message`, `detail` (or `detail.error`). */
function errorDetail(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const b = body as Record<string, unknown>;
  const detail = b.detail;
  const candidate = b.error ?? b.message ?? (typeof detail === 'object' && detail !== null ? (detail as Record<string, unknown>).error : detail);
  if (typeof candidate !== 'string' || candidate.trim() === '') return undefined;
  const text = candidate.trim().replace(/\s+/g, ' ');
  return text.length > 300 ? `${text.slice(0, 299)}…` : text;
}

/** Calls a JSON endpoint of a configured service and returns the parsed 2xx body. */
export async function callJson(context: SourceContext, url: string, call: ServiceCall, options: SourceFetchOptions = {}): Promise<unknown> {
  let fetched;
  try {
    fetched = await context.fetchService(url, { maxBytes: Math.min(context.maxBytes, MAX_API_ANSWER_BYTES), ...options, allowHttpErrors: true });
  } catch (error) {
    if (RuntimeError.isInstance(error)) throw new RuntimeError(error.code, redact(`${call.service}: ${error.message}`, call.secrets), { cause: error });
    throw error;
  }
  const text = Buffer.from(fetched.body).toString('utf8');
  let body: unknown;
  try {
    body = text.trim() === '' ? undefined : JSON.parse(text);
  } catch {
    body = undefined;
  }
  if (fetched.status < 200 || fetched.status > 299) throw serviceError(call, fetched.status, errorDetail(body));
  if (body === undefined) throw new RuntimeError('SERVICE_UNAVAILABLE', `${call.service} answered HTTP ${fetched.status} without a JSON body`);
  return body;
}

/** Narrowing helpers for service answers: a wrong shape is the service's fault (503, retried). */
export function asRecord(value: unknown, what: string, service: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new RuntimeError('SERVICE_UNAVAILABLE', `${service} answered an unexpected shape (${what} is not an object)`);
  return value as Record<string, unknown>;
}

export function optionalString(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value : undefined;
}
