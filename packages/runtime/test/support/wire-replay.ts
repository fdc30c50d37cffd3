/**
 * Replays recorded provider answers over loopback HTTP, so a model adapter's real request,
 * SSE/NDJSON and JSON code reads a provider's exact bytes with only its base URL changed.
 *
 * A fixture (test/fixtures/wire/<provider>/<name>.<sse|ndjson|json>) is the response body as
 * the provider sends it, after a header of `#` lines saying where its shape comes from; the
 * header and the blank line after it are not sent. The extension gives the content type. The
 * body is written in small pieces that split lines and events anywhere, as TCP may.
 *
 * @example
 *   const replay = await startWireReplay();
 *   replay.serve('openai/chat-stream-text.sse');   // the next request gets this fixture
 *   new OpenAIChatModel({ model: 'gpt-4o-mini', apiKey: 'k', baseURL: `${replay.url}/v1` });
 */
import { readFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

const FIXTURES = new URL('../fixtures/wire/', import.meta.url);

const CONTENT_TYPES: Record<string, string> = {
  sse: 'text/event-stream; charset=utf-8',
  ndjson: 'application/x-ndjson',
  json: 'application/json',
};

/** Small enough that every fixture's events and lines arrive split across writes. */
const PIECE_BYTES = 61;

export interface ReplayedRequest {
  path: string;
  headers: IncomingHttpHeaders;
  body: unknown;
}

export interface WireReplay {
  /** e.g. `http://127.0.0.1:43123` (no trailing slash). */
  url: string;
  requests: ReplayedRequest[];
  /** Queues a fixture for the next request; requests with none queued get a 500. */
  serve(fixture: string): void;
  close(): Promise<void>;
}

/** A fixture's body as sent: the file without its `#` header. */
export function wireFixture(fixture: string): { contentType: string; body: string } {
  const text = readFileSync(new URL(fixture, FIXTURES), 'utf8');
  const lines = text.split('\n');
  let start = 0;
  while (lines[start]?.startsWith('#')) start++;
  if (start === 0) throw new Error(`${fixture}: a fixture starts with a # header naming its source`);
  if (lines[start] === '') start++;
  const contentType = CONTENT_TYPES[fixture.slice(fixture.lastIndexOf('.') + 1)];
  if (!contentType) throw new Error(`${fixture}: the extension must be .sse, .ndjson or .json`);
  return { contentType, body: lines.slice(start).join('\n') };
}

export async function startWireReplay(): Promise<WireReplay> {
  const queue: string[] = [];
  const requests: ReplayedRequest[] = [];
  const server = createServer((req, res) => {
    void (async () => {
      const raw = await readAll(req);
      requests.push({ path: req.url ?? '/', headers: req.headers, body: parseJson(raw) });
      const fixture = queue.shift();
      if (fixture === undefined) {
        res.writeHead(500, { 'content-type': 'application/json' }).end('{"error":"no fixture queued"}');
        return;
      }
      const { contentType, body } = wireFixture(fixture);
      res.writeHead(200, { 'content-type': contentType });
      const bytes = Buffer.from(body, 'utf8');
      for (let at = 0; at < bytes.length; at += PIECE_BYTES) {
        await new Promise<void>((resolve) => res.write(bytes.subarray(at, at + PIECE_BYTES), () => resolve()));
      }
      res.end();
    })().catch(() => res.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    serve: (fixture) => {
      queue.push(fixture);
    },
    close: () =>
      new Promise((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

function readAll(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function parseJson(raw: string): unknown {
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return undefined;
  }
}
