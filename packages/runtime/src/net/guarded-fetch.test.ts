import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { guardedFetch } from './guarded-fetch.js';

let server: Server;
let base: string;
const received: { method: string; type: string | undefined; auth: string | undefined; body: string }[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (p: Buffer) => parts.push(p));
    req.on('end', () => {
      received.push({ method: req.method ?? '', type: req.headers['content-type'], auth: req.headers.authorization, body: Buffer.concat(parts).toString() });
      if (req.url === '/moved') {
        res.writeHead(307, { location: 'http://example.com/' }).end();
      } else if (req.url === '/events') {
        // The first event at once, the second later: the caller reads the first before the body ends.
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write('data: one\n\n');
        setTimeout(() => res.end('data: two\n\n'), 300);
      } else {
        res.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': 's-1' }).end('{"ok":true}');
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

/** A host name that resolves to the cloud metadata address. */
const metadataHost = async () => [{ address: '169.254.169.254', family: 4 as const }];

describe('guardedFetch', () => {
  it('refuses internal addresses unless allowed, and URLs with credentials or other schemes', async () => {
    await expect(guardedFetch()(`${base}/`)).rejects.toThrow(/loopback address \(127\.0\.0\.1\); set allowPrivateHosts/);
    await expect(guardedFetch({ allowPrivateHosts: ['10.0.0.1'] })(`${base}/`)).rejects.toThrow(TypeError);
    await expect(guardedFetch({ allowPrivateHosts: true })(`http://u:p@127.0.0.1/`)).rejects.toThrow(/credentials/);
    await expect(guardedFetch({ allowPrivateHosts: true })('file:///etc/passwd')).rejects.toThrow(/Only http and https/);
    await expect(guardedFetch({ resolve: metadataHost })('http://metadata.example/')).rejects.toThrow(/link-local/);
  });

  it('sends headers and text, form or byte bodies, and answers status and headers', async () => {
    const fetch = guardedFetch({ allowPrivateHosts: ['127.0.0.1'] });
    const res = await fetch(`${base}/`, { method: 'POST', headers: { authorization: 'Bearer t', 'content-type': 'application/json' }, body: '{"a":1}' });
    expect(res.status).toBe(200);
    expect(res.headers.get('mcp-session-id')).toBe('s-1');
    expect(await res.json()).toEqual({ ok: true });
    await (await fetch(`${base}/`, { method: 'POST', body: new URLSearchParams({ grant_type: 'client_credentials' }) })).text();
    await (await fetch(`${base}/`, { method: 'POST', body: new TextEncoder().encode('bytes') })).text();
    expect(received.slice(-3)).toEqual([
      { method: 'POST', type: 'application/json', auth: 'Bearer t', body: '{"a":1}' },
      { method: 'POST', type: 'application/x-www-form-urlencoded;charset=UTF-8', auth: undefined, body: 'grant_type=client_credentials' },
      { method: 'POST', type: undefined, auth: undefined, body: 'bytes' },
    ]);
  });

  it('streams a body as it arrives, and does not follow a redirect', async () => {
    const fetch = guardedFetch({ allowPrivateHosts: true });
    const started = Date.now();
    const reader = (await fetch(`${base}/events`)).body!.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toBe('data: one\n\n');
    expect(Date.now() - started).toBeLessThan(250);
    await reader.cancel();
    const moved = await fetch(`${base}/moved`);
    expect(moved.status).toBe(307);
    expect(moved.headers.get('location')).toBe('http://example.com/');
  });
});
