import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendJson, startLoopback, type Loopback } from '../../../test/support/fake-remote.js';
import { redact } from '../../net/redact.js';
import { retryAfterMs } from '../../net/retry-after.js';
import { RemoteSourceError } from './errors.js';
import { SourceHttp, settingUrl } from './http.js';

let server: Loopback;

beforeAll(async () => {
  server = await startLoopback((request, response) => {
    if (request.path === '/hang') return; // never answers
    if (request.path === '/slow') {
      setTimeout(() => sendJson(response, 200, { ok: true }), 2000).unref();
      return;
    }
    sendJson(response, 200, { ok: true });
  });
});

afterAll(() => server?.close());

function http(extra: Partial<ConstructorParameters<typeof SourceHttp>[0]> = {}): SourceHttp {
  return new SourceHttp({
    sourceId: 'src',
    type: 'gcs',
    origins: [server.url],
    timeoutMs: 5000,
    connectTimeoutMs: 1000,
    maxRetries: 0,
    maxRetryDelayMs: 1000,
    logger: undefined,
    secrets: () => ['top-secret-token'],
    ...extra,
  });
}

async function failure(promise: Promise<unknown>): Promise<RemoteSourceError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(RemoteSourceError);
  return error as RemoteSourceError;
}

describe('SourceHttp', () => {
  it('sends only to the configured origins', async () => {
    server.seen.length = 0;
    const error = await failure(http().request({ url: 'http://127.0.0.2:1/x', path: 'x', maxBytes: 100 }));
    expect(error.message).toContain('is not to the source\'s configured endpoint');
    expect(server.seen).toHaveLength(0);
    expect((await http().request({ url: `${server.url}/ok`, path: 'ok', maxBytes: 100 })).status).toBe(200);
  });

  it('never sends credentials over plain http to a host that is not loopback', async () => {
    const h = http({ origins: ['http://files.example'] });
    const error = await failure(h.request({ url: 'http://files.example/x', path: 'x', maxBytes: 100, auth: async () => ({ authorization: 'Bearer top-secret-token' }) }));
    expect(error.message).toContain('credentials are not sent over plain http to files.example');
    expect(() => settingUrl('http://files.example', 'endpoint', 'source "x"')).toThrow('credentials are only sent over https (or to loopback)');
    expect(settingUrl('http://[::1]:9000', 'endpoint', 'x').hostname).toBe('[::1]');
  });

  it('gives up after timeoutMs with an unavailable error', async () => {
    const started = Date.now();
    const error = await failure(http({ timeoutMs: 300 }).request({ url: `${server.url}/hang`, path: 'hang', maxBytes: 100 }));
    expect([error.reason, error.status]).toEqual(['unavailable', 503]);
    expect(error.message).toContain('no answer within 300 ms');
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it("honours the caller's signal mid-request", async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('caller went away')), 100);
    await expect(http().request({ url: `${server.url}/slow`, path: 'slow', maxBytes: 100, signal: controller.signal })).rejects.toThrow('caller went away');
  });

  it('follows a handed-out URL only over https or to loopback, and never with credentials', async () => {
    const h = http();
    expect((await failure(h.request({ url: 'http://files.example/x', path: 'x', maxBytes: 10, handedOut: true }))).message).toContain('only https is followed');
    expect((await failure(h.request({ url: `${server.url}/ok`, path: 'x', maxBytes: 10, handedOut: true, credentials: true }))).message).toContain('credentials are not sent to a URL the provider handed out');
    expect((await h.request({ url: `${server.url}/ok`, path: 'x', maxBytes: 100, handedOut: true })).status).toBe(200);
  });

  it('reads Retry-After as seconds or a date, and cuts secrets out, URL-encoded too', () => {
    expect(retryAfterMs('7')).toBe(7000);
    expect(retryAfterMs(new Date(Date.now() + 5000).toUTCString())).toBeGreaterThan(3000);
    expect(retryAfterMs('soon')).toBeUndefined();
    expect(redact('sig=a%2Fb%3D and a/b=', ['a/b='])).toBe('sig=[redacted] and [redacted]');
  });
});
