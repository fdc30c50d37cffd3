import { createHash, generateKeyPairSync } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { listKeys, sendJson, startLoopback, verifyRs256, type Loopback, type SeenRequest } from '../../../test/support/fake-remote.js';
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

let server: Loopback;
let issued = 0;
/** Tokens the fake storage takes; a test may revoke one. */
const valid = new Set<string>();
let throttle: ((request: SeenRequest) => { status: number; retryAfter?: string } | undefined) | undefined;
let tokenRefusal: string | undefined;

function apiError(status: number, reason: string, message: string) {
  return { error: { code: status, message, errors: [{ message, domain: 'global', reason }] } };
}

beforeAll(async () => {
  server = await startLoopback(async (request, response) => {
    if (request.method === 'POST' && request.path === '/token') {
      const form = new URLSearchParams(request.body);
      if (tokenRefusal) return sendJson(response, 400, { error: 'invalid_grant', error_description: tokenRefusal });
      if (form.get('grant_type') !== 'urn:ietf:params:oauth:grant-type:jwt-bearer') return sendJson(response, 400, { error: 'unsupported_grant_type' });
      const { claims } = await verifyRs256(form.get('assertion') ?? '', publicKey).catch(() => ({ claims: {} as Record<string, unknown> }));
      if (claims.iss !== EMAIL || claims.aud !== `${server.url}/token` || claims.scope !== 'https://www.googleapis.com/auth/devstorage.read_only') {
        return sendJson(response, 400, { error: 'invalid_grant', error_description: 'Invalid JWT Signature.' });
      }
      const token = `ya29.token-${++issued}`;
      valid.add(token);
      return sendJson(response, 200, { access_token: token, expires_in: 3599, token_type: 'Bearer' });
    }
    const bearer = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1];
    if (!bearer || !valid.has(bearer)) return sendJson(response, 401, apiError(401, 'authError', 'Invalid Credentials'), { 'www-authenticate': 'Bearer realm="https://accounts.google.com/"' });
    const limited = throttle?.(request);
    if (limited) return sendJson(response, limited.status, apiError(limited.status, 'rateLimitExceeded', 'Rate limit exceeded'), limited.retryAfter ? { 'retry-after': limited.retryAfter } : {});
    const listing = new RegExp(`^/storage/v1/b/${BUCKET}/o$`).exec(request.path);
    if (listing) {
      const q = request.query;
      const page = listKeys(Object.keys(OBJECTS), q.get('prefix') ?? '', q.get('delimiter') ?? '', Number(q.get('pageToken') ?? '0'), Number(q.get('maxResults') ?? '1000'));
      return sendJson(response, 200, {
        kind: 'storage#objects',
        ...(page.prefixes.length ? { prefixes: page.prefixes } : {}),
        items: page.keys.map((name) => ({
          kind: 'storage#object',
          name,
          bucket: BUCKET,
          generation: '1700000000000000',
          size: String(OBJECTS[name]!.body.length),
          md5Hash: md5(OBJECTS[name]!.body),
          crc32c: 'AAAAAA==',
          contentType: OBJECTS[name]!.type,
          updated: '2024-05-01T10:00:00.000Z',
        })),
        ...(page.next !== undefined ? { nextPageToken: String(page.next) } : {}),
      });
    }
    const object = new RegExp(`^/storage/v1/b/${BUCKET}/o/(.+)$`).exec(request.path);
    if (object && request.query.get('alt') === 'media') {
      const name = decodeURIComponent(object[1]!);
      if (name === 'secret.txt') return sendJson(response, 403, apiError(403, 'forbidden', `${EMAIL} does not have storage.objects.get access`));
      const found = OBJECTS[name];
      if (!found) return sendJson(response, 404, apiError(404, 'notFound', `No such object: ${BUCKET}/${name}`));
      response.writeHead(200, { 'content-type': found.type, 'x-goog-hash': `crc32c=AAAAAA==,md5=${md5(found.body)}`, 'x-goog-generation': '1700000000000000', 'content-length': String(found.body.length) });
      return response.end(found.body);
    }
    sendJson(response, 404, apiError(404, 'notFound', 'Not Found'));
  });
});

afterAll(() => server?.close());

beforeEach(() => {
  server.seen.length = 0;
  throttle = undefined;
  tokenRefusal = undefined;
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
    const before = issued;
    const page = await s.list({});
    expect(page.files.map((f) => f.path)).toEqual(['big.bin', 'top.txt']);
    expect(page.folders).toEqual([{ path: 'docs/', name: 'docs' }]);
    const top = page.files[1]!;
    expect(top).toEqual({ path: 'top.txt', name: 'top.txt', size: 9, version: md5(OBJECTS['top.txt']!.body), modified_at: Date.parse('2024-05-01T10:00:00.000Z'), content_type: 'text/plain' });
    await s.list({ prefix: 'docs/' });
    await s.download('top.txt', { maxBytes: 100 });
    expect(issued - before).toBe(1);
    const token = server.seen.find((r) => r.path === '/token')!;
    const { header, claims } = await verifyRs256(new URLSearchParams(token.body).get('assertion')!, publicKey);
    expect(header).toMatchObject({ alg: 'RS256', kid: 'key-1' });
    expect((claims.exp as number) - (claims.iat as number)).toBe(3600);
    const listing = server.seen.find((r) => r.path.endsWith('/o'))!;
    expect(listing.headers.authorization).toBe(`Bearer ya29.token-${issued}`);
    expect(listing.query.get('delimiter')).toBe('/');
    expect(listing.query.get('maxResults')).toBe('100');
    expect(listing.query.has('prefix')).toBe(false);
  });

  it('pages with pageToken and skips folder placeholder objects', async () => {
    const s = source({ accessToken: 'static-token-1', serviceAccountKey: undefined });
    valid.add('static-token-1');
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
    valid.clear();
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
    tokenRefusal = 'Invalid JWT Signature.';
    const error = await failure(source().list({}));
    expect(error.reason).toBe('unauthorized');
    expect(error.message).toContain('invalid_grant: Invalid JWT Signature.');
    noSecrets(error.message);
  });

  it('retries 429 after Retry-After and logs without secrets', async () => {
    const logs: string[] = [];
    let count = 0;
    throttle = () => (count++ < 2 ? { status: 429, retryAfter: '0' } : undefined);
    const page = await source({ logger: { warn: (m) => logs.push(m) } }).list({});
    expect(page.files).toHaveLength(2);
    expect(server.seen.filter((r) => r.path.endsWith('/o'))).toHaveLength(3);
    expect(logs).toHaveLength(2);
    logs.forEach(noSecrets);
    throttle = () => ({ status: 503 });
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
