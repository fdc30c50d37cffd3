import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startFakeEmbeddings, hashEmbedding, type FakeEmbeddings } from '../../../test/support/fake-embeddings.js';
import { ModelError } from '../../model/model.js';
import { parseResetDuration } from '../../net/retry-after.js';
import { OllamaEmbedder } from '../ollama/embeddings.js';
import { OpenAIEmbedder, type OpenAIEmbedderOptions } from '../openai/embeddings.js';
import { embeddingLimitsFromEnvironment, resolveEmbeddingLimits } from './limits.js';

// A slow loopback provider, so requests overlap and a concurrency bound shows.
let slow: FakeEmbeddings;
let fast: FakeEmbeddings;
beforeAll(async () => {
  slow = await startFakeEmbeddings({ delayMs: 40 });
  fast = await startFakeEmbeddings();
});
afterAll(async () => {
  await slow.close();
  await fast.close();
});
afterEach(() => {
  slow.reset();
  fast.reset();
});

// Each test its own model name: limiters are shared per endpoint and model for the whole process.
let models = 0;
function embedder(fake: FakeEmbeddings, options: OpenAIEmbedderOptions = {}): OpenAIEmbedder {
  models += 1;
  return new OpenAIEmbedder({ baseURL: `${fake.url}/v1`, model: `m${models}`, env: {}, ...options });
}
const texts = (n: number, tag = 't') => Array.from({ length: n }, (_, i) => `${tag} text number ${i}`);
const failure = (p: Promise<unknown>) => p.then(() => undefined, (e: unknown) => e as ModelError);

describe('embedding limits', () => {
  it('splits into batches and keeps at most maxConcurrency requests in flight, vectors in order', async () => {
    const e = embedder(slow, { batchSize: 10, maxConcurrency: 3 });
    const input = texts(200);
    const vectors = await e.embed(input);
    expect(vectors).toEqual(input.map((t) => hashEmbedding(t)));
    expect(slow.requests).toHaveLength(20);
    expect(slow.requests.every((r) => (r.body as { input: string[] }).input.length === 10)).toBe(true);
    expect(slow.maxInFlight).toBe(3);
  });

  it('shares the bound between embedders on the same endpoint and model (two uploads do not double it)', async () => {
    const a = embedder(slow, { batchSize: 5, maxConcurrency: 2 });
    const b = new OpenAIEmbedder({ baseURL: `${slow.url}/v1`, model: a.model, env: {}, batchSize: 5, maxConcurrency: 2 });
    await Promise.all([a.embed(texts(40, 'a')), b.embed(texts(40, 'b'))]);
    expect(slow.requests).toHaveLength(16);
    expect(slow.maxInFlight).toBe(2);
    // Another model on the same endpoint has limits of its own.
    const other = embedder(slow, { batchSize: 5, maxConcurrency: 2 });
    slow.reset();
    await Promise.all([a.embed(texts(20, 'a')), other.embed(texts(20, 'c'))]);
    expect(slow.maxInFlight).toBe(4);
  });

  it('defaults to a few requests at once, and concurrency 1 sends one at a time', async () => {
    const d = embedder(slow, { batchSize: 1 });
    expect(d.maxConcurrency).toBe(4);
    expect(d.batchSize).toBe(1);
    await d.embed(texts(12));
    expect(slow.maxInFlight).toBe(4);
    slow.reset();
    await embedder(slow, { batchSize: 1, maxConcurrency: 1 }).embed(texts(5));
    expect(slow.maxInFlight).toBe(1);
  });

  it('holds requests per minute: a burst of one second, then an even pace', async () => {
    // 600 a minute: 10 at once, then one every 100 ms.
    const e = embedder(fast, { batchSize: 1, maxConcurrency: 8, requestsPerMinute: 600 });
    const started = Date.now();
    await e.embed(texts(25));
    const elapsed = Date.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(1400);
    const at = fast.requests.map((r) => r.at - started);
    expect(at.filter((t) => t < 90)).toHaveLength(10);
    // No 500 ms window ever holds more than the burst plus what the rate refills in it.
    for (const t of at) expect(at.filter((u) => u >= t && u < t + 500).length).toBeLessThanOrEqual(10 + 6);
    // Without the limit, the same work takes no time at all.
    fast.reset();
    const free = Date.now();
    await embedder(fast, { batchSize: 1, maxConcurrency: 8 }).embed(texts(25));
    expect(Date.now() - free).toBeLessThan(1200);
  });

  it('holds tokens per minute, corrected by the usage the provider reports', async () => {
    // 30 000 a minute: 500 at once, then 500 a second. The fake counts a token per word.
    const e = embedder(fast, { batchSize: 5, maxConcurrency: 4, tokensPerMinute: 30_000 });
    const started = Date.now();
    await e.embed(Array.from({ length: 60 }, (_, i) => Array.from({ length: 20 }, () => `w${i}`).join(' ')));
    // 1200 tokens: 500 at once, the other 700 at 500 a second.
    expect(Date.now() - started).toBeGreaterThanOrEqual(1100);
    // 400 characters look like 100 tokens each, but the provider counts one: no waiting on the estimate.
    const cheap = embedder(fast, { batchSize: 5, maxConcurrency: 4, tokensPerMinute: 30_000 });
    const t0 = Date.now();
    await cheap.embed(Array.from({ length: 30 }, (_, i) => `${i}`.padEnd(400, 'x')));
    expect(Date.now() - t0).toBeLessThan(2500);
  });

  it('honours Retry-After in seconds on a 429, and pauses the others on the limiter too', async () => {
    const e = embedder(fast, { batchSize: 1, maxConcurrency: 2, retryBaseDelayMs: 1 });
    fast.script({ kind: 'error', status: 429, retryAfter: '1' });
    const started = Date.now();
    const input = texts(6);
    expect(await e.embed(input)).toEqual(input.map((t) => hashEmbedding(t)));
    expect(fast.requests).toHaveLength(7);
    const refused = fast.requests[0]!;
    // Only what was already on its way when the 429 came went out before the pause ended.
    const early = fast.requests.slice(1).filter((r) => r.at - refused.at < 990);
    expect(early.length).toBeLessThanOrEqual(1);
    expect(Date.now() - started).toBeLessThan(3000);
  });

  it('honours Retry-After as an HTTP date', async () => {
    const e = embedder(fast, { retryBaseDelayMs: 1 });
    // HTTP dates have whole seconds: 2 s from now is between 1 and 2 s away.
    fast.script({ kind: 'error', status: 503, retryAfter: new Date(Date.now() + 2000).toUTCString() });
    const vectors = await e.embed(['hello']);
    expect(vectors).toEqual([hashEmbedding('hello')]);
    const [refused, retried] = fast.requests;
    expect(retried!.at - refused!.at).toBeGreaterThanOrEqual(900);
    expect(retried!.at - refused!.at).toBeLessThan(2500);
  });

  it('retries 500 and 503 with backoff, a bounded number of times, then reports the failure', async () => {
    const e = embedder(fast, { maxRetries: 2, retryBaseDelayMs: 5 });
    fast.script({ kind: 'error', status: 500 }, { kind: 'error', status: 503 });
    expect(await e.embed(['x'])).toHaveLength(1);
    expect(fast.requests).toHaveLength(3);
    fast.reset();
    // Three failures: a fourth attempt would succeed, so the error shows the bound held.
    fast.script({ kind: 'error', status: 500, times: 3 });
    const error = await failure(e.embed(['x']));
    expect(ModelError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ code: 'MODEL_HTTP_ERROR', status: 500 });
    expect(fast.requests).toHaveLength(3);
  });

  it('caps the backoff and a Retry-After at maxRetryDelayMs', async () => {
    const e = embedder(fast, { maxRetries: 3, retryBaseDelayMs: 10_000, maxRetryDelayMs: 50 });
    fast.script({ kind: 'error', status: 502 }, { kind: 'error', status: 429, retryAfter: '120' });
    const started = Date.now();
    expect(await e.embed(['x'])).toHaveLength(1);
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('does not retry what the provider refused for good (400, 401)', async () => {
    const e = embedder(fast, { retryBaseDelayMs: 1 });
    fast.script({ kind: 'error', status: 400 });
    expect(await failure(e.embed(['x']))).toMatchObject({ status: 400 });
    expect(fast.requests).toHaveLength(1);
  });

  it('stops at once when the signal aborts: in flight, queued, and while waiting out a Retry-After', async () => {
    const e = embedder(slow, { batchSize: 1, maxConcurrency: 1 });
    const controller = new AbortController();
    const running = failure(e.embed(texts(50), controller.signal));
    setTimeout(() => controller.abort(), 100);
    const started = Date.now();
    expect(await running).toMatchObject({ code: 'MODEL_CANCELLED' });
    expect(Date.now() - started).toBeLessThan(1000);
    const sent = slow.requests.length;
    expect(sent).toBeLessThan(10);
    await new Promise((r) => setTimeout(r, 150));
    expect(slow.requests.length).toBe(sent);

    const waiting = embedder(fast, { retryBaseDelayMs: 1 });
    fast.script({ kind: 'error', status: 429, retryAfter: '30' });
    const second = new AbortController();
    const pending = failure(waiting.embed(['x'], second.signal));
    setTimeout(() => second.abort(), 100);
    const t0 = Date.now();
    expect(await pending).toMatchObject({ code: 'MODEL_CANCELLED' });
    expect(Date.now() - t0).toBeLessThan(1000);
    expect(await failure(waiting.embed(['x'], AbortSignal.abort()))).toMatchObject({ code: 'MODEL_CANCELLED' });
  });

  it('serves a search query before queued bulk batches', async () => {
    const e = embedder(slow, { batchSize: 1, maxConcurrency: 1 });
    const bulk = e.embed(texts(10, 'bulk'));
    await new Promise((r) => setTimeout(r, 60));
    const query = e.embed(['the query'], undefined, { interactive: true });
    await query;
    const order = slow.requests.map((r) => (r.body as { input: string[] }).input[0]);
    expect(order.indexOf('the query')).toBeLessThan(4);
    await bulk;
  });

  it('waits for the reset OpenAI announces when x-ratelimit-remaining reaches 0', async () => {
    const e = embedder(fast, { batchSize: 1, maxConcurrency: 1 });
    fast.script({ kind: 'headers', headers: { 'x-ratelimit-limit-requests': '5000', 'x-ratelimit-remaining-requests': '0', 'x-ratelimit-reset-requests': '800ms' } });
    expect(await e.embed(texts(2))).toHaveLength(2);
    const [first, second] = fast.requests;
    expect(second!.at - first!.at).toBeGreaterThanOrEqual(750);
    // The announced limit now holds too, though none was configured.
    expect(e.limits.requestsPerMinute).toBeUndefined();
    expect(e.limiter.requestsPerMinute).toBe(5000);
  });

  it('parses the reset durations OpenAI sends', () => {
    expect(parseResetDuration('1s')).toBe(1000);
    expect(parseResetDuration('6m0s')).toBe(360_000);
    expect(parseResetDuration('20ms')).toBe(20);
    expect(parseResetDuration('1h2m3.5s')).toBe(3_723_500);
    expect(parseResetDuration('soon')).toBeUndefined();
  });

  it('reads EMBEDDING_* settings, options win, and a bad value fails naming the setting', () => {
    const env = { EMBEDDING_BATCH_SIZE: '32', EMBEDDING_MAX_CONCURRENCY: '2', EMBEDDING_REQUESTS_PER_MINUTE: '3000', EMBEDDING_TOKENS_PER_MINUTE: '1000000', EMBEDDING_MAX_RETRIES: '3' };
    expect(resolveEmbeddingLimits('openai', { env })).toMatchObject({ batchSize: 32, maxConcurrency: 2, requestsPerMinute: 3000, tokensPerMinute: 1_000_000, maxRetries: 3 });
    expect(resolveEmbeddingLimits('openai', { env, batchSize: 8 }).batchSize).toBe(8);
    expect(resolveEmbeddingLimits('ollama', { env: {} })).toMatchObject({ batchSize: 100, maxConcurrency: 2, requestsPerMinute: undefined });
    expect(resolveEmbeddingLimits('openai', { env: { EMBEDDING_REQUESTS_PER_MINUTE: '0' } }).requestsPerMinute).toBeUndefined();
    expect(() => embeddingLimitsFromEnvironment({ EMBEDDING_BATCH_SIZE: 'lots' })).toThrow(/EMBEDDING_BATCH_SIZE/);
    expect(() => embeddingLimitsFromEnvironment({ EMBEDDING_MAX_CONCURRENCY: '0' })).toThrow(/EMBEDDING_MAX_CONCURRENCY/);
    expect(() => new OllamaEmbedder({ batchSize: 0, env: {} })).toThrow(/batchSize/);
  });
});
