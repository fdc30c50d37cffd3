/**
 * A loopback fake embeddings server for tests: a real `node:http` server on 127.0.0.1 that
 * speaks the two wire formats the runtime's embedders use.
 *
 *   POST /v1/embeddings   OpenAI-compatible: {model, input: string | string[], dimensions?}
 *                         -> {object:'list', data:[{object:'embedding', index, embedding}], model, usage}
 *   POST /api/embed       Ollama: {model, input: string | string[]} -> {model, embeddings}
 *
 * Vectors are deterministic feature hashes (word unigrams plus character trigrams of each
 * word, FNV-1a into `dimensions` buckets with a hashed sign, L2-normalised), so texts that
 * share words are close and cosine similarity means something in search tests.
 *
 * `delayMs` delays every answer. With `apiKey` set, OpenAI requests without `Authorization: Bearer <apiKey>` get the real
 * API's 401 body. `script(...)` queues one-shot faults (an error may carry a `Retry-After`);
 * `requests` records what was sent and when; `maxInFlight` is the most requests it ever held
 * at once, so tests can check a client's concurrency bound.
 */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeEmbeddingsRequest {
  path: string;
  headers: IncomingHttpHeaders;
  body: unknown;
  /** Date.now() when the request arrived. */
  at: number;
}

export type FakeEmbeddingsFault =
  | { kind: 'error'; status: number; times?: number; retryAfter?: string }
  /** A normal answer carrying extra headers (OpenAI's `x-ratelimit-*`, say). */
  | { kind: 'headers'; headers: Record<string, string>; times?: number } | { kind: 'bad-json'; times?: number } | { kind: 'wrong-count'; times?: number };

export interface FakeEmbeddings {
  url: string;
  requests: FakeEmbeddingsRequest[];
  /** Requests being answered now, and the most there ever were at once. */
  readonly inFlight: number;
  readonly maxInFlight: number;
  /** Forgets the requests seen and the concurrency high-water mark. */
  reset(): void;
  script(...faults: FakeEmbeddingsFault[]): void;
  close(): Promise<void>;
}

const STOP = new Set('a an and are as at be by for from how i in is it of on or the to what which with'.split(' '));

function fnv1a(text: string, seed = 0x811c9dc5): number {
  let h = seed;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

/** The fake's embedding function, exported so tests can reason about expected neighbours. */
export function hashEmbedding(text: string, dimensions = 64): number[] {
  const v: number[] = Array.from({ length: dimensions }, () => 0);
  const add = (feature: string, weight: number) => {
    const bucket = fnv1a(feature) % dimensions;
    const sign = fnv1a(feature, 0x9747b28c) & 1 ? 1 : -1;
    v[bucket]! += sign * weight;
  };
  const words = (text.toLowerCase().normalize('NFKC').match(/[\p{L}\p{N}]+/gu) ?? []).filter((w) => !STOP.has(w));
  for (const word of words) {
    add(`w:${word}`, 1);
    const padded = `#${word}#`;
    for (let i = 0; i + 3 <= padded.length; i++) add(`t:${padded.slice(i, i + 3)}`, 0.25);
  }
  const norm = Math.hypot(...v);
  // An input with no words still gets a valid unit vector, as real models always answer.
  if (norm === 0) {
    v[0] = 1;
    return v;
  }
  return v.map((x) => x / norm);
}

/**
 * The answer to an embeddings request in either wire format, or undefined for other paths.
 * Shared with the fake LLM, so one loopback server can stand in for a provider's chat and
 * embeddings endpoints together.
 */
export function embeddingsReply(path: string, body: unknown, options: { dimensions?: number | undefined; dropFirst?: boolean } = {}): { status: number; body: unknown } | undefined {
  if (path !== '/v1/embeddings' && path !== '/api/embed') return undefined;
  const request = body as { model?: unknown; input?: unknown; dimensions?: unknown } | undefined;
  const inputs = typeof request?.input === 'string' ? [request.input] : request?.input;
  const valid = Array.isArray(inputs) && inputs.length > 0 && inputs.every((i) => typeof i === 'string') && typeof request?.model === 'string';
  const dims = typeof request?.dimensions === 'number' ? request.dimensions : (options.dimensions ?? 64);
  if (path === '/v1/embeddings') {
    if (!valid) return { status: 400, body: { error: { message: "'input' and 'model' are required", type: 'invalid_request_error' } } };
    const vectors = (inputs as string[]).map((t) => hashEmbedding(t, dims));
    // Real servers may answer out of order; `index` is what clients must use.
    const data = vectors.map((embedding, index) => ({ object: 'embedding', index, embedding })).toReversed();
    return {
      status: 200,
      body: {
        object: 'list',
        data: options.dropFirst ? data.slice(1) : data,
        model: request?.model,
        usage: { prompt_tokens: (inputs as string[]).join(' ').split(/\s+/).length, total_tokens: 0 },
      },
    };
  }
  if (!valid) return { status: 400, body: { error: 'invalid input type' } };
  const embeddings = (inputs as string[]).map((t) => hashEmbedding(t, dims));
  return { status: 200, body: { model: request?.model, embeddings: options.dropFirst ? embeddings.slice(1) : embeddings } };
}

export async function startFakeEmbeddings(options: { apiKey?: string; dimensions?: number; delayMs?: number } = {}): Promise<FakeEmbeddings> {
  const requests: FakeEmbeddingsRequest[] = [];
  const faults: FakeEmbeddingsFault[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const server = createServer((req, res) => {
    inFlight += 1;
    maxInFlight = Math.max(maxInFlight, inFlight);
    let open = true;
    const done = () => {
      if (open) inFlight -= 1;
      open = false;
    };
    res.on('close', done);
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      if (res.destroyed) return done();
      res.writeHead(status, { 'content-type': 'application/json', ...headers });
      res.end(typeof body === 'string' ? body : JSON.stringify(body));
      done();
    };
    req.on('end', () => {
      let body: unknown;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        body = undefined;
      }
      const path = (req.url ?? '/').split('?')[0]!;
      requests.push({ path, headers: req.headers, body, at: Date.now() });
      const fault = faults[0];
      if (fault) {
        fault.times = (fault.times ?? 1) - 1;
        if (fault.times <= 0) faults.shift();
        if (fault.kind === 'error') {
          const headers: Record<string, string> = fault.retryAfter === undefined ? {} : { 'retry-after': fault.retryAfter };
          return send(fault.status, { error: { message: `scripted ${fault.status}`, type: fault.status === 429 ? 'rate_limit_exceeded' : 'server_error' } }, headers);
        }
        if (fault.kind === 'bad-json') return send(200, '{"data": [');
      }
      if (req.method !== 'POST') return send(405, { error: 'method not allowed' });
      if (path === '/v1/embeddings' && options.apiKey && req.headers.authorization !== `Bearer ${options.apiKey}`) {
        return send(401, { error: { message: 'Incorrect API key provided', type: 'invalid_request_error', code: 'invalid_api_key' } });
      }
      const reply = embeddingsReply(path, body, { dimensions: options.dimensions, dropFirst: fault?.kind === 'wrong-count' });
      if (!reply) return send(404, { error: 'not found' });
      // A slow provider, so a test can act while a batch is in flight.
      const extra = fault?.kind === 'headers' ? fault.headers : {};
      if (options.delayMs) setTimeout(() => send(reply.status, reply.body, extra), options.delayMs);
      else send(reply.status, reply.body, extra);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    get inFlight() {
      return inFlight;
    },
    get maxInFlight() {
      return maxInFlight;
    },
    reset: () => {
      requests.length = 0;
      maxInFlight = inFlight;
    },
    script: (...f) => faults.push(...f),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
