/**
 * The remote content source routes end to end, through a started runtime whose knowledge base
 * has S3 sources on s3rver (one whole bucket, one confined to a prefix, one with credentials
 * s3rver refuses): `/knowledge/config`'s remote_content_sources, `GET /knowledge/{id}/sources`
 * and the numbered pages of `GET .../sources/{source_id}/files` (tokens remembered, a cold jump
 * to a later page, past the end), the error answers, the scope, and the OpenAPI document.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigurationError } from '../src/errors.js';
import { Knowledge } from '../src/knowledge/knowledge.js';
import { remoteSourcesFromEnvironment } from '../src/knowledge/remote-sources/registry.js';
import { GitHubSource } from '../src/knowledge/remote-sources/github.js';
import { S3Source } from '../src/knowledge/remote-sources/s3.js';
import { SqliteVectorStore } from '../src/knowledge/vector-stores/sqlite/store.js';
import { sqliteTestDatabase } from './support/databases.js';
import { sendJson, startLoopback, type Loopback } from './support/fake-remote.js';
import { startFakeS3, S3_KEY, type FakeS3 } from './support/fake-s3.js';
import { call } from './support/http.js';
import { sign, signingKey, type SigningKey } from './support/jwt.js';
import { startRuntime, type StartedRuntime } from './support/runtime.js';

const BUCKET = 'garden-docs';
const WRONG_SECRET = 'wrong-secret-never-shown';
let dir: string;
let s3: FakeS3;
let store: SqliteVectorStore;
let rt: StartedRuntime;
let key: SigningKey;
/** A small GitHub API: two repositories with a branch each, as trees. */
let github: Loopback;
const TREES: Record<string, { path: string; type: 'blob' | 'tree'; mode: string; sha: string; size?: number }[]> = {
  ['a'.repeat(40)]: [
    { path: 'guide', type: 'tree', mode: '040000', sha: 'b'.repeat(40) },
    { path: 'README.md', type: 'blob', mode: '100644', sha: 'c'.repeat(40), size: 12 },
  ],
  ['d'.repeat(40)]: [{ path: 'CHANGELOG.md', type: 'blob', mode: '100644', sha: 'e'.repeat(40), size: 30 }],
};

function s3Sources(endpoint: string) {
  const credentials = { accessKeyId: S3_KEY, secretAccessKey: S3_KEY };
  return [
    new S3Source({ id: 'garden', name: 'Garden bucket', bucket: BUCKET, endpoint, credentials, metadata: { team: 'docs' } }),
    new S3Source({ id: 'notes', bucket: BUCKET, endpoint, credentials, prefix: 'notes' }),
    new S3Source({ id: 'locked', bucket: BUCKET, endpoint, credentials: { accessKeyId: 'NOTAKEY99', secretAccessKey: WRONG_SECRET } }),
  ];
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'svc-remote-sources-'));
  const objects: Record<string, { body: string; type: string }> = { 'readme.md': { body: '# hi', type: 'text/markdown' } };
  for (let i = 1; i <= 7; i++) objects[`notes/n${i}.md`] = { body: `note ${i}`, type: 'text/markdown' };
  objects['notes/archive/old.md'] = { body: 'old', type: 'text/markdown' };
  s3 = await startFakeS3(BUCKET, objects);
  github = await startLoopback((request, response) => {
    if (request.path.startsWith('/repos/garden/busy/')) return sendJson(response, 429, { message: 'You have exceeded a secondary rate limit.' }, { 'retry-after': '120' });
    const branch = /^\/repos\/garden\/(handbook|tools)\/branches\/(main|next)$/.exec(request.path);
    if (branch) return sendJson(response, 200, { name: branch[2], commit: { sha: 'f'.repeat(40), commit: { tree: { sha: (branch[1] === 'handbook' ? 'a' : 'd').repeat(40) } } } });
    const tree = /^\/repos\/garden\/(?:handbook|tools)\/git\/trees\/([0-9a-f]{40})$/.exec(request.path);
    if (tree && TREES[tree[1]!]) return sendJson(response, 200, { sha: tree[1], tree: TREES[tree[1]!], truncated: false });
    sendJson(response, 404, { message: 'Not Found' });
  });
  store = new SqliteVectorStore({ path: join(dir, 'knowledge.db'), id: 'kb-store', name: 'SQLite' });
  const repos = new GitHubSource({ id: 'repos', repo: 'garden/handbook', branch: 'main', token: 'ghp_e2e_token', apiUrl: github.url });
  const knowledge = new Knowledge({ id: 'kb', store, contentSources: [...s3Sources(s3.endpoint), repos] });
  key = await signingKey('RS256', 'k');
  rt = await startRuntime(sqliteTestDatabase, { knowledge: [knowledge], authorization: true, authorization_config: { verification_keys: [key.publicPem], audience: 'kn' } });
});

afterAll(async () => {
  await rt?.stop();
  await store?.close();
  await s3?.close();
  await github?.close();
  rmSync(dir, { recursive: true, force: true });
});

const reader = () => sign(key, { claims: { aud: 'kn', scopes: ['knowledge:read'] } });
const get = async (path: string) => call(rt.url, 'GET', path, { token: await reader() });
const page = async (n: number, limit = 3) => (await get(`/knowledge/kb/sources/notes/files?limit=${limit}&page=${n}`)).body;

describe('remote content source routes', () => {
  it('lists the sources in /knowledge/config and GET /knowledge/{id}/sources', async () => {
    const config = await get('/knowledge/config');
    expect(config.status).toBe(200);
    expect(config.body.remote_content_sources).toEqual([
      { id: 'garden', name: 'Garden bucket', type: 's3', metadata: { team: 'docs' }, prefix: null },
      { id: 'notes', name: 'notes', type: 's3', metadata: null, prefix: 'notes/' },
      { id: 'locked', name: 'locked', type: 's3', metadata: null, prefix: null },
      { id: 'repos', name: 'repos', type: 'github', metadata: null, prefix: null },
    ]);
    const sources = await get('/knowledge/kb/sources');
    expect(sources.status).toBe(200);
    expect(sources.body).toEqual(config.body.remote_content_sources);
    expect((await get('/knowledge/nope/sources')).status).toBe(404);
  });

  it('needs knowledge:read', async () => {
    expect((await call(rt.url, 'GET', '/knowledge/kb/sources')).status).toBe(401);
    const other = await sign(key, { claims: { aud: 'kn', scopes: ['agents:read'] } });
    expect((await call(rt.url, 'GET', '/knowledge/kb/sources/garden/files', { token: other })).status).toBe(403);
  });

  it('shows one level of a folder with files and sub-folders', async () => {
    const res = await get('/knowledge/kb/sources/garden/files');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ source_id: 'garden', source_name: 'Garden bucket', prefix: '', folders: [{ prefix: 'notes/', name: 'notes', is_empty: false }] });
    expect(res.body.files).toEqual([
      { key: 'readme.md', name: 'readme.md', size: 4, last_modified: expect.stringMatching(/^\d{4}-\d\d-\d\dT/), content_type: 'text/markdown', version: expect.stringMatching(/^[0-9a-f]{32}$/) },
    ]);
    expect(res.body.meta).toMatchObject({ page: 1, limit: 100, total_pages: 1, total_count: 2 });
  });

  it('numbers pages over the provider tokens: in order, a cold jump, and past the end', async () => {
    const first = await page(1);
    expect(first.prefix).toBe('notes/');
    // s3rver counts only keys toward max-keys (S3 counts common prefixes too): 3 files a page.
    expect(first.folders.map((f: { prefix: string }) => f.prefix)).toEqual(['notes/archive/']);
    expect(first.files.map((f: { key: string }) => f.key)).toEqual(['notes/n1.md', 'notes/n2.md', 'notes/n3.md']);
    expect(first.meta).toMatchObject({ page: 1, limit: 3, total_pages: 2, total_count: 4 });
    const second = await page(2);
    expect(second.files.map((f: { key: string }) => f.key)).toEqual(['notes/n4.md', 'notes/n5.md', 'notes/n6.md']);
    expect(second.meta).toMatchObject({ page: 2, total_pages: 3 });
    const third = await page(3);
    expect(third.files.map((f: { key: string }) => f.key)).toEqual(['notes/n7.md']);
    expect(third.meta).toMatchObject({ page: 3, total_pages: 3, total_count: 7 });
    // Another page size: no token known, so page 3 is reached by walking pages 1 and 2.
    const cold = await page(3, 2);
    expect(cold.files.map((f: { key: string }) => f.key)).toEqual(['notes/n5.md', 'notes/n6.md']);
    expect(cold.meta.total_pages).toBe(4);
    const past = await page(9);
    expect(past.files).toEqual([]);
    expect(past.folders).toEqual([]);
    expect(past.meta).toMatchObject({ page: 9, total_pages: 3, total_count: 7 });
  });

  it('lists a whole tree flat with an empty delimiter', async () => {
    const res = await get('/knowledge/kb/sources/garden/files?delimiter=&prefix=notes/archive/');
    expect(res.body.files.map((f: { key: string }) => f.key)).toEqual(['notes/archive/old.md']);
    expect(res.body.folders).toEqual([]);
  });

  it('passes source_params to a GitHub source: another repository and branch', async () => {
    const own = await get('/knowledge/kb/sources/repos/files');
    expect(own.status).toBe(200);
    expect(own.body.folders).toEqual([{ prefix: 'guide/', name: 'guide', is_empty: false }]);
    expect(own.body.files).toEqual([{ key: 'README.md', name: 'README.md', size: 12, last_modified: null, content_type: 'text/markdown', version: 'c'.repeat(40) }]);
    github.seen.length = 0;
    const other = await get(`/knowledge/kb/sources/repos/files?source_params=${encodeURIComponent(JSON.stringify({ repo: 'garden/tools', branch: 'next' }))}`);
    expect(other.body.files.map((f: { key: string }) => f.key)).toEqual(['CHANGELOG.md']);
    expect(github.seen.map((r) => r.path)).toEqual(['/repos/garden/tools/branches/next', `/repos/garden/tools/git/trees/${'d'.repeat(40)}`]);
    expect(github.seen[0]!.headers.authorization).toBe('Bearer ghp_e2e_token');
    const bad = await get(`/knowledge/kb/sources/repos/files?source_params=${encodeURIComponent(JSON.stringify({ repo: 'garden/tools', tag: 'v1' }))}`);
    expect([bad.status, bad.body.detail]).toEqual([400, expect.stringContaining("unknown source_params 'tag'")]);
    const busy = await get(`/knowledge/kb/sources/repos/files?source_params=${encodeURIComponent(JSON.stringify({ repo: 'garden/busy' }))}`);
    expect([busy.status, busy.headers.get('retry-after'), busy.body.error_code]).toEqual([503, '120', 'SERVICE_UNAVAILABLE']);
    expect(busy.body.detail).toContain('secondary rate limit');
    const missing = await get(`/knowledge/kb/sources/repos/files?source_params=${encodeURIComponent(JSON.stringify({ repo: 'garden/gone' }))}`);
    expect(missing.status).toBe(404);
    expect(JSON.stringify(missing.body)).not.toContain('ghp_e2e_token');
  });

  it('answers clear 4xx errors, never a 500, and no secret', async () => {
    const unknown = await get('/knowledge/kb/sources/missing/files');
    expect([unknown.status, unknown.body.detail]).toEqual([404, 'Content source not found: missing']);
    const outside = await get('/knowledge/kb/sources/notes/files?prefix=readme.md');
    expect(outside.status).toBe(400);
    expect(outside.body.detail).toContain('outside the source\'s prefix "notes/"');
    const params = await get(`/knowledge/kb/sources/garden/files?source_params=${encodeURIComponent('{"repo":"a/b"}')}`);
    expect([params.status, params.body.detail]).toEqual([400, expect.stringContaining("source type 's3' does not accept source_params")]);
    const badJson = await get('/knowledge/kb/sources/garden/files?source_params=%7Bnope');
    expect([badJson.status, badJson.body.detail]).toEqual([400, 'source_params must be a valid JSON object']);
    for (const query of ['limit=0', 'limit=1001', 'page=0', 'limit=abc']) {
      const res = await get(`/knowledge/kb/sources/garden/files?${query}`);
      expect(res.status, query).toBeGreaterThanOrEqual(400);
      expect(res.status, query).toBeLessThan(500);
    }
    const locked = await get('/knowledge/kb/sources/locked/files');
    expect(locked.status).toBe(403);
    expect(locked.body.detail).toContain('Remote source "locked" (s3)');
    expect(JSON.stringify(locked.body)).not.toContain(WRONG_SECRET);
  });

  it('documents both routes in the OpenAPI document', async () => {
    const doc = (await get('/openapi.json')).body as { paths: Record<string, Record<string, { operationId?: string; parameters?: { name: string }[] }>> };
    expect(doc.paths['/knowledge/{knowledge_id}/sources']?.get?.operationId).toBe('listKnowledgeContentSources');
    const files = doc.paths['/knowledge/{knowledge_id}/sources/{source_id}/files']?.get;
    expect(files?.operationId).toBe('listKnowledgeSourceFiles');
    expect(files?.parameters?.map((p) => p.name)).toEqual(expect.arrayContaining(['knowledge_id', 'source_id', 'prefix', 'limit', 'page', 'delimiter']));
  });
});

describe('configuring sources', () => {
  it('refuses two sources with one id on a knowledge base', () => {
    const sources = s3Sources('http://127.0.0.1:9');
    expect(() => new Knowledge({ id: 'dup', store, contentSources: [sources[0]!, new S3Source({ id: 'garden', bucket: BUCKET, credentials: { accessKeyId: 'a', secretAccessKey: 'b' } })] })).toThrow(
      'Knowledge "dup": two content sources have the id "garden"',
    );
    expect(() => new Knowledge({ id: 'bad', store, contentSources: [{ id: 'x' } as never] })).toThrow(ConfigurationError);
    expect(new Knowledge({ id: 'ok', store, contentSources: sources }).contentSource('notes')?.prefix).toBe('notes/');
  });

  it('reads KNOWLEDGE_CONTENT_SOURCES as JSON or a file, secrets from the variables it names', () => {
    const entries = [{ id: 'docs', type: 's3', bucket: BUCKET, endpoint: s3.endpoint, prefix: 'notes/', metadata: { a: 1 }, access_key_id_env: 'DOCS_KEY', secret_access_key_env: 'DOCS_SECRET' }];
    const env = { DOCS_KEY: S3_KEY, DOCS_SECRET: S3_KEY, KNOWLEDGE_CONTENT_SOURCES: JSON.stringify(entries) };
    const [fromJson] = remoteSourcesFromEnvironment(env);
    expect(fromJson).toMatchObject({ id: 'docs', type: 's3', prefix: 'notes/', metadata: { a: 1 } });
    const file = join(dir, 'sources.json');
    writeFileSync(file, JSON.stringify(entries));
    expect(remoteSourcesFromEnvironment({ ...env, KNOWLEDGE_CONTENT_SOURCES: file })[0]?.id).toBe('docs');
    expect(remoteSourcesFromEnvironment({})).toEqual([]);
  });
});
