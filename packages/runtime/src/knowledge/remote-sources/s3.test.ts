import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigurationError } from '../../errors.js';
import { startFakeS3, S3_KEY, type FakeS3 } from '../../../test/support/fake-s3.js';
import { forward, startLoopback, type Loopback } from '../../../test/support/fake-remote.js';
import { RemoteSourceError } from './errors.js';
import { S3Source, type S3SourceOptions } from './s3.js';

const BUCKET = 'garden-docs';
const BIG = new Uint8Array(4000).fill(65);
const OBJECTS = {
  'top.txt': { body: 'top level', type: 'text/plain' },
  'big.bin': { body: BIG, type: 'application/octet-stream' },
  'docs/a.md': { body: '# A', type: 'text/markdown' },
  'docs/b.md': { body: '# B', type: 'text/markdown' },
  'docs/c.md': { body: '# C', type: 'text/markdown' },
  'docs/deep/d.md': { body: '# D', type: 'text/markdown' },
  'docs/deep/deeper/e.md': { body: '# E', type: 'text/markdown' },
};

let s3: FakeS3;
/** In front of s3rver: records what the adapter sends and can answer instead (throttling). */
let proxy: Loopback;
let inject: (() => { status: number; headers: Record<string, string>; body: string } | undefined) | undefined;
const logs: string[] = [];

beforeAll(async () => {
  s3 = await startFakeS3(BUCKET, OBJECTS);
  proxy = await startLoopback(async (request, response) => {
    const injected = inject?.();
    if (injected) {
      response.writeHead(injected.status, { 'content-type': 'application/xml', ...injected.headers });
      response.end(injected.body);
      return;
    }
    await forward(s3.endpoint, request, response);
  });
});

afterAll(async () => {
  await proxy?.close();
  await s3?.close();
});

function source(extra: Partial<S3SourceOptions> = {}): S3Source {
  return new S3Source({
    id: 'garden',
    name: 'Garden bucket',
    bucket: BUCKET,
    endpoint: proxy.url,
    credentials: { accessKeyId: S3_KEY, secretAccessKey: S3_KEY },
    logger: { warn: (message) => logs.push(message) },
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

describe('S3Source against s3rver', () => {
  it('lists one level of the root, signed with SigV4, path-style', async () => {
    proxy.seen.length = 0;
    const page = await source().list({});
    expect(page.files.map((f) => f.path).sort()).toEqual(['big.bin', 'top.txt']);
    expect(page.folders).toEqual([{ path: 'docs/', name: 'docs' }]);
    expect(page.next_page).toBeUndefined();
    const top = page.files.find((f) => f.name === 'top.txt')!;
    expect(top.size).toBe(9);
    expect(top.version).toMatch(/^[0-9a-f]{32}$/);
    expect(top.modified_at).toBeGreaterThan(Date.now() - 600_000);
    const sent = proxy.seen[0]!;
    expect(sent.path).toBe(`/${BUCKET}/`);
    expect(sent.query.get('list-type')).toBe('2');
    expect(sent.query.get('delimiter')).toBe('/');
    expect(sent.query.get('max-keys')).toBe('100');
    expect(sent.headers.authorization).toMatch(new RegExp(`^AWS4-HMAC-SHA256 Credential=${S3_KEY}/\\d{8}/us-east-1/s3/aws4_request`));
  });

  it('pages a folder with continuation tokens', async () => {
    const s = source();
    proxy.seen.length = 0;
    const first = await s.list({ prefix: 'docs/', limit: 2 });
    expect(first.files.map((f) => f.path)).toEqual(['docs/a.md', 'docs/b.md']);
    expect(first.next_page).toBeTruthy();
    const second = await s.list({ prefix: 'docs/', limit: 2, page_token: first.next_page! });
    expect(second.files.map((f) => f.path)).toEqual(['docs/c.md']);
    expect(second.folders).toEqual([{ path: 'docs/deep/', name: 'deep' }]);
    expect(second.next_page).toBeUndefined();
    expect(proxy.seen[1]!.query.get('continuation-token')).toBe(first.next_page);
    expect(proxy.seen[1]!.query.get('prefix')).toBe('docs/');
  });

  it('walks nested folders over several pages in key order, up to maxFiles', async () => {
    const s = source({ pageSize: 2 });
    proxy.seen.length = 0;
    const paths: string[] = [];
    for await (const file of s.walk('docs/')) paths.push(file.path);
    expect(paths).toEqual(['docs/a.md', 'docs/b.md', 'docs/c.md', 'docs/deep/d.md', 'docs/deep/deeper/e.md']);
    expect(proxy.seen).toHaveLength(3);
    expect(proxy.seen.every((r) => !r.query.has('delimiter'))).toBe(true);
    const capped: string[] = [];
    for await (const file of s.walk('docs/', { maxFiles: 3 })) capped.push(file.path);
    expect(capped).toEqual(['docs/a.md', 'docs/b.md', 'docs/c.md']);
  });

  it('downloads an object with its type and the version the listing showed', async () => {
    const s = source();
    const listed = (await s.list({ prefix: 'docs/' })).files.find((f) => f.path === 'docs/a.md')!;
    const file = await s.download('docs/a.md', { maxBytes: 1000 });
    expect(Buffer.from(file.bytes).toString()).toBe('# A');
    expect(file.content_type).toBe('text/markdown');
    expect(file.version).toBe(listed.version);
  });

  it('refuses an object over the size cap', async () => {
    const error = await failure(source().download('big.bin', { maxBytes: 1000 }));
    expect(error.reason).toBe('too_large');
    expect(error.status).toBe(413);
    expect(error.message).toContain('"big.bin"');
    expect((await source().download('big.bin', { maxBytes: 4000 })).bytes.length).toBe(4000);
  });

  it('maps a missing key to not_found naming the source and path', async () => {
    const error = await failure(source().download('docs/missing.md', { maxBytes: 1000 }));
    expect(error.reason).toBe('not_found');
    expect(error.status).toBe(404);
    expect(error.sourceId).toBe('garden');
    expect(error.path).toBe('docs/missing.md');
    expect(error.message).toContain('Remote source "garden" (s3) found nothing at "docs/missing.md"');
    expect(error.message).toContain('NoSuchKey');
  });

  it('maps refused credentials to a 403 that holds no secret', async () => {
    const secret = 'wrong-secret-value-123';
    const error = await failure(source({ credentials: { accessKeyId: 'NOTAKEY99', secretAccessKey: secret } }).list({}));
    expect(error.status).toBe(403);
    expect(error.reason).toBe('unauthorized');
    expect(error.message).toContain('refused the configured credentials');
    expect(error.message).toContain('InvalidAccessKeyId');
    expect(error.message).not.toContain(secret);
    expect(JSON.stringify(error)).not.toContain(secret);
  });

  it('tells a key that may not read this (AccessDenied) from one S3 does not accept', async () => {
    inject = () => ({ status: 403, headers: {}, body: '<?xml version="1.0" encoding="UTF-8"?><Error><Code>AccessDenied</Code><Message>Access Denied</Message><RequestId>R1</RequestId></Error>' });
    try {
      const error = await failure(source().download('docs/a.md', { maxBytes: 100 }));
      expect([error.reason, error.status]).toEqual(['forbidden', 403]);
      expect(error.message).toBe('Remote source "garden" (s3) denied access for "docs/a.md" (HTTP 403 AccessDenied: Access Denied)');
    } finally {
      inject = undefined;
    }
  });

  it('retries a throttled request after Retry-After, then gives up with a 503 carrying it', async () => {
    logs.length = 0;
    proxy.seen.length = 0;
    let attempts = 0;
    inject = () => (attempts++ === 0 ? { status: 503, headers: { 'retry-after': '1' }, body: '<Error><Code>SlowDown</Code><Message>Reduce your request rate.</Message></Error>' } : undefined);
    try {
      const started = Date.now();
      const file = await source().download('top.txt', { maxBytes: 100 });
      expect(Buffer.from(file.bytes).toString()).toBe('top level');
      expect(Date.now() - started).toBeGreaterThanOrEqual(950);
      expect(proxy.seen).toHaveLength(2);
      expect(logs.some((line) => line.includes('retry 1 of 3 in 1000 ms'))).toBe(true);
      expect(logs.join('\n')).not.toContain(S3_KEY);

      proxy.seen.length = 0;
      inject = () => ({ status: 429, headers: { 'retry-after': '0' }, body: '<Error><Code>SlowDown</Code><Message>Slow down</Message></Error>' });
      const error = await failure(source({ maxRetries: 2 }).download('top.txt', { maxBytes: 100 }));
      expect(error.reason).toBe('throttled');
      expect(error.status).toBe(503);
      expect(error.headers?.['retry-after']).toBe('1');
      expect(error.message).toContain('SlowDown');
      expect(proxy.seen).toHaveLength(3);

      // A wait longer than maxRetryDelayMs is not taken: one request, and the hint is handed on.
      proxy.seen.length = 0;
      inject = () => ({ status: 503, headers: { 'retry-after': '120' }, body: '' });
      const long = await failure(source({ maxRetryDelayMs: 5000 }).list({}));
      expect(long.headers?.['retry-after']).toBe('120');
      expect(proxy.seen).toHaveLength(1);
    } finally {
      inject = undefined;
    }
  });

  it('confines paths to the prefix and refuses bad paths before any request', async () => {
    const s = source({ prefix: 'docs' });
    expect(s.prefix).toBe('docs/');
    expect(s.check('')).toBe('docs/');
    expect(s.check('/docs/a.md')).toBe('docs/a.md');
    const page = await s.list({});
    expect(page.files.map((f) => f.path)).toEqual(['docs/a.md', 'docs/b.md', 'docs/c.md']);
    proxy.seen.length = 0;
    for (const bad of ['top.txt', 'docs/../top.txt', 'docs//a.md', 'docs/\u0001.md']) {
      const error = await failure(s.download(bad, { maxBytes: 100 }));
      expect(error.status, bad).toBe(400);
    }
    expect(() => s.check('docs/a.md', { repo: 'x/y' })).toThrow("source type 's3' does not accept source_params");
    await expect(s.list({ limit: 1001 })).rejects.toThrow('limit must be a whole number from 1 to 1000');
    expect(proxy.seen).toHaveLength(0);
  });

  it('honours the caller signal', async () => {
    const controller = new AbortController();
    controller.abort(new Error('stopped by the caller'));
    await expect(source().list({ signal: controller.signal })).rejects.toThrow('stopped by the caller');
  });

  it('gives a stable identity and provider details without secrets', () => {
    const s = source();
    expect(s.identity('docs/a.md')).toBe(`s3:${BUCKET}:docs/a.md`);
    const described = s.describe({ path: 'docs/a.md', name: 'a.md', version: 'abc' });
    expect(described).toMatchObject({ source_type: 's3', s3_bucket: BUCKET, s3_object_name: 'docs/a.md', s3_region: 'us-east-1', url: `s3://${BUCKET}/docs/a.md`, version: 'abc' });
    expect(JSON.stringify(described)).not.toContain(S3_KEY);
  });

  it('refuses bad settings at construction', () => {
    const base = { id: 'x', bucket: BUCKET, credentials: { accessKeyId: 'a', secretAccessKey: 'b' } };
    expect(() => new S3Source({ ...base, endpoint: 'http://minio.example:9000' })).toThrow(/plain http to minio\.example/);
    expect(() => new S3Source({ ...base, bucket: 'Bad_Bucket' })).toThrow(ConfigurationError);
    expect(() => new S3Source({ ...base, id: 'bad id' })).toThrow(/source id/);
    expect(() => new S3Source({ id: 'x', bucket: BUCKET } as S3SourceOptions)).toThrow('credentials.accessKeyId is required');
    expect(() => new S3Source({ ...base, endpoint: 'https://minio.example:9000' })).not.toThrow();
  });
});
