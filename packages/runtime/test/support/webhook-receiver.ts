/**
 * A loopback webhook receiver for tests: a real `node:http` server on 127.0.0.1 that records
 * every POST (raw body, headers, arrival time) and answers with the statuses queued by
 * `answer(...)`, then 200.
 */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedWebhook {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  json: any;
  at: number;
  /** The status this request was answered with. */
  status: number;
}

export interface WebhookReceiver {
  url: string;
  received: ReceivedWebhook[];
  /** The next requests are answered with these statuses, in order; then 200 again. */
  answer(...statuses: number[]): void;
  close(): Promise<void>;
}

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const received: ReceivedWebhook[] = [];
  const queued: number[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let json: unknown;
      try {
        json = JSON.parse(body);
      } catch {
        json = undefined;
      }
      const status = queued.shift() ?? 200;
      received.push({ path: req.url ?? '/', headers: req.headers, body, json, at: Date.now(), status });
      res.writeHead(status, { 'content-type': 'text/plain' }).end(status === 200 ? 'ok' : 'not now');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    answer: (...statuses) => queued.push(...statuses),
    close: () => new Promise((r) => server.close(() => r())),
  };
}
