/**
 * A loopback GitHub REST API (under `/api/v3`, as GitHub Enterprise Server serves it) for one
 * repository, for the GitHub source's unit tests and the remote-content end-to-end tests: the
 * repository, branches, git trees (one level, or `?recursive=1`, which can be made to come back
 * truncated), contents entries, raw blobs, GitHub App installation tokens (a signed app JWT
 * checked against `app.publicKey`), the API version header, rate limits and GitHub's
 * `{message, documentation_url}` errors. A request without a token sees a private repository
 * as missing. Branches are mutable; trees are content-addressed (a tree's sha follows its
 * entries, a blob's is git's), so a changed file changes the trees above it, as in git. Every
 * file whose bytes were served is recorded in `served` (by path).
 */
import { createHash, type KeyObject } from 'node:crypto';
import { sendJson, startLoopback, verifyRs256, type SeenRequest } from './fake-remote.js';

export const GITHUB_API_PREFIX = '/api/v3';

interface FakeEntry {
  path: string;
  mode: string;
  type: 'blob' | 'tree';
  sha: string;
  size?: number;
}

export interface FakeGitHub {
  url: string;
  /** What the source's apiUrl is: `{url}/api/v3`. */
  apiUrl: string;
  seen: SeenRequest[];
  /** branch -> path -> text. */
  branches: Map<string, Map<string, string>>;
  /** Paths of the files whose bytes were served, in order. */
  served: string[];
  readonly issued: number;
  /** Tokens the API accepts: the personal access token given, and installation tokens it issues. */
  valid: Set<string>;
  /** Extra headers to answer 403 "rate limit exceeded" with, instead of the API. */
  throttle: ((request: SeenRequest) => Record<string, string> | undefined) | undefined;
  /** Recursive trees come back cut short, with truncated: true. */
  truncateRecursive: boolean;
  put(path: string, text: string, branch?: string): void;
  remove(path: string, branch?: string): void;
  treeSha(branch: string, folder: string): string;
  close(): Promise<void>;
}

/** Git's blob id of a text. */
export const blobSha = (text: string) => createHash('sha1').update(`blob ${Buffer.byteLength(text)}\0${text}`).digest('hex');

export async function startFakeGitHub(options: {
  repo: string;
  /** A personal access token the API accepts. */
  token: string;
  app?: { appId: string; installationId: string; publicKey: KeyObject };
  branches: Record<string, Record<string, string>>;
  defaultBranch?: string;
}): Promise<FakeGitHub> {
  const { repo } = options;
  const branches = new Map(Object.entries(options.branches).map(([name, files]) => [name, new Map(Object.entries(files))]));
  const files = (branch: string) => branches.get(branch) ?? new Map<string, string>();

  const children = (branch: string, folder: string): FakeEntry[] => {
    const seen = new Map<string, FakeEntry>();
    for (const [path, text] of files(branch)) {
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
  };
  /** Content-addressed: the sha of a folder's sorted entries. */
  function treeSha(branch: string, folder: string): string {
    const entries = children(branch, folder).toSorted((a, b) => (a.path < b.path ? -1 : 1));
    return createHash('sha1')
      .update(`tree\0${entries.map((e) => `${e.mode} ${e.path}\0${e.sha}`).join('\n')}`)
      .digest('hex');
  }
  const recursive = (branch: string, folder: string): FakeEntry[] =>
    children(branch, folder).flatMap((e) => (e.type === 'tree' ? [e, ...recursive(branch, `${folder}${e.path}/`).map((c) => ({ ...c, path: `${e.path}/${c.path}` }))] : [e]));
  /** The tree with this sha, in whichever branch has it now. */
  const findTree = (sha: string): { branch: string; folder: string } | undefined => {
    for (const [branch, tree] of branches) {
      const folders = new Set(['']);
      for (const path of tree.keys()) {
        const parts = path.split('/');
        for (let i = 1; i < parts.length; i++) folders.add(parts.slice(0, i).map((p) => `${p}/`).join(''));
      }
      for (const folder of folders) if (treeSha(branch, folder) === sha) return { branch, folder };
    }
    return undefined;
  };
  const findBlob = (sha: string): { text: string; paths: string[] } | undefined => {
    const paths: string[] = [];
    let text: string | undefined;
    for (const tree of branches.values()) {
      for (const [path, t] of tree) {
        if (blobSha(t) === sha) {
          text = t;
          paths.push(path);
        }
      }
    }
    return text === undefined ? undefined : { text, paths };
  };

  let issued = 0;
  let state!: FakeGitHub;
  const server = await startLoopback(async (request, response) => {
    if (!request.path.startsWith(`${GITHUB_API_PREFIX}/`)) return sendJson(response, 404, { message: 'Not Found' });
    const path = request.path.slice(GITHUB_API_PREFIX.length);
    const auth = request.headers.authorization;
    const installation = /^\/app\/installations\/(\d+)\/access_tokens$/.exec(path);
    if (request.method === 'POST' && installation) {
      const app = options.app;
      const jwt = /^Bearer (.+)$/.exec(auth ?? '')?.[1] ?? '';
      const verified = app ? await verifyRs256(jwt, app.publicKey).catch(() => undefined) : undefined;
      const now = Date.now() / 1000;
      if (!app || !verified || verified.claims.iss !== app.appId || (verified.claims.exp as number) - now > 600 || (verified.claims.iat as number) > now) {
        return sendJson(response, 401, { message: 'A JSON web token could not be decoded', documentation_url: 'https://docs.github.com/rest' });
      }
      if (installation[1] !== app.installationId) return sendJson(response, 404, { message: 'Not Found' });
      const token = `ghs_installationToken${++issued}`;
      state.valid.add(token);
      return sendJson(response, 201, { token, expires_at: new Date(Date.now() + 3_600_000).toISOString(), permissions: { contents: 'read' } });
    }
    const bearer = /^Bearer (.+)$/.exec(auth ?? '')?.[1];
    if (auth !== undefined && (!bearer || !state.valid.has(bearer))) return sendJson(response, 401, { message: 'Bad credentials', documentation_url: 'https://docs.github.com/rest' });
    if (request.headers['x-github-api-version'] !== '2022-11-28') return sendJson(response, 400, { message: 'missing API version' });
    const limited = state.throttle?.(request);
    if (limited) return sendJson(response, 403, { message: 'API rate limit exceeded for installation.' }, limited);
    const named = /^\/repos\/([^/]+)\/([^/]+)(\/.*)?$/.exec(path);
    if (!named || `${named[1]}/${named[2]}` !== repo) return sendJson(response, 404, { message: 'Not Found' });
    if (auth === undefined) return sendJson(response, 404, { message: 'Not Found' }); // a private repository
    const rest = named[3] ?? '';
    if (rest === '') return sendJson(response, 200, { full_name: repo, default_branch: options.defaultBranch ?? 'main', private: true });
    const branch = /^\/branches\/(.+)$/.exec(rest);
    if (branch) {
      const name = decodeURIComponent(branch[1]!);
      if (!branches.has(name)) return sendJson(response, 404, { message: 'Branch not found' });
      const root = treeSha(name, '');
      return sendJson(response, 200, { name, commit: { sha: createHash('sha1').update(`${name}\n${root}`).digest('hex'), commit: { tree: { sha: root } } } });
    }
    const tree = /^\/git\/trees\/([0-9a-f]{40})$/.exec(rest);
    if (tree) {
      const found = findTree(tree[1]!);
      if (!found) return sendJson(response, 404, { message: 'Not Found' });
      const entries = request.query.get('recursive') ? recursive(found.branch, found.folder) : children(found.branch, found.folder);
      // A repository too large for one recursive tree: GitHub cuts it short and says so.
      if (request.query.get('recursive') && state.truncateRecursive) return sendJson(response, 200, { sha: tree[1], tree: entries.slice(0, 2), truncated: true });
      return sendJson(response, 200, { sha: tree[1], tree: entries, truncated: false });
    }
    const contents = /^\/contents\/(.+)$/.exec(rest);
    if (contents) {
      const file = decodeURIComponent(contents[1]!);
      const onRef = files(request.query.get('ref') ?? options.defaultBranch ?? 'main');
      const text = onRef.get(file);
      if (text !== undefined) return sendJson(response, 200, { type: 'file', name: file.split('/').pop(), path: file, size: Buffer.byteLength(text), sha: blobSha(text) });
      if ([...onRef.keys()].some((p) => p.startsWith(`${file}/`))) return sendJson(response, 200, [{ type: 'file', name: 'x' }]);
      return sendJson(response, 404, { message: 'Not Found' });
    }
    const blob = /^\/git\/blobs\/([0-9a-f]{40})$/.exec(rest);
    if (blob && request.headers.accept === 'application/vnd.github.raw+json') {
      const found = findBlob(blob[1]!);
      if (found === undefined) return sendJson(response, 404, { message: 'Not Found' });
      state.served.push(...found.paths);
      response.writeHead(200, { 'content-type': 'application/vnd.github.raw', 'content-length': String(Buffer.byteLength(found.text)) });
      return response.end(found.text);
    }
    sendJson(response, 404, { message: 'Not Found' });
  });
  state = {
    url: server.url,
    apiUrl: `${server.url}${GITHUB_API_PREFIX}`,
    seen: server.seen,
    branches,
    served: [],
    get issued() {
      return issued;
    },
    valid: new Set([options.token]),
    throttle: undefined,
    truncateRecursive: false,
    put(path, text, branch = options.defaultBranch ?? 'main') {
      if (!branches.has(branch)) branches.set(branch, new Map());
      branches.get(branch)!.set(path, text);
    },
    remove(path, branch = options.defaultBranch ?? 'main') {
      branches.get(branch)?.delete(path);
    },
    treeSha,
    close: () => server.close(),
  };
  return state;
}
