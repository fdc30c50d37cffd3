/**
 * POST /knowledge/remote-content end to end, on SQLite and PostgreSQL, through a started runtime
 * whose knowledge base has one source of each kind on a loopback server speaking that provider's
 * wire format: S3 on s3rver (behind a recording proxy), and the GCS JSON API, Azure Blob REST,
 * Microsoft Graph and GitHub REST fakes of test/support. For every kind: a folder (nested, over
 * several listing pages) becomes one parent record with a completed child per file, each found by
 * search with its provider details under meta_data.remote; a single file is one record; an
 * unreadable file fails only its own child; a refresh downloads only what changed, reads a new
 * file and drops a deleted one. Then GitHub's source_params (from a form), a source's root, the
 * upload's name, metadata, reader and chunk settings reaching children and chunks, the refusals
 * (clear 4xx, nothing recorded), provider failures ending the record `failed` with a message
 * naming source and path and no credential, the write modes, and a single file deleted at the
 * source. No response ever carries a secret.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AzureBlobSource } from '../src/knowledge/remote-sources/azure-blob.js';
import { GcsSource } from '../src/knowledge/remote-sources/gcs.js';
import { GitHubSource } from '../src/knowledge/remote-sources/github.js';
import type { RemoteSource, RemoteSourceType } from '../src/knowledge/remote-sources/remote-source.js';
import { S3Source } from '../src/knowledge/remote-sources/s3.js';
import { SharePointSource } from '../src/knowledge/remote-sources/sharepoint.js';
import { testKnowledge } from './support/components.js';
import { testDatabaseKinds, type TestDatabase } from './support/databases.js';
import { eventually } from './support/eventually.js';
import { startFakeAzureBlob, type FakeAzureBlob } from './support/fake-azure-blob.js';
import { startFakeEmbeddings, type FakeEmbeddings } from './support/fake-embeddings.js';
import { startFakeGcs, type FakeGcs } from './support/fake-gcs.js';
import { startFakeGitHub, type FakeGitHub } from './support/fake-github.js';
import { forward, startLoopback, type Loopback } from './support/fake-remote.js';
import { startFakeS3, S3_KEY, type FakeS3 } from './support/fake-s3.js';
import { startFakeSharePoint, type FakeSharePoint } from './support/fake-sharepoint.js';
import { call, type Reply } from './support/http.js';
import { upload } from './support/knowledge-content.js';
import { startRuntimeOn, type StartedRuntime } from './support/runtime.js';

type Json = Record<string, any>;

const BUCKET = 'field-library';
const GCS_TOKEN = 'ya29.e2e-static-token-value';
const GCS_REVOKED = 'ya29.revoked-token-value';
const SAS_SIG = 'c2FzLXNpZ25hdHVyZS1lMmUtdmFsdWU=';
const SAS_WRONG = 'd3Jvbmctc2lnbmF0dXJlLXZhbHVl';
const SP_SECRET = 'sp~e2e~client~secret';
const SP_WRONG = 'sp~wrong~client~secret';
const SP_TEMPAUTH = 'tempauth-e2e-secret-value';
const GITHUB_PAT = 'ghp_e2eRemoteContentToken42';
const S3_WRONG = 'wrong-s3-secret-never-shown';
/** Every credential a source holds or a fake issues: no response may contain one. */
const SECRETS = [GCS_TOKEN, GCS_REVOKED, SAS_SIG, encodeURIComponent(SAS_SIG), SAS_WRONG, SP_SECRET, SP_WRONG, SP_TEMPAUTH, GITHUB_PAT, S3_WRONG, 'eyJ.graph-token-', 'ya29.token-'];

/** One word per kind, so the phrases of the five copies of the files are told apart by search. */
const COLOR: Record<RemoteSourceType, string> = { s3: 'amber', gcs: 'cobalt', azureblob: 'cerulean', sharepoint: 'saffron', github: 'viridian' };

/** The same tree in every source; `${c}` makes each phrase unique to one file of one kind. */
function files(c: string): Record<string, string> {
  return {
    'library/alpha.md': `# Alpha\n\nThe ${c}otter survey covers the north bank.\n`,
    'library/zeta.txt': `Zeta keeps the ${c}lantern log by the boathouse.`,
    'library/nested/beta.md': `# Beta\n\nBeta counts ${c}heron nests along the bend.\n`,
    'library/nested/deeper/gamma.txt': `Gamma minds the ${c}willow sluice diary.`,
    'mixed/good.md': `# Good\n\nThe ${c}kingfisher report reads fine.\n`,
    'mixed/broken.json': '{"levels": [1, 2',
    'single/solo.md': `# Solo\n\nOne ${c}solitaire file on its own.\n`,
    'fresh/a.md': `# A\n\nFirst ${c}acorn entry.\n`,
    'fresh/b.md': `# B\n\nSecond ${c}bramble entry.\n`,
    'fresh/c.md': `# C\n\nThird ${c}clover entry.\n`,
  };
}
const LIBRARY = ['library/alpha.md', 'library/nested/beta.md', 'library/nested/deeper/gamma.txt', 'library/zeta.txt'];
const PHRASE: Record<string, string> = {
  'library/alpha.md': 'otter',
  'library/zeta.txt': 'lantern',
  'library/nested/beta.md': 'heron',
  'library/nested/deeper/gamma.txt': 'willow',
};

/** A SAS token (the query string) with this signature. */
const sas = (sig: string) => `?sv=2023-11-03&ss=b&srt=co&sp=rl&se=2030-01-01T00:00:00Z&sig=${encodeURIComponent(sig)}`;

const typeOf = (path: string) => (path.endsWith('.md') ? 'text/markdown' : path.endsWith('.json') ? 'application/json' : 'text/plain');

/** What the test needs of each kind's fake: changing its files and what it served. */
interface Place {
  type: RemoteSourceType;
  id: string;
  color: string;
  put(path: string, text: string): Promise<void>;
  remove(path: string): Promise<void>;
  /** Paths whose bytes the fake has served so far. */
  served(): string[];
}

for (const kind of testDatabaseKinds) {
  describe.skipIf(!kind.available)(`POST /knowledge/remote-content on ${kind.kind}`, () => {
    let embeddings: FakeEmbeddings;
    let s3: FakeS3;
    /** In front of s3rver, so the S3 requests are recorded. */
    let s3Proxy: Loopback;
    let gcs: FakeGcs;
    let azure: FakeAzureBlob;
    let sharepoint: FakeSharePoint;
    let github: FakeGitHub;
    let database: TestDatabase;
    let dir: string;
    let rt: StartedRuntime;
    let places: Place[];
    /** Every response body, checked for secrets at the end. */
    const answers: string[] = [];

    const api = async (method: string, path: string, body?: unknown): Promise<Reply> => {
      const res = await call(rt.url, method, path, body === undefined ? {} : { body });
      answers.push(typeof res.body === 'string' ? res.body : JSON.stringify(res.body));
      return res;
    };
    const post = (body: Json) => api('POST', '/knowledge/remote-content', body);
    const settle = async (id: string): Promise<Json> =>
      eventually(async () => {
        const res = await api('GET', `/knowledge/content/${id}/status`);
        expect(res.status).toBe(200);
        return res.body.status === 'processing' ? undefined : (res.body as Json);
      }, 30_000, `content ${id} to settle`);
    const ingest = async (body: Json): Promise<{ id: string; status: Json; record: Json }> => {
      const res = await post(body);
      expect(res.status, JSON.stringify(res.body)).toBe(202);
      expect(res.body.status).toBe('processing');
      const status = await settle(res.body.id);
      return { id: res.body.id, status, record: (await api('GET', `/knowledge/content/${res.body.id}`)).body };
    };
    const childrenOf = async (parentId: string): Promise<Json[]> => {
      const res = await api('GET', `/knowledge/content?parent_id=${parentId}&limit=100`);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return (res.body.data as Json[]).toSorted((a, b) => (a.source < b.source ? -1 : 1));
    };
    const search = async (query: string): Promise<Json[]> => {
      const res = await api('POST', '/knowledge/search', { query, search_type: 'keyword', max_results: 100, meta: { limit: 100 } });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res.body.data as Json[];
    };
    const topLevel = async (): Promise<Json[]> => (await api('GET', '/knowledge/content?limit=100')).body.data as Json[];
    const place = (type: RemoteSourceType) => places.find((p) => p.type === type)!;
    /** Listing requests for a page after the first, per kind (for GitHub: recursive tree reads). */
    const laterPages: Record<RemoteSourceType, () => number> = {
      s3: () => s3Proxy.seen.filter((r) => r.query.get('list-type') === '2' && r.query.has('continuation-token')).length,
      gcs: () => gcs.seen.filter((r) => r.path.endsWith('/o') && r.query.has('pageToken')).length,
      azureblob: () => azure.seen.filter((r) => r.query.get('comp') === 'list' && r.query.get('marker')).length,
      sharepoint: () => sharepoint.seen.filter((r) => r.path.endsWith('/children') && r.query.has('$skiptoken')).length,
      github: () => github.seen.filter((r) => r.path.includes('/git/trees/') && r.query.get('recursive') === '1').length,
    };

    beforeAll(async () => {
      embeddings = await startFakeEmbeddings();
      const tree = (type: RemoteSourceType) => files(COLOR[type]);
      s3 = await startFakeS3(BUCKET, Object.fromEntries(Object.entries(tree('s3')).map(([path, body]) => [path, { body, type: typeOf(path) }])));
      s3Proxy = await startLoopback((request, response) => forward(s3.endpoint, request, response));
      gcs = await startFakeGcs({ bucket: BUCKET, objects: Object.fromEntries(Object.entries(tree('gcs')).map(([path, body]) => [path, { body, type: typeOf(path) }])) });
      gcs.valid.add(GCS_TOKEN);
      azure = await startFakeAzureBlob({
        account: 'fieldaccount',
        container: 'library',
        sig: SAS_SIG,
        blobs: Object.fromEntries(Object.entries(tree('azureblob')).map(([path, body]) => [path, { body, type: typeOf(path) }])),
      });
      sharepoint = await startFakeSharePoint({
        tenantId: 'field.onmicrosoft.com',
        clientId: 'field-client',
        clientSecret: SP_SECRET,
        hostname: 'field.sharepoint.com',
        sitePath: '/sites/library',
        siteId: 'field.sharepoint.com,aaaa,bbbb',
        driveId: 'b!field-drive',
        tempauth: SP_TEMPAUTH,
        items: tree('sharepoint'),
      });
      github = await startFakeGitHub({ repo: 'field/library', token: GITHUB_PAT, branches: { main: tree('github'), dev: { 'docs/dev-only.md': '# Dev\n\nThe viridiandevbranch note.\n' } } });

      const sp = (id: string, secret: string) =>
        new SharePointSource({ id, tenantId: 'field.onmicrosoft.com', clientId: 'field-client', clientSecret: secret, hostname: 'field.sharepoint.com', sitePath: '/sites/library', graphUrl: sharepoint.graphUrl, authorityHost: sharepoint.url, pageSize: 2 });
      const sources: RemoteSource[] = [
        new S3Source({ id: 's3-docs', bucket: BUCKET, endpoint: s3Proxy.url, credentials: { accessKeyId: S3_KEY, secretAccessKey: S3_KEY }, pageSize: 2 }),
        new GcsSource({ id: 'gcs-docs', bucket: BUCKET, endpoint: gcs.url, accessToken: GCS_TOKEN, pageSize: 2 }),
        new AzureBlobSource({ id: 'azure-docs', account: 'fieldaccount', container: 'library', endpoint: azure.endpoint, sasToken: sas(SAS_SIG), pageSize: 2 }),
        sp('sharepoint-docs', SP_SECRET),
        new GitHubSource({ id: 'github-docs', repo: 'field/library', token: GITHUB_PAT, apiUrl: github.apiUrl, pageSize: 2 }),
        // For the refusals and failures.
        new S3Source({ id: 's3-confined', bucket: BUCKET, endpoint: s3Proxy.url, credentials: { accessKeyId: S3_KEY, secretAccessKey: S3_KEY }, prefix: 'library/' }),
        new S3Source({ id: 's3-locked', bucket: BUCKET, endpoint: s3Proxy.url, credentials: { accessKeyId: 'NOTAKEY99', secretAccessKey: S3_WRONG } }),
        new GcsSource({ id: 'gcs-revoked', bucket: BUCKET, endpoint: gcs.url, accessToken: GCS_REVOKED }),
        new AzureBlobSource({ id: 'azure-badsig', account: 'fieldaccount', container: 'library', endpoint: azure.endpoint, sasToken: sas(SAS_WRONG) }),
        sp('sharepoint-wrong', SP_WRONG),
      ];
      const s3Served = () =>
        s3Proxy.seen.filter((r) => r.method === 'GET' && r.path.startsWith(`/${BUCKET}/`) && !r.query.has('list-type')).map((r) => decodeURIComponent(r.path.slice(BUCKET.length + 2)));
      places = [
        { type: 's3', id: 's3-docs', color: COLOR.s3, put: (p, t) => s3.put(p, t, typeOf(p)), remove: (p) => s3.remove(p), served: s3Served },
        { type: 'gcs', id: 'gcs-docs', color: COLOR.gcs, put: async (p, t) => gcs.put(p, t, typeOf(p)), remove: async (p) => gcs.remove(p), served: () => gcs.served },
        { type: 'azureblob', id: 'azure-docs', color: COLOR.azureblob, put: async (p, t) => azure.put(p, t, typeOf(p)), remove: async (p) => azure.remove(p), served: () => azure.served },
        { type: 'sharepoint', id: 'sharepoint-docs', color: COLOR.sharepoint, put: async (p, t) => sharepoint.put(p, t), remove: async (p) => sharepoint.remove(p), served: () => sharepoint.served },
        { type: 'github', id: 'github-docs', color: COLOR.github, put: async (p, t) => github.put(p, t), remove: async (p) => github.remove(p), served: () => github.served },
      ];

      database = await kind.create();
      dir = mkdtempSync(join(tmpdir(), 'svc-krc-'));
      const knowledge = testKnowledge(embeddings.url, kind.kind === 'sqlite' ? join(dir, 'knowledge.db') : undefined, database.url, { contentSources: sources });
      rt = await startRuntimeOn(database, { knowledge: [knowledge] });
    });
    afterAll(async () => {
      await rt?.stop();
      await s3Proxy?.close();
      await s3?.close();
      await gcs?.close();
      await azure?.close();
      await sharepoint?.close();
      await github?.close();
      await embeddings?.close();
      await database?.cleanup();
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    for (const type of Object.keys(COLOR) as RemoteSourceType[]) {
      describe(`a ${type} source`, () => {
        it('ingests a folder, nested and over several listing pages, as one parent with a completed, searchable child per file', async () => {
          const { id, color } = place(type);
          const pagesBefore = laterPages[type]();
          const { id: parentId, status, record } = await ingest({ config_id: id, path: 'library/' });
          expect(status).toEqual({ id: parentId, status: 'completed', status_message: 'completed: 4 item(s): 4 read' });
          expect(record).toMatchObject({ name: 'library/', type, parent_id: null, status: 'completed', children: { processing: 0, completed: 4, failed: 0 } });
          const children = await childrenOf(parentId);
          expect(children.map((c) => [c.source, c.name, c.status, c.parent_id])).toEqual(LIBRARY.map((path) => [path, path, 'completed', parentId]));
          for (const child of children) {
            expect(child.content_hash).toMatch(/^[0-9a-f]{64}$/);
            expect(child.chunks).toBeGreaterThanOrEqual(1);
          }
          expect(record.chunks).toBe(children.reduce((n, c) => n + (c.chunks as number), 0));
          for (const child of children) {
            const hits = await search(`${color}${PHRASE[child.source]}`);
            expect(hits.map((h) => h.content_id), child.source).toEqual([child.id]);
            expect(hits[0]!.meta_data.remote).toMatchObject({ source_id: id, source_type: type, path: child.source, source_config_id: id });
          }
          // The walk went over more than one page of the provider's listing (GitHub's git trees do
          // not page: the folder came from one recursive tree).
          expect(laterPages[type]() - pagesBefore, type).toBeGreaterThanOrEqual(1);
        });

        it('ingests a single file as one completed record found by search', async () => {
          const { id, color } = place(type);
          const { id: recordId, status, record } = await ingest({ config_id: id, path: 'single/solo.md' });
          expect(status).toEqual({ id: recordId, status: 'completed', status_message: null });
          expect(record).toMatchObject({ name: 'single/solo.md', parent_id: null, status: 'completed', content_hash: expect.stringMatching(/^[0-9a-f]{64}$/), chunks: 1 });
          expect(record.children).toBeUndefined();
          expect((await childrenOf(recordId)).length).toBe(0);
          const hits = await search(`${color}solitaire`);
          expect(hits.map((h) => h.content_id)).toEqual([recordId]);
          expect(hits[0]!.meta_data.remote).toMatchObject({ source_id: id, source_type: type, path: 'single/solo.md' });
        });

        it('fails only the child a reader cannot read; its sibling stays searchable', async () => {
          const { id, color } = place(type);
          const { id: parentId, status, record } = await ingest({ config_id: id, path: 'mixed/' });
          expect(status).toEqual({ id: parentId, status: 'completed', status_message: 'completed: 2 item(s): 1 read, 1 failed' });
          expect(record.children).toEqual({ processing: 0, completed: 1, failed: 1 });
          const [broken, good] = await childrenOf(parentId);
          expect(broken).toMatchObject({ source: 'mixed/broken.json', status: 'failed', content_hash: null, chunks: null, parent_id: parentId });
          expect(broken!.status_message).toContain('mixed/broken.json');
          expect(good).toMatchObject({ source: 'mixed/good.md', status: 'completed', parent_id: parentId });
          expect((await search(`${color}kingfisher`)).map((h) => h.content_id)).toEqual([good!.id]);
        });

        it('a refresh downloads only what changed, reads a new file and drops a deleted one', async () => {
          const p = place(type);
          const c = p.color;
          const first = await ingest({ config_id: p.id, path: 'fresh/' });
          expect(first.status.status_message).toBe('completed: 3 item(s): 3 read');
          const before = await childrenOf(first.id);
          await p.put('fresh/a.md', `# A\n\nFirst ${c}aspen entry, rewritten.\n`);
          await p.remove('fresh/c.md');
          await p.put('fresh/d.md', `# D\n\nFourth ${c}dogwood entry.\n`);
          const servedFrom = p.served().length;
          const embeddedFrom = embeddings.requests.length;

          const again = await ingest({ config_id: p.id, path: 'fresh/' });
          expect(again.id).toBe(first.id);
          expect(again.status.status_message).toBe('completed: 3 item(s): 2 read, 1 unchanged');
          const after = await childrenOf(first.id);
          expect(after.map((x) => [x.source, x.status])).toEqual([
            ['fresh/a.md', 'completed'],
            ['fresh/b.md', 'completed'],
            ['fresh/d.md', 'completed'],
          ]);
          // The unchanged file was not downloaded again, and its record is as it was.
          expect([...new Set(p.served().slice(servedFrom))].toSorted()).toEqual(['fresh/a.md', 'fresh/d.md']);
          expect(after[1]).toEqual(before[1]);
          expect(after[0]!.content_hash).not.toBe(before[0]!.content_hash);
          const embedded = embeddings.requests
            .slice(embeddedFrom)
            .flatMap((r) => (r.body as { input: string | string[] }).input)
            .join('\n');
          expect(embedded).toContain(`${c}aspen`);
          expect(embedded).toContain(`${c}dogwood`);
          expect(embedded).not.toContain(`${c}bramble`);
          // Search sees the new version, the new file, and nothing of the deleted one.
          expect(await search(`${c}acorn`)).toEqual([]);
          expect((await search(`${c}aspen`)).map((h) => h.content_id)).toEqual([after[0]!.id]);
          expect((await search(`${c}bramble`)).map((h) => h.content_id)).toEqual([after[1]!.id]);
          expect(await search(`${c}clover`)).toEqual([]);
          expect((await search(`${c}dogwood`)).map((h) => h.content_id)).toEqual([after[2]!.id]);
          expect((await api('GET', `/knowledge/content/${before[2]!.id}`)).status).toBe(404);
        });
      });
    }

    it('passes source_params to a GitHub source: a folder of another branch, sent as a multipart form', async () => {
      const res = await upload(rt.url, '/knowledge/remote-content', { config_id: 'github-docs', path: 'docs/', source_params: JSON.stringify({ branch: 'dev' }) });
      answers.push(JSON.stringify(res.body));
      expect([res.status, res.body.status], JSON.stringify(res.body)).toEqual([202, 'processing']);
      const id = res.body.id as string;
      const status = await settle(id);
      expect(status.status_message).toBe('completed: 1 item(s): 1 read');
      const [child] = await childrenOf(id);
      const hits = await search('viridiandevbranch');
      expect(hits.map((h) => h.content_id)).toEqual([child!.id]);
      expect(hits[0]!.meta_data.remote).toMatchObject({ source_id: 'github-docs', source_type: 'github', path: 'docs/dev-only.md', github_branch: 'dev', github_repo: 'field/library' });
    });

    it('ingests the whole source for the path "/": its root, or its prefix when it has one', async () => {
      const all = await ingest({ config_id: 'gcs-docs', path: '/' });
      const n = gcs.objects.size;
      expect(all.record).toMatchObject({ name: '/', type: 'gcs', children: { processing: 0, completed: n - 1, failed: 1 } });
      expect(all.status.status_message).toBe(`completed: ${n} item(s): ${n - 1} read, 1 failed`);
      expect((await childrenOf(all.id)).map((c) => c.source)).toEqual([...gcs.objects.keys()].toSorted());
      const confined = await ingest({ config_id: 's3-confined', path: '/' });
      expect(confined.record).toMatchObject({ name: 'library/', type: 's3', children: { processing: 0, completed: 4, failed: 0 } });
      expect((await childrenOf(confined.id)).map((c) => c.source)).toEqual(LIBRARY);
    });

    it("a folder's name, description, metadata, reader and chunker settings reach its children and their chunks", async () => {
      const res = await post({
        config_id: 'azure-docs',
        path: 'mixed/',
        name: 'Mixed notes',
        description: 'River notes',
        metadata: { team: 'river' },
        reader_id: 'text',
        chunker: 'FixedSizeChunker',
        chunk_size: 20,
        chunk_overlap: 0,
      });
      expect(res.status, JSON.stringify(res.body)).toBe(202);
      expect(res.body).toMatchObject({ name: 'Mixed notes', description: 'River notes', metadata: { team: 'river' }, status: 'processing' });
      const status = await settle(res.body.id);
      // The text reader reads the broken JSON as text.
      expect(status.status_message).toBe('completed: 2 item(s): 2 read');
      const record = (await api('GET', `/knowledge/content/${res.body.id}`)).body;
      expect(record).toMatchObject({ name: 'Mixed notes', description: 'River notes', metadata: { team: 'river' }, reader_id: 'text', chunker: 'FixedSizeChunker', type: 'azureblob' });
      const children = await childrenOf(res.body.id);
      expect(children.map((c) => [c.name, c.source, c.status, c.metadata, c.chunker])).toEqual([
        ['Mixed notes/broken.json', 'mixed/broken.json', 'completed', { team: 'river' }, 'FixedSizeChunker'],
        ['Mixed notes/good.md', 'mixed/good.md', 'completed', { team: 'river' }, 'FixedSizeChunker'],
      ]);
      // 20-character chunks: the sentence is cut in several.
      expect(children[1]!.chunks).toBeGreaterThanOrEqual(2);
      const found = await api('POST', '/knowledge/search', { query: 'ceruleankingfisher', search_type: 'keyword', filters: { team: 'river' } });
      expect(found.status, JSON.stringify(found.body)).toBe(200);
      expect((found.body.data as Json[]).map((h) => h.content_id)).toEqual([children[1]!.id]);
      expect(found.body.data[0].meta_data).toMatchObject({ team: 'river', remote: { source_id: 'azure-docs', source_type: 'azureblob', path: 'mixed/good.md' } });
    });

    it('refuses bad requests with a clear 4xx and records nothing', async () => {
      const records = (await topLevel()).length;
      const unknown = await post({ config_id: 'nope', path: 'library/' });
      expect([unknown.status, unknown.body.detail]).toEqual([400, 'Unknown content source: nope. Check /knowledge/config for available sources.']);
      const params = await post({ config_id: 's3-docs', path: 'library/', source_params: { repo: 'field/library' } });
      expect([params.status, params.body.detail]).toEqual([400, expect.stringContaining("source type 's3' does not accept source_params")]);
      const badJson = await post({ config_id: 'github-docs', path: 'library/', source_params: '{nope' });
      expect([badJson.status, badJson.body.detail]).toEqual([400, 'source_params must be a valid JSON object']);
      const notObject = await post({ config_id: 'github-docs', path: 'library/', source_params: '["main"]' });
      expect([notObject.status, notObject.body.detail]).toEqual([400, 'source_params must be a JSON object']);
      const unknownParam = await post({ config_id: 'github-docs', path: 'library/', source_params: { tag: 'v1' } });
      expect([unknownParam.status, unknownParam.body.detail]).toEqual([400, expect.stringContaining("unknown source_params 'tag'")]);
      const outside = await post({ config_id: 's3-confined', path: 'mixed/good.md' });
      expect([outside.status, outside.body.detail]).toEqual([400, expect.stringContaining('outside the source\'s prefix "library/"')]);
      const dots = await post({ config_id: 's3-confined', path: 'library/../mixed/' });
      expect([dots.status, dots.body.detail]).toEqual([400, expect.stringContaining('has a "." or ".." segment')]);
      const noPath = await post({ config_id: 's3-docs' });
      expect([noPath.status, noPath.body.error_code]).toEqual([422, 'VALIDATION_ERROR']);
      expect(JSON.stringify(noPath.body.errors)).toContain('path');
      const noSource = await post({ path: 'library/' });
      expect([noSource.status, noSource.body.error_code]).toEqual([422, 'VALIDATION_ERROR']);
      expect(JSON.stringify(noSource.body.errors)).toContain('config_id');
      const reader = await post({ config_id: 's3-docs', path: 'library/', reader_id: 'no-such-reader' });
      expect([reader.status, reader.body.detail]).toEqual([400, expect.stringContaining('Unknown reader "no-such-reader"')]);
      const mode = await post({ config_id: 's3-docs', path: 'library/', write_mode: 'replace' });
      expect([mode.status, mode.body.error_code]).toEqual([422, 'VALIDATION_ERROR']);
      expect((await topLevel()).length).toBe(records);
    });

    it('a provider refusing while reading, or a folder it does not have, ends the record failed, naming the source and path, without the credential', async () => {
      const cases: { body: Json; says: string[] }[] = [
        { body: { config_id: 's3-locked', path: 'library/alpha.md' }, says: ['Remote source "s3-locked" (s3)', 'library/alpha.md'] },
        { body: { config_id: 'gcs-revoked', path: 'single/solo.md' }, says: ['Remote source "gcs-revoked" (gcs)', 'single/solo.md', 'Invalid Credentials'] },
        { body: { config_id: 'azure-badsig', path: 'library/' }, says: ['Remote source "azure-badsig" (azureblob)', 'library/', 'AuthenticationFailed'] },
        { body: { config_id: 'sharepoint-wrong', path: 'single/solo.md' }, says: ['Remote source "sharepoint-wrong" (sharepoint)', '"single/solo.md"', 'access token: HTTP 401 invalid_client'] },
        { body: { config_id: 'github-docs', path: 'single/missing.md' }, says: ['Remote source "github-docs" (github)', 'found nothing at "single/missing.md"'] },
        { body: { config_id: 'gcs-docs', path: 'single/none.md' }, says: ['Remote source "gcs-docs" (gcs)', 'found nothing at "single/none.md"', 'notFound'] },
        { body: { config_id: 's3-docs', path: 'nowhere/' }, says: ['Nothing to read in "nowhere/"', 'remote source "s3-docs" (s3) has no files under "nowhere/"'] },
        { body: { config_id: 'sharepoint-docs', path: 'nowhere/' }, says: ['Remote source "sharepoint-docs" (sharepoint)', 'found nothing at "nowhere/"', 'itemNotFound'] },
      ];
      for (const { body, says } of cases) {
        const res = await post(body);
        expect(res.status, JSON.stringify(res.body)).toBe(202);
        const status = await settle(res.body.id);
        expect(status.status, body.config_id).toBe('failed');
        for (const text of says) expect(status.status_message, body.config_id).toContain(text);
        const record = (await api('GET', `/knowledge/content/${res.body.id}`)).body;
        expect(record).toMatchObject({ status: 'failed', content_hash: null, chunks: null });
        for (const secret of SECRETS) expect(JSON.stringify(record)).not.toContain(secret);
      }
    });

    it('write_mode insert answers 409 the second time; skip answers 200 without reading again', async () => {
      const first = await ingest({ config_id: 'github-docs', path: 'library/zeta.txt', write_mode: 'insert' });
      expect(first.status.status).toBe('completed');
      const conflict = await post({ config_id: 'github-docs', path: 'library/zeta.txt', write_mode: 'insert' });
      expect([conflict.status, conflict.body.error_code]).toEqual([409, 'CONFLICT']);
      expect(conflict.body.detail).toContain(first.id);
      const served = github.served.length;
      const requests = github.seen.length;
      const embedded = embeddings.requests.length;
      const skip = await post({ config_id: 'github-docs', path: 'library/zeta.txt', write_mode: 'skip' });
      expect([skip.status, skip.body.id, skip.body.status]).toEqual([200, first.id, 'completed']);
      const record = (await api('GET', `/knowledge/content/${first.id}`)).body;
      expect(record).toMatchObject({ status: 'completed', content_hash: first.record.content_hash, updated_at: first.record.updated_at });
      // Nothing was asked of GitHub or the embedder.
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(github.served.length).toBe(served);
      expect(github.seen.length).toBe(requests);
      expect(embeddings.requests.length).toBe(embedded);
      // upsert (the default) reads the file again, keeping the stored chunks when its bytes are the same.
      const upsert = await post({ config_id: 'github-docs', path: 'library/zeta.txt' });
      expect([upsert.status, upsert.body.id]).toEqual([202, first.id]);
      expect((await settle(first.id)).status).toBe('completed');
      expect(github.served.slice(served)).toEqual(['library/zeta.txt']);
      expect(embeddings.requests.length).toBe(embedded);
    });

    it('a single file deleted at the source: the refresh fails its record and takes its chunks out of search', async () => {
      const first = await ingest({ config_id: 's3-docs', path: 'single/solo.md' });
      expect(first.status.status).toBe('completed');
      expect((await search('ambersolitaire')).map((h) => h.content_id)).toEqual([first.id]);
      await s3.remove('single/solo.md');
      const again = await ingest({ config_id: 's3-docs', path: 'single/solo.md' });
      expect(again.id).toBe(first.id);
      expect(again.status.status).toBe('failed');
      expect(again.status.status_message).toContain('Remote source "s3-docs" (s3) found nothing at "single/solo.md"');
      expect(again.record).toMatchObject({ content_hash: null, chunks: null });
      expect(await search('ambersolitaire')).toEqual([]);
    });

    it('no response carried a credential', () => {
      expect(answers.length).toBeGreaterThan(50);
      for (const answer of answers) for (const secret of SECRETS) expect(answer).not.toContain(secret);
    });
  });
}
