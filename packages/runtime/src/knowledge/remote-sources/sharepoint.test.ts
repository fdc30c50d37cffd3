import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFakeSharePoint, type FakeSharePoint } from '../../../test/support/fake-sharepoint.js';
import { RemoteSourceError } from './errors.js';
import { SharePointSource, type SharePointSourceOptions } from './sharepoint.js';

const TENANT = 'contoso.onmicrosoft.com';
const CLIENT_ID = 'aaaa-bbbb';
const CLIENT_SECRET = 'sp~client~secret~value';
const SITE_ID = 'contoso.sharepoint.com,11111111-1111-1111-1111-111111111111,22222222-2222-2222-2222-222222222222';
const DRIVE = 'b!drive-one';
const TEMPAUTH = 'tempauth-secret-token-value';

/** The library: files with their bytes; a key ending in "/" is an (empty) folder. */
const ITEMS: Record<string, string | null> = {
  'README.md': '# Library',
  'big.bin': 'x'.repeat(5000),
  'docs/a.md': '# A',
  'docs/b.md': '# B',
  'docs/c.md': '# C',
  'docs/deep/d.md': '# D',
  'docs/empty/': null,
  'docs/Notebook.one': null,
};

let server: FakeSharePoint;
const idOf = (path: string) => server.idOf(path);

beforeAll(async () => {
  server = await startFakeSharePoint({
    tenantId: TENANT,
    clientId: CLIENT_ID,
    clientSecret: CLIENT_SECRET,
    hostname: 'contoso.sharepoint.com',
    sitePath: '/sites/handbook',
    siteId: SITE_ID,
    driveId: DRIVE,
    tempauth: TEMPAUTH,
    items: ITEMS,
  });
});

afterAll(() => server?.close());

beforeEach(() => {
  server.seen.length = 0;
  server.throttle = undefined;
  server.redirectTo = undefined;
});

function source(extra: Partial<SharePointSourceOptions> = {}): SharePointSource {
  return new SharePointSource({
    id: 'handbook',
    tenantId: TENANT,
    clientId: CLIENT_ID,
    clientSecret: CLIENT_SECRET,
    hostname: 'contoso.sharepoint.com',
    sitePath: '/sites/handbook',
    graphUrl: `${server.url}/v1.0`,
    authorityHost: server.url,
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

const paths = (page: { files: { path: string }[]; folders: { path: string }[] }) => [...page.folders.map((f) => f.path), ...page.files.map((f) => f.path)];

describe('SharePointSource against a loopback Microsoft Graph', () => {
  it('gets a token, finds the site and its default drive once, and lists the root', async () => {
    const s = source();
    const page = await s.list({});
    expect(paths(page)).toEqual(['docs/', 'big.bin', 'README.md']);
    expect(page.files.find((f) => f.name === 'README.md')).toEqual({
      path: 'README.md',
      name: 'README.md',
      size: 9,
      version: `"c:{${idOf('README.md')}},9"`,
      modified_at: Date.parse('2024-05-01T10:00:00Z'),
      content_type: 'text/markdown',
    });
    await s.list({ prefix: 'docs/' });
    const gets = server.seen.filter((r) => r.method === 'GET').map((r) => decodeURIComponent(r.path));
    expect(gets).toEqual([
      '/v1.0/sites/contoso.sharepoint.com:/sites/handbook',
      `/v1.0/sites/${SITE_ID}/drive`,
      `/v1.0/drives/${DRIVE}/root/children`,
      `/v1.0/drives/${DRIVE}/root:/docs:/children`,
    ]);
    expect(server.seen.filter((r) => r.method === 'POST')).toHaveLength(1);
    const listing = server.seen.at(-1)!;
    expect(listing.headers.authorization).toBe(`Bearer eyJ.graph-token-${server.issued}`);
    expect(listing.query.get('$top')).toBe('100');
  });

  it('pages children with the $skiptoken of @odata.nextLink, and marks empty folders', async () => {
    const s = source({ driveId: DRIVE });
    const first = await s.list({ prefix: 'docs/', limit: 3 });
    expect(paths(first)).toEqual(['docs/a.md', 'docs/b.md', 'docs/c.md']);
    expect(first.next_page).toBe(Buffer.from('Paged=TRUE&p_ID:3').toString('base64url'));
    const second = await s.list({ prefix: 'docs/', limit: 3, page_token: first.next_page! });
    // The OneNote package is neither a file nor a folder.
    expect(second.folders).toEqual([
      { path: 'docs/deep/', name: 'deep', is_empty: false },
      { path: 'docs/empty/', name: 'empty', is_empty: true },
    ]);
    expect(second.files).toEqual([]);
    expect(second.next_page).toBeUndefined();
    expect(server.seen.at(-1)!.query.get('$skiptoken')).toBe(first.next_page);
    expect(server.seen.some((r) => r.path.includes('/sites/'))).toBe(false);
    await expect(s.list({ page_token: 'https://evil.example/x' })).rejects.toThrow('the page token is not one this source gave');
    await expect(s.list({ delimiter: '' })).rejects.toThrow('lists with the delimiter "/"');
  });

  it('walks folders depth first over several pages, skipping empty ones', async () => {
    const found: string[] = [];
    for await (const file of source({ pageSize: 2 }).walk('')) found.push(file.path);
    expect(found).toEqual(['big.bin', 'README.md', 'docs/a.md', 'docs/b.md', 'docs/c.md', 'docs/deep/d.md']);
    expect(server.seen.some((r) => decodeURIComponent(r.path).includes('root:/docs/empty:'))).toBe(false);
    const capped: string[] = [];
    for await (const file of source().walk('docs/', { maxFiles: 2 })) capped.push(file.path);
    expect(capped).toEqual(['docs/a.md', 'docs/b.md']);
  });

  it('downloads through the pre-authenticated redirect without sending the token there', async () => {
    const file = await source().download('docs/a.md', { maxBytes: 100 });
    expect(Buffer.from(file.bytes).toString()).toBe('# A');
    expect(file).toMatchObject({ content_type: 'text/markdown', version: `"c:{${idOf('docs/a.md')}},3"` });
    const download = server.seen.find((r) => r.path.startsWith('/_layouts/'))!;
    expect(download.headers.authorization).toBeUndefined();
    expect(server.seen.find((r) => r.path.endsWith('/content'))!.headers.authorization).toMatch(/^Bearer /);
  });

  it('refuses a file over the cap from its metadata, a folder, and an http redirect off loopback', async () => {
    const big = await failure(source().download('big.bin', { maxBytes: 1000 }));
    expect([big.reason, big.message]).toEqual(['too_large', 'Remote source "handbook" (sharepoint) has a file larger than allowed for "big.bin" (5000 bytes, limit 1000 bytes)']);
    expect(server.seen.some((r) => r.path.endsWith('/content'))).toBe(false);
    expect((await failure(source().download('docs', { maxBytes: 10 }))).message).toContain('is a folder');
    server.redirectTo = () => `http://files.example/download?tempauth=${TEMPAUTH}`;
    const plain = await failure(source().download('docs/a.md', { maxBytes: 100 }));
    expect(plain.reason).toBe('bad_answer');
    expect(plain.message).toContain('only https is followed');
    expect(plain.message).not.toContain(TEMPAUTH);
  });

  it('maps itemNotFound, refused credentials and reserved characters', async () => {
    const missing = await failure(source().download('docs/none.md', { maxBytes: 10 }));
    expect(missing.message).toBe('Remote source "handbook" (sharepoint) found nothing at "docs/none.md" (HTTP 404 itemNotFound: The resource could not be found.)');
    const secret = await failure(source({ clientSecret: 'wrong~secret~value' }).list({}));
    expect([secret.reason, secret.status]).toEqual(['unauthorized', 403]);
    // The failed token request names the path it was for, not "(access token)".
    const file = await failure(source({ clientSecret: 'wrong~secret~value' }).download('docs/a.md', { maxBytes: 100 }));
    expect(file.message).toBe(
      'Remote source "handbook" (sharepoint) refused the configured credentials for "docs/a.md" (access token: HTTP 401 invalid_client: AADSTS7000215: Invalid client secret provided.)',
    );
    expect(file.path).toBe('docs/a.md');
    expect(secret.message).not.toContain('wrong~secret~value');
    expect(secret.message).not.toContain('Trace ID');
    expect(() => source().check('docs/a?.md')).toThrow('has a character SharePoint refuses');
  });

  it('gets a new token once when Graph says the cached one expired', async () => {
    const s = source();
    await s.list({});
    server.valid.clear();
    await s.list({});
    expect(server.seen.filter((r) => r.method === 'POST')).toHaveLength(2);
  });

  it('retries 429 after Retry-After, logging without secrets', async () => {
    const logs: string[] = [];
    let count = 0;
    server.throttle = () => (count++ === 0 ? '1' : undefined);
    const started = Date.now();
    await source({ driveId: DRIVE, logger: { warn: (m) => logs.push(m) } }).list({});
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    expect(logs).toHaveLength(1);
    expect(logs[0]).not.toMatch(/eyJ\.graph-token|sp~client/);
  });

  it('keeps a stable identity and checks its settings', async () => {
    const s = source();
    const before = s.identity('docs/a.md');
    await s.list({});
    expect(s.identity('docs/a.md')).toBe(before);
    expect(before).toBe('sharepoint:handbook:contoso.sharepoint.com/sites/handbook/default:docs/a.md');
    expect(s.describe({ path: 'docs/a.md', name: 'a.md' })).toMatchObject({ source_type: 'sharepoint', sharepoint_hostname: 'contoso.sharepoint.com', sharepoint_drive_id: DRIVE, sharepoint_path: 'docs/a.md' });
    expect(() => source({ clientSecret: '' })).toThrow('clientSecret is required');
    expect(() => source({ hostname: 'https://contoso' })).toThrow('must be a host name');
    expect(() => source({ graphUrl: 'http://graph.internal/v1.0' })).toThrow('plain http');
    expect(() => s.check('a', { repo: 'x/y' })).toThrow("source type 'sharepoint' does not accept source_params");
  });
});
