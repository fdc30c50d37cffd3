import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFakeAzureBlob, type FakeAzureBlob } from '../../../test/support/fake-azure-blob.js';
import { AZURE_STORAGE_VERSION, AzureBlobSource, type AzureBlobSourceOptions } from './azure-blob.js';
import { RemoteSourceError } from './errors.js';

const ACCOUNT = 'devstoreaccount1';
const CONTAINER = 'garden';
const SIG = 'c2lnbmF0dXJlLXNlY3JldC12YWx1ZQ==';
const SAS = `sv=2023-11-03&ss=b&srt=co&sp=rl&se=2030-01-01T00:00:00Z&sig=${encodeURIComponent(SIG)}`;
const TENANT = 'contoso.onmicrosoft.com';
const CLIENT_ID = '11111111-2222-3333-4444-555555555555';
const CLIENT_SECRET = 'client~secret~value~42';

const BLOBS: Record<string, { body: Buffer; type: string }> = {
  'top.txt': { body: Buffer.from('top level'), type: 'text/plain' },
  'big.bin': { body: Buffer.alloc(4000, 65), type: 'application/octet-stream' },
  'docs/a.md': { body: Buffer.from('# A'), type: 'text/markdown' },
  'docs/b&c.md': { body: Buffer.from('# B&C'), type: 'text/markdown' },
  'docs/deep/d.md': { body: Buffer.from('# D'), type: 'text/markdown' },
  'docs/deep/deeper/e.md': { body: Buffer.from('# E'), type: 'text/markdown' },
  'docs/odd\u0001.md': { body: Buffer.from('odd'), type: 'text/plain' },
};

let server: FakeAzureBlob;
const etag = (name: string) => server.etag(name);

beforeAll(async () => {
  server = await startFakeAzureBlob({ account: ACCOUNT, container: CONTAINER, sig: SIG, principal: { tenantId: TENANT, clientId: CLIENT_ID, clientSecret: CLIENT_SECRET }, blobs: BLOBS });
});

afterAll(() => server?.close());

beforeEach(() => {
  server.seen.length = 0;
  server.throttle = undefined;
});

function source(extra: Partial<AzureBlobSourceOptions> = {}): AzureBlobSource {
  return new AzureBlobSource({ id: 'azdocs', account: ACCOUNT, container: CONTAINER, endpoint: `${server.url}/${ACCOUNT}`, sasToken: `?${SAS}`, ...extra });
}

function principal(secret = CLIENT_SECRET): AzureBlobSource {
  return source({ sasToken: undefined, servicePrincipal: { tenantId: TENANT, clientId: CLIENT_ID, clientSecret: secret }, authorityHost: server.url });
}

async function failure(promise: Promise<unknown>): Promise<RemoteSourceError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(RemoteSourceError);
  return error as RemoteSourceError;
}

describe('AzureBlobSource against a loopback Blob service', () => {
  it('lists one level with the SAS on the URL and x-ms-version', async () => {
    const page = await source().list({});
    expect(page.files.map((f) => f.path)).toEqual(['big.bin', 'top.txt']);
    expect(page.folders).toEqual([{ path: 'docs/', name: 'docs' }]);
    expect(page.files[1]).toEqual({ path: 'top.txt', name: 'top.txt', size: 9, version: etag('top.txt').slice(1, -1), modified_at: Date.parse('Wed, 01 May 2024 10:00:00 GMT'), content_type: 'text/plain' });
    const sent = server.seen[0]!;
    expect(sent.path).toBe(`/${ACCOUNT}/${CONTAINER}`);
    expect(Object.fromEntries(sent.query)).toMatchObject({ restype: 'container', comp: 'list', delimiter: '/', maxresults: '100', sig: SIG, sp: 'rl' });
    expect(sent.headers['x-ms-version']).toBe(AZURE_STORAGE_VERSION);
    expect(sent.headers.authorization).toBeUndefined();
  });

  it('pages with NextMarker, and reads escaped and Encoded names', async () => {
    const first = await source().list({ prefix: 'docs/', limit: 2 });
    expect(first.files.map((f) => f.path)).toEqual(['docs/a.md', 'docs/b&c.md']);
    expect(first.next_page).toBe('2');
    const second = await source().list({ prefix: 'docs/', limit: 2, page_token: first.next_page! });
    expect(second.folders).toEqual([{ path: 'docs/deep/', name: 'deep' }]);
    expect(second.files.map((f) => f.path)).toEqual(['docs/odd\u0001.md']);
    expect(second.next_page).toBeUndefined();
    expect(server.seen[1]!.query.get('marker')).toBe('2');
  });

  it('walks nested folders over several pages', async () => {
    const paths: string[] = [];
    for await (const file of source({ pageSize: 2 }).walk('docs/deep/')) paths.push(file.path);
    expect(paths).toEqual(['docs/deep/d.md', 'docs/deep/deeper/e.md']);
    const all: string[] = [];
    for await (const file of source({ pageSize: 2 }).walk('')) all.push(file.path);
    expect(all).toHaveLength(Object.keys(BLOBS).length);
    expect(server.seen.length).toBe(1 + 4);
  });

  it('downloads a blob with its ETag, refuses one over the cap, and maps BlobNotFound', async () => {
    const file = await source().download('docs/b&c.md', { maxBytes: 100 });
    expect(Buffer.from(file.bytes).toString()).toBe('# B&C');
    expect(file).toMatchObject({ content_type: 'text/markdown', version: etag('docs/b&c.md').slice(1, -1) });
    expect(server.seen[0]!.path).toBe(`/${ACCOUNT}/${CONTAINER}/docs/b%26c.md`);
    expect((await failure(source().download('big.bin', { maxBytes: 10 }))).reason).toBe('too_large');
    const missing = await failure(source().download('docs/none.md', { maxBytes: 10 }));
    expect(missing.message).toBe('Remote source "azdocs" (azureblob) found nothing at "docs/none.md" (HTTP 404 BlobNotFound: The specified blob does not exist.)');
  });

  it('keeps the SAS signature out of errors and logs', async () => {
    const logs: string[] = [];
    server.throttle = (r) => (r.query.get('marker') ? undefined : { status: 503, retryAfter: '0' });
    const error = await failure(source({ maxRetries: 1, logger: { warn: (m) => logs.push(m) } }).list({}));
    expect(error.reason).toBe('throttled');
    expect(error.message).toContain('ServerBusy');
    expect(logs).toHaveLength(1);
    const bad = await failure(source({ sasToken: 'sv=2023-11-03&sig=wrong-signature-value' }).list({}));
    expect(bad.reason).toBe('forbidden');
    expect(bad.message).toContain('AuthenticationFailed');
    for (const text of [error.message, bad.message, ...logs]) {
      expect(text).not.toContain(SIG);
      expect(text).not.toContain(encodeURIComponent(SIG));
      expect(text).not.toContain('wrong-signature-value');
    }
  });

  it('uses a service principal token, fetched once and sent as a bearer token', async () => {
    const s = principal();
    const before = server.issued;
    await s.list({});
    await s.download('top.txt', { maxBytes: 100 });
    expect(server.issued - before).toBe(1);
    const token = server.seen.filter((r) => r.method === 'POST');
    expect(token).toHaveLength(1);
    expect(Object.fromEntries(new URLSearchParams(token[0]!.body))).toEqual({ grant_type: 'client_credentials', client_id: CLIENT_ID, client_secret: CLIENT_SECRET, scope: 'https://storage.azure.com/.default' });
    const reads = server.seen.filter((r) => r.method === 'GET');
    expect(reads.every((r) => r.headers.authorization === `Bearer eyJ.azure-token-${server.issued}` && !r.query.has('sig'))).toBe(true);
  });

  it('reports a refused client secret as refused credentials, first line only, without the secret', async () => {
    const error = await failure(principal('wrong~secret~value').list({}));
    expect(error.reason).toBe('unauthorized');
    expect(error.status).toBe(403);
    expect(error.message).toContain('invalid_client: AADSTS7000215: Invalid client secret provided.');
    expect(error.message).not.toContain('Trace ID');
    expect(error.message).not.toContain('wrong~secret~value');
  });

  it('checks its settings at construction', () => {
    const base = { id: 'a', account: ACCOUNT, container: CONTAINER };
    expect(() => new AzureBlobSource(base)).toThrow('give exactly one of sasToken and servicePrincipal');
    expect(() => new AzureBlobSource({ ...base, sasToken: SAS, servicePrincipal: { tenantId: TENANT, clientId: CLIENT_ID, clientSecret: 'x' } })).toThrow('exactly one');
    expect(() => new AzureBlobSource({ ...base, sasToken: 'sv=2023' })).toThrow('sasToken has no signature');
    expect(() => new AzureBlobSource({ ...base, sasToken: SAS, endpoint: 'http://azurite.internal:10000/x' })).toThrow('plain http');
    expect(() => new AzureBlobSource({ ...base, container: 'Bad--name', sasToken: SAS })).toThrow('not a container name');
    const s = new AzureBlobSource({ ...base, sasToken: SAS });
    expect(s.identity('docs/a.md')).toBe(`azureblob:${ACCOUNT}/${CONTAINER}:docs/a.md`);
    expect(JSON.stringify(s.describe({ path: 'docs/a.md', name: 'a.md' }))).not.toContain(SIG);
  });
});
