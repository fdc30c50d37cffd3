import { createHash, generateKeyPairSync } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { sendJson, startLoopback, verifyRs256, type Loopback, type SeenRequest } from '../../../test/support/fake-remote.js';
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

const blobSha = (text: string) => createHash('sha1').update(`blob ${Buffer.byteLength(text)}\0${text}`).digest('hex');
const treeSha = (branch: string, folder: string) => createHash('sha1').update(`tree ${branch}:${folder}`).digest('hex');

interface FakeEntry {
  path: string;
  mode: string;
  type: 'blob' | 'tree';
  sha: string;
  size?: number;
}

/** Every tree of every branch by sha: one level of entries, paths relative to the folder. */
const TREES = new Map<string, { branch: string; folder: string }>();
const BLOBS = new Map<string, string>();

function children(branch: string, folder: string): FakeEntry[] {
  const seen = new Map<string, FakeEntry>();
  for (const [path, text] of Object.entries(BRANCHES[branch]!)) {
    if (!path.startsWith(folder)) continue;
    const rest = path.slice(folder.length);
    const cut = rest.indexOf('/');
    if (cut === -1) seen.set(rest, { path: rest, mode: '100644', type: 'blob', sha: blobSha(text), size: Buffer.byteLength(text) });
    else {
      const name = rest.slice(0, cut);
      seen.set(name, { path: name, mode: '040000', type: 'tree', sha: treeSha(branch, `${folder}${name}/`) });
    }
  }
  // Git orders tree entries by name; this fake does not, so the adapter's own order is tested.
  return [...seen.values()].toReversed();
}

function recursive(branch: string, folder: string): FakeEntry[] {
  return children(branch, folder).flatMap((e) => (e.type === 'tree' ? [e, ...recursive(branch, `${folder}${e.path}/`).map((c) => ({ ...c, path: `${e.path}/${c.path}` }))] : [e]));
}

for (const [branch, files] of Object.entries(BRANCHES)) {
  for (const [path, text] of Object.entries(files)) {
    BLOBS.set(blobSha(text), text);
    const parts = path.split('/');
    for (let i = 0; i < parts.length; i++) {
      const folder = parts.slice(0, i).map((p) => `${p}/`).join('');
      TREES.set(treeSha(branch, folder), { branch, folder });
    }
  }
}

let server: Loopback;
let issued = 0;
const valid = new Set([PAT]);
let throttle: ((request: SeenRequest) => Record<string, string> | undefined) | undefined;
let truncateRecursive = false;

beforeAll(async () => {
  server = await startLoopback(async (request, response) => {
    if (!request.path.startsWith('/api/v3/')) return sendJson(response, 404, { message: 'Not Found' });
    const path = request.path.slice('/api/v3'.length);
    const auth = request.headers.authorization;
    const installation = /^\/app\/installations\/(\d+)\/access_tokens$/.exec(path);
    if (request.method === 'POST' && installation) {
      const jwt = /^Bearer (.+)$/.exec(auth ?? '')?.[1] ?? '';
      const verified = await verifyRs256(jwt, publicKey).catch(() => undefined);
      const now = Date.now() / 1000;
      if (!verified || verified.claims.iss !== '4242' || (verified.claims.exp as number) - now > 600 || (verified.claims.iat as number) > now) {
        return sendJson(response, 401, { message: 'A JSON web token could not be decoded', documentation_url: 'https://docs.github.com/rest' });
      }
      if (installation[1] !== '99') return sendJson(response, 404, { message: 'Not Found' });
      const token = `ghs_installationToken${++issued}`;
      valid.add(token);
      return sendJson(response, 201, { token, expires_at: new Date(Date.now() + 3_600_000).toISOString(), permissions: { contents: 'read' } });
    }
    const bearer = /^Bearer (.+)$/.exec(auth ?? '')?.[1];
    if (auth !== undefined && (!bearer || !valid.has(bearer))) return sendJson(response, 401, { message: 'Bad credentials', documentation_url: 'https://docs.github.com/rest' });
    if (request.headers['x-github-api-version'] !== '2022-11-28') return sendJson(response, 400, { message: 'missing API version' });
    const limited = throttle?.(request);
    if (limited) return sendJson(response, 403, { message: 'API rate limit exceeded for installation.' }, limited);
    const repo = /^\/repos\/([^/]+)\/([^/]+)(\/.*)?$/.exec(path);
    if (!repo || `${repo[1]}/${repo[2]}` !== REPO) return sendJson(response, 404, { message: 'Not Found' });
    if (auth === undefined) return sendJson(response, 404, { message: 'Not Found' }); // a private repository
    const rest = repo[3] ?? '';
    if (rest === '') return sendJson(response, 200, { full_name: REPO, default_branch: 'main', private: true });
    const branch = /^\/branches\/(.+)$/.exec(rest);
    if (branch) {
      const name = decodeURIComponent(branch[1]!);
      if (!BRANCHES[name]) return sendJson(response, 404, { message: 'Branch not found' });
      return sendJson(response, 200, { name, commit: { sha: createHash('sha1').update(name).digest('hex'), commit: { tree: { sha: treeSha(name, '') } } } });
    }
    const tree = /^\/git\/trees\/([0-9a-f]{40})$/.exec(rest);
    if (tree) {
      const found = TREES.get(tree[1]!);
      if (!found) return sendJson(response, 404, { message: 'Not Found' });
      const entries = request.query.get('recursive') ? recursive(found.branch, found.folder) : children(found.branch, found.folder);
      // A repository too large for one recursive tree: GitHub cuts it short and says so.
      if (request.query.get('recursive') && truncateRecursive) return sendJson(response, 200, { sha: tree[1], tree: entries.slice(0, 2), truncated: true });
      return sendJson(response, 200, { sha: tree[1], tree: entries, truncated: false });
    }
    const contents = /^\/contents\/(.+)$/.exec(rest);
    if (contents) {
      const file = decodeURIComponent(contents[1]!);
      const files = BRANCHES[request.query.get('ref') ?? 'main'] ?? {};
      if (files[file] !== undefined) return sendJson(response, 200, { type: 'file', name: file.split('/').pop(), path: file, size: Buffer.byteLength(files[file]), sha: blobSha(files[file]) });
      if (Object.keys(files).some((p) => p.startsWith(`${file}/`))) return sendJson(response, 200, [{ type: 'file', name: 'x' }]);
      return sendJson(response, 404, { message: 'Not Found' });
    }
    const blob = /^\/git\/blobs\/([0-9a-f]{40})$/.exec(rest);
    if (blob && request.headers.accept === 'application/vnd.github.raw+json') {
      const text = BLOBS.get(blob[1]!);
      if (text === undefined) return sendJson(response, 404, { message: 'Not Found' });
      response.writeHead(200, { 'content-type': 'application/vnd.github.raw', 'content-length': String(Buffer.byteLength(text)) });
      return response.end(text);
    }
    sendJson(response, 404, { message: 'Not Found' });
  });
});

afterAll(() => server?.close());

beforeEach(() => {
  server.seen.length = 0;
  throttle = undefined;
  truncateRecursive = false;
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
    truncateRecursive = true;
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
    const before = issued;
    await s.list({});
    await s.download('README.md', { maxBytes: 100 });
    expect(issued - before).toBe(1);
    const exchange = server.seen.filter((r) => r.method === 'POST');
    expect(exchange).toHaveLength(1);
    expect(exchange[0]!.path).toBe('/api/v3/app/installations/99/access_tokens');
    const { claims, header } = await verifyRs256(exchange[0]!.headers.authorization!.slice(7), publicKey);
    expect(header.alg).toBe('RS256');
    expect(claims.iss).toBe('4242');
    const reads = server.seen.filter((r) => r.method === 'GET');
    expect(reads.every((r) => r.headers.authorization === `Bearer ghs_installationToken${issued}`)).toBe(true);
    // A revoked installation token: one fresh exchange, then the read succeeds.
    valid.delete(`ghs_installationToken${issued}`);
    await s.download('README.md', { maxBytes: 100 });
    expect(issued - before).toBe(2);

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
    throttle = () => (count++ === 0 ? { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(Math.ceil(Date.now() / 1000)) } : undefined);
    const page = await source({ logger: { warn: (m) => logs.push(m) }, branch: 'main' }).list({});
    expect(page.files).toHaveLength(2);
    expect(logs).toHaveLength(1);
    expect(logs[0]).not.toContain(PAT);
    throttle = () => ({ 'retry-after': '3600' });
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
