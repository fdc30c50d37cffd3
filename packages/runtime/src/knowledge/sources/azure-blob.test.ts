import type { ServerResponse } from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { listKeys, sendJson, startLoopback, type Loopback, type SeenRequest } from '../../../test/support/fake-remote.js';
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
const etag = (name: string) => `"0x8DC${Buffer.from(name).toString('hex').slice(0, 10).toUpperCase()}"`;

let server: Loopback;
let issued = 0;
let throttle: ((request: SeenRequest) => { status: number; retryAfter?: string } | undefined) | undefined;

function xmlEscape(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** A name XML 1.0 cannot carry (a control character) is sent percent-encoded with Encoded="true", as the service does. */
function nameElement(name: string): string {
  return [...name].some((c) => c.charCodeAt(0) < 0x20) ? `<Name Encoded="true">${encodeURIComponent(name)}</Name>` : `<Name>${xmlEscape(name)}</Name>`;
}

function storageError(response: ServerResponse, status: number, code: string, message: string, headers: Record<string, string> = {}): void {
  response.writeHead(status, { 'content-type': 'application/xml', 'x-ms-error-code': code, ...headers });
  response.end(`\uFEFF<?xml version="1.0" encoding="utf-8"?><Error><Code>${code}</Code><Message>${message}\nRequestId:5f2c-0001\nTime:2024-05-01T10:00:00.0000000Z</Message></Error>`);
}

beforeAll(async () => {
  server = await startLoopback((request, response) => {
    if (request.method === 'POST' && request.path === `/${TENANT}/oauth2/v2.0/token`) {
      const form = new URLSearchParams(request.body);
      if (form.get('client_id') !== CLIENT_ID || form.get('client_secret') !== CLIENT_SECRET) {
        return sendJson(response, 401, { error: 'invalid_client', error_description: `AADSTS7000215: Invalid client secret provided.\r\nTrace ID: abc\r\nTimestamp: 2024-05-01` });
      }
      if (form.get('grant_type') !== 'client_credentials' || form.get('scope') !== 'https://storage.azure.com/.default') return sendJson(response, 400, { error: 'invalid_scope' });
      return sendJson(response, 200, { token_type: 'Bearer', expires_in: 3599, access_token: `eyJ.azure-token-${++issued}` });
    }
    if (request.headers['x-ms-version'] !== AZURE_STORAGE_VERSION) return storageError(response, 400, 'MissingRequiredHeader', 'x-ms-version is required');
    const bearer = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1];
    if (!(request.query.get('sig') === SIG || bearer?.startsWith('eyJ.azure-token-'))) return storageError(response, 403, 'AuthenticationFailed', 'Server failed to authenticate the request.');
    const limited = throttle?.(request);
    if (limited) return storageError(response, limited.status, 'ServerBusy', 'The server is busy.', limited.retryAfter ? { 'retry-after': limited.retryAfter } : {});
    const base = `/${ACCOUNT}/${CONTAINER}`;
    if (request.path === base && request.query.get('restype') === 'container' && request.query.get('comp') === 'list') {
      const q = request.query;
      const prefix = q.get('prefix') ?? '';
      const page = listKeys(Object.keys(BLOBS), prefix, q.get('delimiter') ?? '', Number(q.get('marker') || '0'), Number(q.get('maxresults') ?? '5000'));
      const blobs = page.keys
        .map(
          (name) =>
            `<Blob>${nameElement(name)}<Properties><Last-Modified>Wed, 01 May 2024 10:00:00 GMT</Last-Modified><Etag>${etag(name)}</Etag><Content-Length>${BLOBS[name]!.body.length}</Content-Length><Content-Type>${BLOBS[name]!.type}</Content-Type><BlobType>BlockBlob</BlobType></Properties></Blob>`,
        )
        .join('');
      const prefixes = page.prefixes.map((p) => `<BlobPrefix><Name>${xmlEscape(p)}</Name></BlobPrefix>`).join('');
      response.writeHead(200, { 'content-type': 'application/xml' });
      return response.end(
        `\uFEFF<?xml version="1.0" encoding="utf-8"?><EnumerationResults ServiceEndpoint="${server.url}/${ACCOUNT}" ContainerName="${CONTAINER}"><Prefix>${xmlEscape(prefix)}</Prefix>${q.get('marker') ? `<Marker>${q.get('marker')}</Marker>` : ''}<MaxResults>${q.get('maxresults')}</MaxResults><Delimiter>${q.get('delimiter') ?? ''}</Delimiter><Blobs>${blobs}${prefixes}</Blobs><NextMarker>${page.next ?? ''}</NextMarker></EnumerationResults>`,
      );
    }
    if (request.path.startsWith(`${base}/`)) {
      const name = decodeURIComponent(request.path.slice(base.length + 1));
      const blob = BLOBS[name];
      if (!blob) return storageError(response, 404, 'BlobNotFound', 'The specified blob does not exist.');
      response.writeHead(200, { 'content-type': blob.type, etag: etag(name), 'content-length': String(blob.body.length), 'x-ms-blob-type': 'BlockBlob' });
      return response.end(blob.body);
    }
    storageError(response, 404, 'ContainerNotFound', 'The specified container does not exist.');
  });
});

afterAll(() => server?.close());

beforeEach(() => {
  server.seen.length = 0;
  throttle = undefined;
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
    throttle = (r) => (r.query.get('marker') ? undefined : { status: 503, retryAfter: '0' });
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
    const before = issued;
    await s.list({});
    await s.download('top.txt', { maxBytes: 100 });
    expect(issued - before).toBe(1);
    const token = server.seen.filter((r) => r.method === 'POST');
    expect(token).toHaveLength(1);
    expect(Object.fromEntries(new URLSearchParams(token[0]!.body))).toEqual({ grant_type: 'client_credentials', client_id: CLIENT_ID, client_secret: CLIENT_SECRET, scope: 'https://storage.azure.com/.default' });
    const reads = server.seen.filter((r) => r.method === 'GET');
    expect(reads.every((r) => r.headers.authorization === `Bearer eyJ.azure-token-${issued}` && !r.query.has('sig'))).toBe(true);
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
