/**
 * @module knowledge/remote-sources/github
 * A GitHub repository (github.com or Enterprise, by `apiUrl`) through the REST API with plain fetch.
 *
 * Folders are read from git trees: the branch is resolved to its commit's root tree once per
 * listing, then each folder's tree is fetched by sha (non-recursive for one level, recursive=1
 * for a flat listing or a walk). Trees are immutable, so they are cached by sha, and a page
 * token names the tree it pages through: later pages of a listing read the same commit even if
 * the branch moves meanwhile. A file is downloaded in two steps: its contents entry (type, size
 * and blob sha, so a file over the cap is refused before any byte of it is read, and the
 * version is the blob sha) and then that blob in the raw media type.
 *
 * Auth: a token (a fine-grained or classic PAT), or a GitHub App: an RS256 JWT signed with the
 * app's private key (`iss` the app id, valid 9 minutes) exchanged for an installation access
 * token, cached until shortly before it expires. Without either, public repositories only.
 *
 * `source_params` may give `repo` ("owner/name") and `branch` per request; without a branch the
 * repository's default branch is used (looked up once per repository and cached briefly).
 * Rate limits: a 403 or 429 with `x-ratelimit-remaining: 0` (or a secondary limit's Retry-After)
 * is throttling, retried after Retry-After or until `x-ratelimit-reset`. What is read from GitHub's
 * answers and names apart from the class (refs, trees, error bodies, rate-limit headers) is in
 * github-rest.ts.
 */
import type { KeyObject } from 'node:crypto';
import { ConfigurationError } from '../../errors.js';
import type { FetchedResource } from '../../net/safe-fetch.js';
import { BaseRemoteSource, baseName, optionalText } from './base.js';
import { REPO, SHA, branchProblem, githubErrorText, rateLimited, resetDelay, type Tree, type TreeEntry } from './github-rest.js';
import { encodePath, jsonOf, settingUrl, under, type SourceRequest } from './http.js';
import { defineRemoteSource } from './kind.js';
import type { RemoteCallOptions, RemoteDownload, RemoteFile, RemoteFolder, RemoteListOptions, RemoteListPage, RemoteSourceBaseOptions } from './remote-source.js';
import { TokenCache, privateKeyFrom, signJwt } from './tokens.js';

export interface GitHubAppAuth {
  appId: string | number;
  installationId: string | number;
  /** The app's PEM private key. */
  privateKey: string;
}

export interface GitHubSourceOptions extends RemoteSourceBaseOptions {
  /** `owner/name`; may instead come with each request (`source_params.repo`). */
  repo?: string;
  /** Default the repository's default branch. */
  branch?: string;
  /** At most one of a token and an app; neither reads public repositories only. */
  token?: string;
  app?: GitHubAppAuth;
  /** Default https://api.github.com; GitHub Enterprise: https://github.example.com/api/v3. */
  apiUrl?: string;
}

const MAX_TREE_BYTES = 64 * 1024 * 1024;
const MAX_JSON_BYTES = 8 * 1024 * 1024;
const DEFAULT_BRANCH_TTL_MS = 60_000;
const TREE_CACHE = 32;

/** Where a request reads from. */
interface Target {
  repo: string;
  branch: string | undefined;
}

function fileOf(path: string, entry: TreeEntry): RemoteFile {
  return { path, name: baseName(path), ...(entry.size !== undefined ? { size: entry.size } : {}), version: entry.sha };
}

export class GitHubSource extends BaseRemoteSource {
  readonly type = 'github' as const;
  readonly repo: string | undefined;
  readonly branch: string | undefined;
  protected override readonly paramNames = ['repo', 'branch'] as const;
  private readonly api: URL;
  private readonly staticToken: string | undefined;
  private readonly tokens: TokenCache | undefined;
  private issued: string[] = [];
  private readonly trees = new Map<string, Tree>();
  private readonly defaultBranches = new Map<string, { branch: string; until: number }>();

  constructor(options: GitHubSourceOptions) {
    super(options, 'github');
    const where = this.where();
    this.repo = optionalText(options.repo, 'repo', where);
    if (this.repo !== undefined && !REPO.test(this.repo)) throw new ConfigurationError(`${where}: repo "${this.repo}" must be "owner/name"`);
    this.branch = optionalText(options.branch, 'branch', where);
    const problem = this.branch !== undefined ? branchProblem(this.branch) : undefined;
    if (problem) throw new ConfigurationError(`${where}: branch ${problem}`);
    this.api = settingUrl(options.apiUrl ?? 'https://api.github.com', 'apiUrl', where);
    this.staticToken = optionalText(options.token, 'token', where);
    const app = options.app;
    if (this.staticToken !== undefined && app !== undefined) throw new ConfigurationError(`${where}: give at most one of token and app`);
    let key: KeyObject | undefined;
    let privatePem: string | undefined;
    if (app !== undefined) {
      const appId = String(app.appId ?? '').trim();
      const installationId = String(app.installationId ?? '').trim();
      if (!/^\d{1,20}$/.test(appId) || !/^\d{1,20}$/.test(installationId) || typeof app.privateKey !== 'string') {
        throw new ConfigurationError(`${where}: GitHub App auth needs app.appId, app.installationId (numbers) and app.privateKey together`);
      }
      privatePem = app.privateKey;
      key = privateKeyFrom(app.privateKey, `${where}: app.privateKey`);
      const signing = key;
      this.tokens = new TokenCache(async () => {
        const now = Math.floor(Date.now() / 1000);
        // Issued a minute in the past: GitHub refuses a JWT from a clock running ahead of its own.
        const jwt = await signJwt({}, { iat: now - 60, exp: now + 540, iss: appId }, signing);
        this.remember(jwt);
        const answer = await this.http.request({
          url: under(this.api, `/app/installations/${installationId}/access_tokens`),
          method: 'POST',
          headers: this.headers(`Bearer ${jwt}`),
          maxBytes: MAX_JSON_BYTES,
          path: '(installation token)',
          credentials: true,
          explain: githubErrorText,
        });
        const body = jsonOf(answer) as { token?: unknown; expires_at?: unknown } | undefined;
        if (typeof body?.token !== 'string' || body.token === '') throw this.http.badAnswer('(installation token)', 'the installation token answer has no token');
        const expires = typeof body.expires_at === 'string' ? Date.parse(body.expires_at) : NaN;
        return { token: body.token, expiresAt: Number.isFinite(expires) ? expires : Date.now() + 3_600_000 };
      });
    }
    this.http = this.makeHttp([this.api.origin], () => [this.staticToken, privatePem, ...this.issued]);
  }

  private remember(token: string): void {
    if (!this.issued.includes(token)) this.issued = [token, ...this.issued].slice(0, 6);
  }

  private headers(authorization?: string): Record<string, string> {
    return {
      accept: 'application/vnd.github+json',
      'x-github-api-version': '2022-11-28',
      'user-agent': 'svc-runtime-knowledge',
      ...(authorization ? { authorization } : {}),
    };
  }

  private request(url: string, path: string, options: { maxBytes: number; signal: AbortSignal | undefined; accept?: string }): Promise<FetchedResource> {
    const request: SourceRequest = {
      url,
      path,
      maxBytes: options.maxBytes,
      signal: options.signal,
      headers: { ...this.headers(), ...(options.accept ? { accept: options.accept } : {}) },
      explain: githubErrorText,
      throttled: rateLimited,
      retryDelay: resetDelay,
      ...(this.staticToken !== undefined || this.tokens
        ? {
            auth: async () => {
              const token = this.staticToken ?? (await this.tokens!.get());
              this.remember(token);
              return { authorization: `Bearer ${token}` };
            },
            ...(this.tokens ? { reauth: () => this.tokens!.invalidate() } : {}),
          }
        : {}),
    };
    return this.http.request(request);
  }

  private async json(url: string, path: string, signal: AbortSignal | undefined, maxBytes = MAX_JSON_BYTES): Promise<unknown> {
    const answer = await this.request(url, path, { maxBytes, signal });
    const body = jsonOf(answer);
    if (body === undefined) throw this.http.badAnswer(path, 'the answer is not JSON');
    return body;
  }

  /** The repository and branch a call reads, from source_params or the settings. */
  private target(params: Readonly<Record<string, unknown>> | undefined, path: string): Target {
    const repoParam = params?.repo;
    const branchParam = params?.branch;
    if (repoParam !== undefined && (typeof repoParam !== 'string' || !REPO.test(repoParam))) throw this.http.invalid(path, 'source_params.repo must be "owner/name"');
    if (branchParam !== undefined) {
      if (typeof branchParam !== 'string') throw this.http.invalid(path, 'source_params.branch must be a string');
      const problem = branchProblem(branchParam);
      if (problem) throw this.http.invalid(path, `source_params.branch ${problem}`);
    }
    const repo = (repoParam as string | undefined) ?? this.repo;
    if (repo === undefined) throw this.http.invalid(path, `GitHub source "${this.id}" has no repo set; give source_params {"repo": "owner/name"} or configure one on the source`);
    return { repo, branch: (branchParam as string | undefined) ?? this.branch };
  }

  override check(path: string, params?: Readonly<Record<string, unknown>>): string {
    const checked = super.check(path, params);
    this.target(params, checked);
    return checked;
  }

  private repoPath(repo: string, rest: string): string {
    const [owner, name] = repo.split('/') as [string, string];
    return `/repos/${encodeURIComponent(owner)}/${encodeURIComponent(name)}${rest}`;
  }

  private async branchOf(target: Target, path: string, signal: AbortSignal | undefined): Promise<string> {
    if (target.branch !== undefined) return target.branch;
    const cached = this.defaultBranches.get(target.repo);
    if (cached && cached.until > Date.now()) return cached.branch;
    const body = (await this.json(under(this.api, this.repoPath(target.repo, '')), path, signal)) as { default_branch?: unknown };
    if (typeof body.default_branch !== 'string' || body.default_branch === '') throw this.http.badAnswer(path, 'the repository has no default_branch');
    this.defaultBranches.set(target.repo, { branch: body.default_branch, until: Date.now() + DEFAULT_BRANCH_TTL_MS });
    return body.default_branch;
  }

  /** The root tree sha of the branch's head commit. */
  private async rootTree(target: Target, path: string, signal: AbortSignal | undefined): Promise<string> {
    const branch = await this.branchOf(target, path, signal);
    const body = (await this.json(under(this.api, this.repoPath(target.repo, `/branches/${encodePath(branch)}`)), path, signal)) as { commit?: { commit?: { tree?: { sha?: unknown } } } };
    const sha = body.commit?.commit?.tree?.sha;
    if (typeof sha !== 'string' || !SHA.test(sha)) throw this.http.badAnswer(path, 'the branch answer has no tree sha');
    return sha;
  }

  private async tree(repo: string, sha: string, recursive: boolean, path: string, signal: AbortSignal | undefined): Promise<Tree> {
    const key = `${repo}:${sha}:${recursive ? 'r' : '1'}`;
    const cached = this.trees.get(key);
    if (cached) {
      this.trees.delete(key);
      this.trees.set(key, cached);
      return cached;
    }
    const url = under(this.api, this.repoPath(repo, `/git/trees/${sha}`), recursive ? { recursive: '1' } : {});
    const body = (await this.json(url, path, signal, MAX_TREE_BYTES)) as { sha?: unknown; tree?: unknown; truncated?: unknown };
    if (!Array.isArray(body.tree)) throw this.http.badAnswer(path, 'the tree answer has no entries');
    const entries = (body.tree as Partial<TreeEntry>[]).filter(
      (e): e is TreeEntry => typeof e.path === 'string' && typeof e.sha === 'string' && (e.type === 'blob' || e.type === 'tree' || e.type === 'commit'),
    );
    entries.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    const tree: Tree = { sha, entries, truncated: body.truncated === true };
    this.trees.set(key, tree);
    // Recursive trees of big repositories are large: few of them are kept.
    while (this.trees.size > TREE_CACHE || [...this.trees.keys()].filter((k) => k.endsWith(':r')).length > 2) {
      const oldest = [...this.trees.keys()].find((k) => k.endsWith(':r')) ?? this.trees.keys().next().value!;
      this.trees.delete(oldest);
    }
    return tree;
  }

  /** The tree sha of a folder ("" the root), descending from the root one level at a time. */
  private async folderTree(repo: string, root: string, folder: string, signal: AbortSignal | undefined): Promise<string> {
    let sha = root;
    const segments = folder.split('/').filter((s) => s !== '');
    for (const [index, segment] of segments.entries()) {
      const tree = await this.tree(repo, sha, false, folder, signal);
      const entry = tree.entries.find((e) => e.path === segment);
      if (!entry || entry.type !== 'tree') throw this.http.notFound(folder, `no folder "${segments.slice(0, index + 1).join('/')}/" in ${repo}`);
      sha = entry.sha;
    }
    return sha;
  }

  async list(options: RemoteListOptions): Promise<RemoteListPage> {
    const prefix = this.folderFor(options);
    const limit = this.listLimit(options.limit);
    const delimiter = this.checkDelimiter(options.delimiter, ['/', '']);
    const target = this.target(options.params, prefix);
    const folder = prefix.slice(0, prefix.lastIndexOf('/') + 1);
    let treeSha: string;
    let offset = 0;
    if (options.page_token) {
      const match = /^([0-9a-f]{40}(?:[0-9a-f]{24})?):(\d{1,9})$/.exec(options.page_token);
      if (!match) throw this.http.invalid(prefix, 'the page token is not one this source gave');
      treeSha = match[1]!;
      offset = Number(match[2]);
    } else {
      treeSha = await this.folderTree(target.repo, await this.rootTree(target, prefix, options.signal), folder, options.signal);
    }
    const tree = await this.tree(target.repo, treeSha, delimiter === '', prefix, options.signal);
    if (tree.truncated) throw this.http.failure('refused', prefix, `the folder has more entries than GitHub lists in one tree; list a sub-folder`);
    const entries = tree.entries.filter((e) => e.type !== 'commit' && (delimiter === '' ? e.type === 'blob' : true) && `${folder}${e.path}`.startsWith(prefix));
    const page = entries.slice(offset, offset + limit);
    const files: RemoteFile[] = [];
    const folders: RemoteFolder[] = [];
    for (const entry of page) {
      const path = `${folder}${entry.path}`;
      if (entry.type === 'tree') folders.push({ path: `${path}/`, name: baseName(path), is_empty: false });
      // Symbolic links (mode 120000) hold a target path, not content.
      else if (entry.mode !== '120000') files.push(fileOf(path, entry));
    }
    const next = offset + limit < entries.length ? `${tree.sha}:${offset + limit}` : undefined;
    return { files, folders, ...(next ? { next_page: next } : {}) };
  }

  /**
   * Every file under a folder: from its recursive tree, in path order; when GitHub truncates
   * that tree (a very large repository), depth first through the folder's trees one level at a
   * time instead, each level in name order, so the walk is complete and still stable.
   */
  override async *walk(folder: string, options: RemoteCallOptions & { maxFiles?: number } = {}): AsyncIterable<RemoteFile> {
    const start = this.check(folder, options.params);
    const target = this.target(options.params, start);
    const max = options.maxFiles ?? Number.POSITIVE_INFINITY;
    const base = start.slice(0, start.lastIndexOf('/') + 1);
    const root = await this.folderTree(target.repo, await this.rootTree(target, start, options.signal), base, options.signal);
    const full = await this.tree(target.repo, root, true, start, options.signal);
    let yielded = 0;
    if (!full.truncated) {
      for (const entry of full.entries) {
        const path = `${base}${entry.path}`;
        if (entry.type !== 'blob' || entry.mode === '120000' || !path.startsWith(start)) continue;
        if (yielded++ >= max) return;
        yield fileOf(path, entry);
      }
      return;
    }
    const pending: { sha: string; path: string }[] = [{ sha: root, path: base }];
    while (pending.length > 0) {
      const current = pending.shift()!;
      const tree = await this.tree(target.repo, current.sha, false, current.path, options.signal);
      const below: { sha: string; path: string }[] = [];
      for (const entry of tree.entries) {
        const path = `${current.path}${entry.path}`;
        if (entry.type === 'tree') {
          if (`${path}/`.startsWith(start) || start.startsWith(`${path}/`)) below.push({ sha: entry.sha, path: `${path}/` });
        } else if (entry.type === 'blob' && entry.mode !== '120000' && path.startsWith(start)) {
          if (yielded++ >= max) return;
          yield fileOf(path, entry);
        }
      }
      pending.unshift(...below);
    }
  }

  async download(path: string, options: RemoteCallOptions & { maxBytes: number }): Promise<RemoteDownload> {
    const file = this.check(path, options.params);
    if (file === '' || file.endsWith('/')) throw this.http.invalid(file, 'the path is a folder, not a file');
    const target = this.target(options.params, file);
    const ref = await this.branchOf(target, file, options.signal);
    const entry = (await this.json(under(this.api, this.repoPath(target.repo, `/contents/${encodePath(file)}`), { ref }), file, options.signal)) as {
      type?: unknown;
      size?: unknown;
      sha?: unknown;
    };
    if (Array.isArray(entry) || entry.type === 'dir') throw this.http.invalid(file, 'the path is a folder, not a file');
    if (entry.type !== 'file' || typeof entry.sha !== 'string' || !SHA.test(entry.sha)) throw this.http.invalid(file, `the path is a ${typeof entry.type === 'string' ? entry.type : 'thing'} GitHub cannot hand out as a file`);
    if (typeof entry.size === 'number' && entry.size > options.maxBytes) throw this.http.tooLarge(file, options.maxBytes, entry.size);
    const answer = await this.request(under(this.api, this.repoPath(target.repo, `/git/blobs/${entry.sha}`)), file, { maxBytes: options.maxBytes, signal: options.signal, accept: 'application/vnd.github.raw+json' });
    return { bytes: answer.body, version: entry.sha };
  }

  identity(path: string, params?: Readonly<Record<string, unknown>>): string {
    const checked = this.check(path, params);
    const target = this.target(params, checked);
    return `github:${target.repo}@${target.branch ?? 'HEAD'}:${checked}`;
  }

  describe(file: RemoteFile, params?: Readonly<Record<string, unknown>>): Record<string, unknown> {
    const target = this.target(params, file.path);
    const web = this.api.origin === 'https://api.github.com' ? `https://github.com/${target.repo}/blob/${encodePath(target.branch ?? 'HEAD')}/${encodePath(file.path)}` : undefined;
    return {
      source_type: 'github',
      source_config_id: this.id,
      source_config_name: this.name,
      github_repo: target.repo,
      ...(target.branch ? { github_branch: target.branch } : {}),
      github_path: file.path,
      ...(web ? { url: web } : {}),
      ...(file.version ? { version: file.version } : {}),
    };
  }
}

/**
 * A GitHub repository as `KNOWLEDGE_CONTENT_SOURCES` configures it: `repo`, `branch`, `path` (or
 * `prefix`), `api_url`, and `token_env` or an App (`app_id`, `installation_id`, and
 * `private_key_env` or `private_key_path`).
 */
export const GITHUB_KIND = defineRemoteSource({
  type: 'github',
  fromSettings: (e) => {
    const token = e.secret('token');
    const appId = e.numberOrText('app_id');
    const installationId = e.numberOrText('installation_id');
    const privateKey = e.secret('private_key') ?? e.file('private_key_path');
    const app = appId !== undefined || installationId !== undefined || privateKey !== undefined;
    if (app && (appId === undefined || installationId === undefined || privateKey === undefined)) {
      throw new ConfigurationError(`${e.where}: GitHub App auth needs app_id, installation_id and private_key_env (or private_key_path) together`);
    }
    const repo = e.text('repo');
    const branch = e.text('branch');
    const apiUrl = e.text('api_url');
    const folder = e.text('path');
    const base = e.base();
    if (folder !== undefined && base.prefix !== undefined) throw new ConfigurationError(`${e.where}: give prefix or path, not both`);
    return new GitHubSource({
      ...base,
      ...(folder !== undefined ? { prefix: folder } : {}),
      ...(repo ? { repo } : {}),
      ...(branch ? { branch } : {}),
      ...(apiUrl ? { apiUrl } : {}),
      ...(token ? { token } : {}),
      ...(app ? { app: { appId: appId!, installationId: installationId!, privateKey: privateKey! } } : {}),
    });
  },
});
