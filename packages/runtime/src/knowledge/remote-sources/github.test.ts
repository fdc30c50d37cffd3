import { generateKeyPairSync } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { verifyRs256 } from '../../../test/support/fake-remote.js';
import { blobSha, startFakeGitHub, type FakeGitHub } from '../../../test/support/fake-github.js';
import { RemoteSourceError } from './errors.js';
import { GitHubSource, type GitHubSourceOptions } from './github.js';

const REPO = 'garden/handbook';
const PAT = 'ghp_validPersonalAccessToken123';
const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const PEM = privateKey.export({ type: 'pkcs1', format: 'pem' }).toString();

const BRANCHES: Record<string, Record<string, string>> = {
  main: {
    'README.md': '# Handbook',
    'docs/a.md': '# A',
    'docs/b.md': '# B',
    'docs/c.md': '# C',
    'docs/deep/d.md': '# D',
    'docs/deep/deeper/e.md': '# E',
    'big.bin': 'x'.repeat(5000),
  },
  dev: { 'docs/new.md': '# New on dev' },
};

let server: FakeGitHub;
const treeSha = (branch: string, folder: string) => server.treeSha(branch, folder);

beforeAll(async () => {
  server = await startFakeGitHub({ repo: REPO, token: PAT, app: { appId: '4242', installationId: '99', publicKey }, branches: BRANCHES });
});

afterAll(() => server?.close());

beforeEach(() => {
  server.seen.length = 0;
  server.throttle = undefined;
  server.truncateRecursive = false;
});

function source(extra: Partial<GitHubSourceOptions> = {}): GitHubSource {
  return new GitHubSource({ id: 'handbook', repo: REPO, token: PAT, apiUrl: `${server.url}/api/v3`, ...extra });
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

describe('GitHubSource against a loopback REST API', () => {
  it('lists one level of the default branch with the token and API version headers', async () => {
    const page = await source().list({});
    expect(paths(page)).toEqual(['docs/', 'README.md', 'big.bin']);
    expect(page.files.find((f) => f.path === 'README.md')).toEqual({ path: 'README.md', name: 'README.md', size: 10, version: blobSha('# Handbook') });
    expect(server.seen.map((r) => r.path)).toEqual([`/api/v3/repos/${REPO}`, `/api/v3/repos/${REPO}/branches/main`, `/api/v3/repos/${REPO}/git/trees/${treeSha('main', '')}`]);
    for (const sent of server.seen) {
      expect(sent.headers.authorization).toBe(`Bearer ${PAT}`);
      expect(sent.headers.accept).toBe('application/vnd.github+json');
    }
  });

  it('pages a folder with tokens naming the tree, then reads from the cache', async () => {
    const s = source();
    const first = await s.list({ prefix: 'docs/', limit: 2 });
    expect(paths(first)).toEqual(['docs/a.md', 'docs/b.md']);
    expect(first.next_page).toBe(`${treeSha('main', 'docs/')}:2`);
    server.seen.length = 0;
    const second = await s.list({ prefix: 'docs/', limit: 2, page_token: first.next_page! });
    expect(paths(second)).toEqual(['docs/deep/', 'docs/c.md']);
    expect(second.next_page).toBeUndefined();
    expect(server.seen).toHaveLength(0);
    await expect(s.list({ prefix: 'docs/', page_token: '../../x:1' })).rejects.toThrow('the page token is not one this source gave');
  });

  it('walks a folder recursively in path order from one recursive tree', async () => {
    const found: string[] = [];
    for await (const file of source({ pageSize: 2 }).walk('docs/')) found.push(file.path);
    expect(found).toEqual(['docs/a.md', 'docs/b.md', 'docs/c.md', 'docs/deep/d.md', 'docs/deep/deeper/e.md']);
    const recursiveCalls = server.seen.filter((r) => r.query.get('recursive') === '1');
    expect(recursiveCalls).toHaveLength(1);
  });

  it('walks a repository whose recursive tree GitHub truncates level by level instead', async () => {
    server.truncateRecursive = true;
    const found: string[] = [];
    for await (const file of source().walk('')) found.push(file.path);
    expect(found.toSorted()).toEqual(Object.keys(BRANCHES.main!).toSorted());
    expect(new Set(found).size).toBe(found.length);
    const under: string[] = [];
    for await (const file of source().walk('docs/deep/')) under.push(file.path);
    expect(under).toEqual(['docs/deep/d.md', 'docs/deep/deeper/e.md']);
    await expect(source().list({ prefix: 'docs/', delimiter: '' })).rejects.toThrow('more entries than GitHub lists in one tree');
    // One level still lists as usual.
    expect(paths(await source().list({ prefix: 'docs/' }))).toEqual(['docs/deep/', 'docs/a.md', 'docs/b.md', 'docs/c.md']);
  });

  it('reads another branch and repo from source_params, and refuses bad ones', async () => {
    const page = await source().list({ prefix: 'docs/', params: { branch: 'dev' } });
    expect(paths(page)).toEqual(['docs/new.md']);
    expect(server.seen.some((r) => r.path.endsWith('/branches/dev'))).toBe(true);
    const unset = source({ repo: undefined });
    expect(() => unset.check('docs/')).toThrow('has no repo set');
    expect((await unset.list({ params: { repo: REPO } })).folders).toHaveLength(1);
    expect(() => unset.check('docs/', { repo: 'not a repo' })).toThrow('source_params.repo must be "owner/name"');
    expect(() => unset.check('docs/', { repo: REPO, branch: 'a..b' })).toThrow('source_params.branch is not a valid ref name');
    expect(() => unset.check('docs/', { repo: REPO, tag: 'v1' })).toThrow("unknown source_params 'tag'; allowed: 'repo', 'branch'");
    const missing = await failure(source().list({ params: { branch: 'gone' } }));
    expect([missing.reason, missing.message]).toEqual(['not_found', 'Remote source "handbook" (github) found nothing at "" (HTTP 404 Branch not found)']);
    const noFolder = await failure(source().list({ prefix: 'nothing/here/' }));
    expect(noFolder.message).toContain(`no folder "nothing/" in ${REPO}`);
  });

  it('downloads a file in the raw media type, versioned by its blob sha, and refuses one over the cap before reading it', async () => {
    const file = await source().download('docs/deep/d.md', { maxBytes: 100 });
    expect(Buffer.from(file.bytes).toString()).toBe('# D');
    expect(file.version).toBe(blobSha('# D'));
    expect(server.seen.at(-1)!.headers.accept).toBe('application/vnd.github.raw+json');
    expect(server.seen.find((r) => r.path.includes('/contents/'))!.query.get('ref')).toBe('main');
    server.seen.length = 0;
    const big = await failure(source({ branch: 'main' }).download('big.bin', { maxBytes: 1000 }));
    expect([big.reason, big.status]).toEqual(['too_large', 413]);
    expect(big.message).toContain('5000 bytes, limit 1000 bytes');
    expect(server.seen.some((r) => r.path.includes('/git/blobs/'))).toBe(false);
    expect((await failure(source().download('docs/', { maxBytes: 10 }))).status).toBe(400);
    expect((await failure(source().download('docs', { maxBytes: 10 }))).message).toContain('is a folder');
    expect((await failure(source().download('docs/none.md', { maxBytes: 10 }))).reason).toBe('not_found');
  });

  it('authenticates as a GitHub App: a signed JWT for an installation token, cached', async () => {
    const s = source({ token: undefined, app: { appId: 4242, installationId: 99, privateKey: PEM } });
    const before = server.issued;
    await s.list({});
    await s.download('README.md', { maxBytes: 100 });
    expect(server.issued - before).toBe(1);
    const exchange = server.seen.filter((r) => r.method === 'POST');
    expect(exchange).toHaveLength(1);
    expect(exchange[0]!.path).toBe('/api/v3/app/installations/99/access_tokens');
    const { claims, header } = await verifyRs256(exchange[0]!.headers.authorization!.slice(7), publicKey);
    expect(header.alg).toBe('RS256');
    expect(claims.iss).toBe('4242');
    const reads = server.seen.filter((r) => r.method === 'GET');
    expect(reads.every((r) => r.headers.authorization === `Bearer ghs_installationToken${server.issued}`)).toBe(true);
    // A revoked installation token: one fresh exchange, then the read succeeds.
    server.valid.delete(`ghs_installationToken${server.issued}`);
    await s.download('README.md', { maxBytes: 100 });
    expect(server.issued - before).toBe(2);

    const wrong = await failure(source({ token: undefined, app: { appId: 4242, installationId: 7, privateKey: PEM } }).list({}));
    expect(wrong.reason).toBe('not_found');
    expect(wrong.message).not.toContain('PRIVATE KEY');
  });

  it('maps bad credentials to refused credentials without the token', async () => {
    const error = await failure(source({ token: 'ghp_revokedTokenValue999' }).list({}));
    expect([error.reason, error.status]).toEqual(['unauthorized', 403]);
    expect(error.message).toContain('Bad credentials');
    expect(error.message).not.toContain('ghp_revokedTokenValue999');
    // Without a token, a private repository looks missing, as GitHub shows it.
    expect((await failure(source({ token: undefined }).list({}))).reason).toBe('not_found');
  });

  it('waits for the rate limit reset, and gives up past maxRetryDelayMs', async () => {
    const logs: string[] = [];
    let count = 0;
    server.throttle = () => (count++ === 0 ? { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(Math.ceil(Date.now() / 1000)) } : undefined);
    const page = await source({ logger: { warn: (m) => logs.push(m) }, branch: 'main' }).list({});
    expect(page.files).toHaveLength(2);
    expect(logs).toHaveLength(1);
    expect(logs[0]).not.toContain(PAT);
    server.throttle = () => ({ 'retry-after': '3600' });
    const error = await failure(source({ branch: 'main' }).list({}));
    expect(error.reason).toBe('throttled');
    expect(error.headers?.['retry-after']).toBe('3600');
    expect(error.message).toContain('API rate limit exceeded');
  });

  it('gives an identity and details, and checks its settings', () => {
    const s = source({ branch: 'main', apiUrl: 'https://api.github.com' });
    expect(s.identity('docs/a.md')).toBe(`github:${REPO}@main:docs/a.md`);
    expect(s.identity('docs/a.md', { branch: 'dev' })).toBe(`github:${REPO}@dev:docs/a.md`);
    expect(s.describe({ path: 'docs/a.md', name: 'a.md', version: 'abc' })).toEqual({
      source_type: 'github',
      source_config_id: 'handbook',
      source_config_name: 'handbook',
      github_repo: REPO,
      github_branch: 'main',
      github_path: 'docs/a.md',
      url: `https://github.com/${REPO}/blob/main/docs/a.md`,
      version: 'abc',
    });
    expect(() => source({ app: { appId: 1, installationId: 2, privateKey: PEM } })).toThrow('at most one of token and app');
    expect(() => source({ token: undefined, app: { appId: 1, installationId: '', privateKey: PEM } })).toThrow('app.appId, app.installationId (numbers) and app.privateKey together');
    expect(() => source({ token: undefined, app: { appId: 1, installationId: 2, privateKey: 'nope' } })).toThrow('is not a PEM private key');
    expect(() => source({ repo: 'no-slash' })).toThrow('must be "owner/name"');
    expect(() => source({ apiUrl: 'http://ghe.internal/api/v3' })).toThrow('plain http');
  });
});
