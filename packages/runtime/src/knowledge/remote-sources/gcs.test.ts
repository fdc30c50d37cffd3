import { createHash, generateKeyPairSync } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { verifyRs256 } from '../../../test/support/fake-remote.js';
import { startFakeGcs, type FakeGcs } from '../../../test/support/fake-gcs.js';
import { RemoteSourceError } from './errors.js';
import { GcsSource, type GcsSourceOptions } from './gcs.js';

const BUCKET = 'garden-docs';
const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const PEM = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
const EMAIL = 'reader@garden.iam.gserviceaccount.com';

const OBJECTS: Record<string, { body: Buffer; type: string }> = {
  'top.txt': { body: Buffer.from('top level'), type: 'text/plain' },
  'big.bin': { body: Buffer.alloc(4000, 65), type: 'application/octet-stream' },
  'docs/': { body: Buffer.alloc(0), type: 'application/x-directory' },
  'docs/a.md': { body: Buffer.from('# A'), type: 'text/markdown' },
  'docs/b.md': { body: Buffer.from('# B'), type: 'text/markdown' },
  'docs/c d.md': { body: Buffer.from('# C'), type: 'text/markdown' },
  'docs/deep/d.md': { body: Buffer.from('# D'), type: 'text/markdown' },
  'docs/deep/deeper/e.md': { body: Buffer.from('# E'), type: 'text/markdown' },
};

const md5 = (body: Buffer) => createHash('md5').update(body).digest('base64');

let server: FakeGcs;

beforeAll(async () => {
  server = await startFakeGcs({ bucket: BUCKET, objects: OBJECTS, serviceAccount: { email: EMAIL, publicKey } });
  server.forbidden.add('secret.txt');
});

afterAll(() => server?.close());

beforeEach(() => {
  server.seen.length = 0;
  server.throttle = undefined;
  server.tokenRefusal = undefined;
});

function source(extra: Partial<GcsSourceOptions> = {}): GcsSource {
  return new GcsSource({
    id: 'gdocs',
    bucket: BUCKET,
    project: 'garden-project',
    endpoint: server.url,
    serviceAccountKey: { client_email: EMAIL, private_key: PEM, private_key_id: 'key-1', token_uri: `${server.url}/token` },
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

function noSecrets(text: string): void {
  expect(text).not.toContain('PRIVATE KEY');
  expect(text).not.toContain(PEM.split('\n')[1]!);
  expect(text).not.toMatch(/ya29\.token-\d/);
}

describe('GcsSource against a loopback JSON API', () => {
  it('exchanges a signed service-account assertion for a token, caches it, and lists one level', async () => {
    const s = source();
    const before = server.issued;
    const page = await s.list({});
    expect(page.files.map((f) => f.path)).toEqual(['big.bin', 'top.txt']);
    expect(page.folders).toEqual([{ path: 'docs/', name: 'docs' }]);
    const top = page.files[1]!;
    expect(top).toEqual({ path: 'top.txt', name: 'top.txt', size: 9, version: md5(OBJECTS['top.txt']!.body), modified_at: Date.parse('2024-05-01T10:00:00.000Z'), content_type: 'text/plain' });
    await s.list({ prefix: 'docs/' });
    await s.download('top.txt', { maxBytes: 100 });
    expect(server.issued - before).toBe(1);
    const token = server.seen.find((r) => r.path === '/token')!;
    const { header, claims } = await verifyRs256(new URLSearchParams(token.body).get('assertion')!, publicKey);
    expect(header).toMatchObject({ alg: 'RS256', kid: 'key-1' });
    expect((claims.exp as number) - (claims.iat as number)).toBe(3600);
    const listing = server.seen.find((r) => r.path.endsWith('/o'))!;
    expect(listing.headers.authorization).toBe(`Bearer ya29.token-${server.issued}`);
    expect(listing.query.get('delimiter')).toBe('/');
    expect(listing.query.get('maxResults')).toBe('100');
    expect(listing.query.has('prefix')).toBe(false);
  });

  it('pages with pageToken and skips folder placeholder objects', async () => {
    const s = source({ accessToken: 'static-token-1', serviceAccountKey: undefined });
    server.valid.add('static-token-1');
    const first = await s.list({ prefix: 'docs/', limit: 3 });
    expect(first.files.map((f) => f.path)).toEqual(['docs/a.md', 'docs/b.md']);
    expect(first.next_page).toBe('3');
    const second = await s.list({ prefix: 'docs/', limit: 3, page_token: first.next_page! });
    expect(second.files.map((f) => f.path)).toEqual(['docs/c d.md']);
    expect(second.folders).toEqual([{ path: 'docs/deep/', name: 'deep' }]);
    expect(server.seen[1]!.query.get('pageToken')).toBe('3');
    expect(server.seen[0]!.headers.authorization).toBe('Bearer static-token-1');
  });

  it('walks nested folders across pages in key order', async () => {
    const paths: string[] = [];
    for await (const file of source({ pageSize: 2 }).walk('docs/')) paths.push(file.path);
    expect(paths).toEqual(['docs/a.md', 'docs/b.md', 'docs/c d.md', 'docs/deep/d.md', 'docs/deep/deeper/e.md']);
    const listings = server.seen.filter((r) => r.path.endsWith('/o'));
    expect(listings.length).toBeGreaterThanOrEqual(3);
    expect(listings.every((r) => !r.query.has('delimiter'))).toBe(true);
  });

  it('downloads the media with an encoded name, its type and the md5 version', async () => {
    const file = await source().download('docs/c d.md', { maxBytes: 100 });
    expect(Buffer.from(file.bytes).toString()).toBe('# C');
    expect(file).toMatchObject({ content_type: 'text/markdown', version: md5(OBJECTS['docs/c d.md']!.body) });
    const sent = server.seen.find((r) => r.query.get('alt') === 'media')!;
    expect(sent.url).toContain(`/storage/v1/b/${BUCKET}/o/docs%2Fc%20d.md?alt=media`);
  });

  it('refuses a file over the cap, maps 404 and 403 with the API reason', async () => {
    expect((await failure(source().download('big.bin', { maxBytes: 1000 }))).status).toBe(413);
    const missing = await failure(source().download('docs/nope.md', { maxBytes: 1000 }));
    expect(missing.reason).toBe('not_found');
    expect(missing.message).toBe(`Remote source "gdocs" (gcs) found nothing at "docs/nope.md" (HTTP 404 notFound: No such object: ${BUCKET}/docs/nope.md)`);
    const denied = await failure(source().download('secret.txt', { maxBytes: 1000 }));
    expect(denied.reason).toBe('forbidden');
    expect(denied.status).toBe(403);
  });

  it('gets a new token once when the cached one is revoked, and reports a dead static token as refused credentials', async () => {
    const s = source();
    await s.list({});
    server.valid.clear();
    const page = await s.list({});
    expect(page.files.length).toBe(2);
    expect(server.seen.filter((r) => r.path === '/token')).toHaveLength(2);

    const dead = await failure(source({ accessToken: 'ya29.token-revoked', serviceAccountKey: undefined }).list({}));
    expect(dead.reason).toBe('unauthorized');
    expect(dead.status).toBe(403);
    expect(dead.message).toContain('authError: Invalid Credentials');
    expect(dead.message).not.toContain('ya29.token-revoked');
  });

  it('reports a refused assertion without key material', async () => {
    server.tokenRefusal = 'Invalid JWT Signature.';
    const error = await failure(source().list({}));
    expect(error.reason).toBe('unauthorized');
    expect(error.message).toContain('invalid_grant: Invalid JWT Signature.');
    noSecrets(error.message);
  });

  it('retries 429 after Retry-After and logs without secrets', async () => {
    const logs: string[] = [];
    let count = 0;
    server.throttle = () => (count++ < 2 ? { status: 429, retryAfter: '0' } : undefined);
    const page = await source({ logger: { warn: (m) => logs.push(m) } }).list({});
    expect(page.files).toHaveLength(2);
    expect(server.seen.filter((r) => r.path.endsWith('/o'))).toHaveLength(3);
    expect(logs).toHaveLength(2);
    logs.forEach(noSecrets);
    server.throttle = () => ({ status: 503 });
    const error = await failure(source({ maxRetries: 0 }).list({}));
    expect(error.reason).toBe('throttled');
    expect(error.message).toContain('rateLimitExceeded');
  });

  it('checks its settings at construction', () => {
    const base = { id: 'g', bucket: BUCKET };
    expect(() => new GcsSource(base)).toThrow('give exactly one of serviceAccountKey and accessToken');
    expect(() => new GcsSource({ ...base, accessToken: 'a', serviceAccountKey: { client_email: EMAIL, private_key: PEM } })).toThrow('exactly one');
    expect(() => new GcsSource({ ...base, serviceAccountKey: { client_email: EMAIL, private_key: 'not a key' } })).toThrow('is not a PEM private key');
    expect(() => new GcsSource({ ...base, accessToken: 'a', endpoint: 'http://gcs.internal:4443' })).toThrow('plain http');
    expect(() => new GcsSource({ ...base, serviceAccountKey: { client_email: EMAIL, private_key: PEM, token_uri: 'http://tokens.example/token' } })).toThrow('plain http');
    const s = new GcsSource({ ...base, accessToken: 'abcd' });
    expect(s.identity('a/b.md')).toBe(`gcs:${BUCKET}:a/b.md`);
    expect(s.describe({ path: 'a/b.md', name: 'b.md' })).toMatchObject({ source_type: 'gcs', gcs_bucket: BUCKET, gcs_blob_name: 'a/b.md', url: `gs://${BUCKET}/a/b.md` });
  });
});
