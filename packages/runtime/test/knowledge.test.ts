/**
 * The knowledge pipeline end to end: files are read, chunked, embedded by a loopback
 * embeddings server and stored in SQLite and in PostgreSQL; search works by vector, keyword and
 * both, with filters; an agent finds a passage through `search_knowledge_base`; and
 * `GET /knowledge/config` describes what is hosted, under authorization too.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent } from '../src/agent/agent.js';
import { RuntimeError } from '../src/errors.js';
import { MarkdownChunker } from '../src/knowledge/chunkers/markdown.js';
import { OpenAIEmbedder } from '../src/providers/openai/embeddings.js';
import { Knowledge } from '../src/knowledge/knowledge.js';
import { PostgresVectorStore } from '../src/knowledge/vector-stores/postgres/store.js';
import { SqliteVectorStore } from '../src/knowledge/vector-stores/sqlite/store.js';
import type { VectorStore } from '../src/knowledge/vector-stores/vector-store.js';
import { OpenAIChatModel } from '../src/providers/openai/chat.js';
import type { Db } from '../src/storage/db.js';
import { sqliteTestDatabase, testDatabaseKinds, type TestDatabase } from './support/databases.js';
import { startFakeEmbeddings, type FakeEmbeddings } from './support/fake-embeddings.js';
import { startFakeLlm, type FakeLlm } from './support/fake-llm.js';
import { docxWithParagraphs, pdfWithPages } from './support/office-fixtures.js';
import { call } from './support/http.js';
import { sign, signingKey, type SigningKey } from './support/jwt.js';
import { startRuntime, type StartedRuntime } from './support/runtime.js';

const GUIDE = `# Runtime guide

Intro to the runtime and what it hosts.

## Changing the port

Set PORT=8080 in the environment to change the listening port of the server.

## Databases

Set DATABASE_URL to a postgres URL to use PostgreSQL instead of the embedded SQLite file.
`;

const CITIES = 'city,country,population\nParis,France,2100000\nLyon,France,520000\nBerlin,Germany,3600000\n';
const CATALOG = JSON.stringify([
  { sku: 'T-1', title: 'Blue teapot', material: 'ceramic' },
  { sku: 'K-2', title: 'Steel kettle', material: 'stainless steel' },
]);

let dir: string;
let fakeEmbeddings: FakeEmbeddings;
let fakeLlm: FakeLlm;

function file(name: string, content: string | Uint8Array): string {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'svc-knowledge-'));
  fakeEmbeddings = await startFakeEmbeddings({ apiKey: 'sk-emb' });
  fakeLlm = await startFakeLlm();
});
afterAll(async () => {
  await fakeEmbeddings?.close();
  await fakeLlm?.close();
  rmSync(dir, { recursive: true, force: true });
});

const embedder = () => new OpenAIEmbedder({ apiKey: 'sk-emb', baseURL: `${fakeEmbeddings.url}/v1`, model: 'fake-embed', maxRetries: 0 });

async function refusal(p: Promise<unknown>): Promise<RuntimeError> {
  const error = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!RuntimeError.isInstance(error)) throw new Error(`expected a RuntimeError, got ${String(error)}`);
  return error;
}

for (const kind of testDatabaseKinds) {
  describe.runIf(kind.available)(`knowledge on ${kind.kind}`, () => {
    let docs: Knowledge;
    let plain: Knowledge;
    let stores: VectorStore[] = [];
    let database: TestDatabase | undefined;
    let storeDb: Db | undefined;
    let rt: StartedRuntime;
    let guideId: string;

    beforeAll(async () => {
      const open = (table: string): VectorStore => {
        if (kind.kind === 'sqlite') return new SqliteVectorStore({ path: join(dir, `${kind.kind}-knowledge.db`), table });
        return new PostgresVectorStore({ db: storeDb!, table });
      };
      if (kind.kind === 'postgres') {
        database = await kind.create();
        storeDb = database.open();
      }
      stores = [open('kb_docs'), open('kb_plain')];
      docs = new Knowledge({ id: 'docs', name: 'Docs', description: 'Product docs', store: stores[0]!, embedder: embedder() });
      plain = new Knowledge({ id: 'plain', store: stores[1]! });
      const model = new OpenAIChatModel({ model: 'fake-model', baseURL: `${fakeLlm.url}/v1`, maxRetries: 0 });
      const helper = new Agent({ id: 'helper', model, instructions: 'Search the docs before answering.', knowledge: docs });
      rt = await startRuntime(kind, { agents: [helper], knowledge: [docs, plain] });

      guideId = (await docs.insert({ path: file('guide.md', GUIDE), chunker: new MarkdownChunker({ splitOnHeadings: 2 }), metadata: { kind: 'guide' } })).content_id;
      await docs.insert({ path: file('cities.csv', CITIES), metadata: { kind: 'table', year: 2024 } });
      await docs.insert({ path: file('catalog.json', CATALOG), metadata: { kind: 'catalog' } });
      await plain.insert({ text: GUIDE, name: 'guide.md', chunkSize: 120, chunker: 'MarkdownChunker' });
    });
    afterAll(async () => {
      await rt?.stop();
      for (const s of stores) await s.close();
      await storeDb?.close();
      await database?.cleanup();
    });

    it('reads, chunks and stores each file with its reader and default chunker', async () => {
      const again = await docs.insert({ path: join(dir, 'cities.csv'), metadata: { kind: 'table', year: 2024 } });
      expect(again).toMatchObject({ name: 'cities.csv', reader: 'csv', chunker: 'RowChunker', chunks: 4 });
      const json = await docs.insert({ path: join(dir, 'catalog.json'), metadata: { kind: 'catalog' } });
      expect(json).toMatchObject({ reader: 'json', chunker: 'FixedSizeChunker', chunks: 2 });
      // Re-inserting the same path and metadata replaces its chunks instead of duplicating them.
      const hits = await docs.search('Paris France', { searchType: 'keyword', limit: 10, filters: { kind: 'table' } });
      expect(hits.filter((h) => h.content.startsWith('Paris'))).toHaveLength(1);
    });

    it('ingests PDF pages and DOCX paragraphs from bytes', async () => {
      const pdf = await docs.insert({ buffer: pdfWithPages([['Warranty: two years', 'on every kettle.'], ['Returns within 30 days.']]), name: 'policy.pdf', metadata: { kind: 'policy' } });
      // The pages are chunked as one text: both short pages fit one chunk, which says so.
      expect(pdf).toMatchObject({ reader: 'pdf', chunker: 'DocumentChunker', chunks: 1 });
      const [page] = await docs.search('kettle warranty years', { searchType: 'hybrid', limit: 1, filters: { kind: 'policy' } });
      // A hit's id is its content's id and the chunk's position in it.
      expect(page).toMatchObject({ id: `${pdf.content_id}_1`, content: 'Warranty: two years on every kettle.\n\nReturns within 30 days.', meta_data: { page_start: 1, page_end: 2, kind: 'policy' } });
      expect(page!.meta_data).not.toHaveProperty('page');
      const docx = await docs.insert({ buffer: docxWithParagraphs(['Onboarding', 'Ask the desk for a badge.']), name: 'onboarding.docx', metadata: { kind: 'policy' } });
      expect(docx).toMatchObject({ reader: 'docx', chunks: 1 });
      const [badge] = await docs.search('badge', { searchType: 'keyword', filters: { kind: 'policy' } });
      expect(badge?.content).toBe('Onboarding\n\nAsk the desk for a badge.');
    });

    it('finds the right passage by vector, keyword and hybrid search', async () => {
      for (const searchType of ['vector', 'keyword', 'hybrid'] as const) {
        const [best] = await docs.search('how do I change the listening port?', { searchType, limit: 3 });
        expect(best?.content, searchType).toContain('PORT=8080');
        expect(best).toMatchObject({ id: `${guideId}_2`, name: 'guide', meta_data: { kind: 'guide', chunk: 2 } });
      }
    });

    it('applies metadata filters', async () => {
      const rows = await docs.search('France population', { searchType: 'hybrid', limit: 10, filters: { kind: 'table' } });
      expect(rows.map((h) => h.content)).toEqual(expect.arrayContaining(['Paris, France, 2100000', 'Lyon, France, 520000']));
      expect(rows.every((h) => h.meta_data.kind === 'table' && typeof h.meta_data.row_number === 'number')).toBe(true);
      const none = await docs.search('France', { searchType: 'vector', limit: 10, filters: { kind: 'table', year: 2023 } });
      expect(none).toEqual([]);
      const [teapot] = await docs.search('ceramic teapot', { searchType: 'keyword', filters: { kind: 'catalog' } });
      expect(JSON.parse(teapot!.content)).toEqual({ sku: 'T-1', title: 'Blue teapot', material: 'ceramic' });
    });

    it('searches by keyword without an embedder, and refuses vector search there', async () => {
      const [best] = await plain.search('DATABASE_URL postgres');
      expect(best?.content).toContain('DATABASE_URL');
      expect((await refusal(plain.search('port', { searchType: 'vector' }))).code).toBe('BAD_REQUEST');
    });

    it('lets an agent find the passage through search_knowledge_base', async () => {
      fakeLlm.setBehaviour({ toolArguments: { search_knowledge_base: { query: 'change the listening port' } } });
      const res = await call(rt.url, 'POST', '/agents/helper/runs', { body: { message: 'Which port setting?', stream: false } });
      fakeLlm.setBehaviour({ toolArguments: {} });
      expect(res.status).toBe(200);
      expect(res.body.status).toBe('COMPLETED');
      const toolMessage = JSON.stringify(fakeLlm.requests.at(-1)?.body);
      expect(toolMessage).toContain('PORT=8080');
    });

    it('refuses bad input with typed errors', async () => {
      expect((await refusal(docs.insert({ text: 'x', reader: 'no_such_reader' }))).code).toBe('BAD_REQUEST');
      expect((await refusal(docs.insert({ path: file('empty.md', '') }))).code).toBe('VALIDATION_ERROR');
      const csv = await refusal(docs.insert({ path: file('broken.csv', 'a,b\n"unclosed,1\n') }));
      expect([csv.code, csv.message]).toEqual(['VALIDATION_ERROR', expect.stringContaining('is not valid CSV')]);
      const json = await refusal(docs.insert({ path: file('broken.json', '{"a": [1, }') }));
      expect([json.code, json.message]).toEqual(['VALIDATION_ERROR', expect.stringContaining('is not valid JSON')]);
      expect((await refusal(docs.insert({ path: join(dir, 'missing.md') }))).code).toBe('NOT_FOUND');
      expect((await refusal(docs.insert({ text: 'x', name: 'a.csv', chunker: 'MarkdownChunker' }))).message).toContain('does not support chunker');
      expect((await refusal(docs.insert({ text: 'x', chunker: 'FixedSizeChunker', chunkSize: 10, chunkOverlap: 10 }))).code).toBe('VALIDATION_ERROR');
      expect((await refusal(docs.insert({ text: 'x', path: 'y' }))).code).toBe('BAD_REQUEST');
      const small = new Knowledge({ id: 'small', store: stores[1]!, maxContentBytes: 8 });
      expect((await refusal(small.insert({ text: 'more than eight bytes' }))).code).toBe('PAYLOAD_TOO_LARGE');
      expect((await refusal(small.insert({ path: join(dir, 'cities.csv') }))).code).toBe('PAYLOAD_TOO_LARGE');
      expect((await refusal(docs.search('  '))).code).toBe('BAD_REQUEST');
      expect((await refusal(docs.search('x', { limit: 0 }))).code).toBe('BAD_REQUEST');
    });

    it('GET /knowledge/config reports the hosted readers, chunkers, filters and vector dbs', async () => {
      const res = await call(rt.url, 'GET', '/knowledge/config');
      expect(res.status).toBe(200);
      expect(Object.keys(res.body.readers).sort()).toEqual([
        'bucket',
        'converter',
        'crawler',
        'csv',
        'docx',
        'excel',
        'field_labeled_csv',
        'html',
        'json',
        'markdown',
        'pdf',
        'pptx',
        'preprint',
        'text',
        'url',
        'video_site',
        'web_search',
        'website',
      ]);
      expect(res.body.readers.website).toEqual({ id: 'website', name: 'WebsiteReader', description: expect.any(String), chunkers: ['FixedSizeChunker', 'AgenticChunker', 'DocumentChunker', 'RecursiveChunker', 'SemanticChunker'] });
      expect(res.body.readers.csv).toEqual({
        id: 'csv',
        name: 'CsvReader',
        description: expect.any(String),
        chunkers: ['RowChunker', 'AgenticChunker', 'DocumentChunker', 'FixedSizeChunker', 'RecursiveChunker', 'SemanticChunker'],
      });
      // The spec's map, converter included where it lists it (after a format's own reader: knowledge-spec.ts).
      expect(res.body.readersForType).toMatchObject({ '.csv': ['csv', 'field_labeled_csv', 'converter'], '.md': ['markdown', 'converter'], '.json': ['json'], '.txt': ['text'], '.pdf': ['pdf', 'converter'], '.docx': ['docx', 'converter'] });
      expect(res.body.readersForType).toMatchObject({ '.xlsx': ['excel', 'converter'], '.xls': ['excel'], '.pptx': ['pptx', 'converter'], '.doc': ['docx'], 'application/vnd.ms-excel': ['excel'] });
      expect(res.body.readersForType).toMatchObject({ '.tar.gz': ['converter'], '.png': ['converter'], '.mp3': ['converter'], '.vtt': ['converter'], '.xbrl': ['converter'] });
      expect(res.body.readers.converter).toEqual({
        id: 'converter',
        name: 'ConverterReader',
        description: expect.any(String),
        chunkers: ['DocumentChunker', 'AgenticChunker', 'CodeChunker', 'FixedSizeChunker', 'RecursiveChunker', 'SemanticChunker'],
      });
      expect(res.body.readers.excel).toEqual({ id: 'excel', name: 'ExcelReader', description: expect.any(String), chunkers: ['RowChunker', 'FixedSizeChunker', 'AgenticChunker', 'DocumentChunker', 'RecursiveChunker', 'SemanticChunker'] });
      expect(res.body.readers.pptx).toMatchObject({ id: 'pptx', name: 'PptxReader', chunkers: ['DocumentChunker', 'FixedSizeChunker', 'AgenticChunker', 'RecursiveChunker', 'SemanticChunker'] });
      expect(res.body.readers.field_labeled_csv).toMatchObject({ id: 'field_labeled_csv', name: 'FieldLabeledCsvReader' });
      expect(res.body.readersForType).toMatchObject({ '.html': ['html', 'converter'], '.htm': ['html', 'converter'], 'text/html': ['html'] });
      // The content kinds of the reference map, in its order.
      expect(res.body.readersForType.url).toEqual(['url', 'website', 'crawler', 'video_site', 'web_search', 'bucket']);
      expect(res.body.readersForType.youtube).toEqual(['video_site']);
      expect(res.body.readersForType.text).toEqual(['web_search']);
      expect(res.body.readersForType.topic).toEqual(['preprint']);
      expect(res.body.readersForType.file).toEqual(['csv', 'bucket']);
      expect(res.body.chunkers.FixedSizeChunker).toMatchObject({ key: 'FixedSizeChunker', metadata: { chunk_size: 5000, chunk_overlap: 0 } });
      expect(res.body.chunkers.RowChunker.metadata).toEqual({});
      expect(res.body.readers.text.chunkers).toEqual(['FixedSizeChunker', 'AgenticChunker', 'CodeChunker', 'DocumentChunker', 'RecursiveChunker', 'SemanticChunker']);
      expect(res.body.readers.markdown.chunkers).toEqual(['MarkdownChunker', 'AgenticChunker', 'DocumentChunker', 'FixedSizeChunker', 'RecursiveChunker', 'SemanticChunker']);
      // The spec's S5 on every other reader, each reader's own default first.
      for (const id of ['json', 'pdf', 'docx', 'html']) {
        expect([...res.body.readers[id].chunkers].sort(), id).toEqual(['AgenticChunker', 'DocumentChunker', 'FixedSizeChunker', 'RecursiveChunker', 'SemanticChunker', ...(id === 'html' ? ['MarkdownChunker'] : [])].sort());
      }
      expect(res.body.chunkers.CodeChunker).toEqual({ key: 'CodeChunker', name: 'CodeChunker', description: expect.any(String), metadata: { chunk_size: 2048 } });
      expect(res.body.chunkers.AgenticChunker.metadata).toEqual({ chunk_size: 5000 });
      expect(res.body.chunkers.SemanticChunker.metadata).toEqual({ chunk_size: 5000 });
      expect(Object.keys(res.body.chunkers).sort()).toEqual(['AgenticChunker', 'CodeChunker', 'DocumentChunker', 'FixedSizeChunker', 'MarkdownChunker', 'RecursiveChunker', 'RowChunker', 'SemanticChunker']);
      expect(res.body.filters).toEqual(['kind', 'year']);
      expect(res.body.vector_dbs).toEqual([
        { id: stores[0]!.id, name: stores[0]!.name, description: expect.any(String), search_types: ['vector', 'keyword', 'hybrid'] },
        { id: stores[1]!.id, name: stores[1]!.name, description: expect.any(String), search_types: ['keyword'] },
      ]);
      expect(res.body.remote_content_sources).toEqual([]);
    });

    it('GET /knowledge/config narrows by knowledge_id and db_id, and 404s unknown ids', async () => {
      const one = await call(rt.url, 'GET', '/knowledge/config?knowledge_id=plain');
      expect(one.body.vector_dbs).toEqual([expect.objectContaining({ search_types: ['keyword'] })]);
      expect(one.body.filters).toEqual([]);
      const byDb = await call(rt.url, 'GET', `/knowledge/config?db_id=${encodeURIComponent(docs.dbId!)}`);
      expect(byDb.status).toBe(200);
      for (const query of ['knowledge_id=nope', 'db_id=nope']) {
        const res = await call(rt.url, 'GET', `/knowledge/config?${query}`);
        expect(res.status, query).toBe(404);
        expect(res.body.error_code).toBe('NOT_FOUND');
      }
    });

    it('documents the route in /openapi.json', async () => {
      const doc = (await call(rt.url, 'GET', '/openapi.json')).body;
      const op = doc.paths['/knowledge/config'].get;
      expect(op.parameters.map((p: { name: string }) => p.name).sort()).toEqual(['db_id', 'knowledge_id']);
      expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['200', '400', '401', '404', '422', '500']));
      expect(doc.components.schemas.KnowledgeConfigResponse).toBeDefined();
    });
  });
}

describe('GET /knowledge/config under authorization', () => {
  let key: SigningKey;
  let rt: StartedRuntime;
  let store: SqliteVectorStore;

  beforeAll(async () => {
    key = await signingKey('RS256', 'k');
    store = new SqliteVectorStore({ path: join(dir, 'auth-knowledge.db') });
    const docs = new Knowledge({ id: 'docs', store });
    rt = await startRuntime(sqliteTestDatabase, { knowledge: [docs], authorization: true, authorization_config: { verification_keys: [key.publicPem], audience: 'kn' } });
  });
  afterAll(async () => {
    await rt?.stop();
    await store?.close();
  });

  it('answers 401 without a token, 403 without knowledge:read, 200 with it', async () => {
    const none = await call(rt.url, 'GET', '/knowledge/config');
    expect([none.status, none.body.error_code]).toEqual([401, 'UNAUTHENTICATED']);
    const wrong = await call(rt.url, 'GET', '/knowledge/config', { token: await sign(key, { claims: { aud: 'kn', scopes: ['agents:read'] } }) });
    expect([wrong.status, wrong.body.error_code]).toEqual([403, 'FORBIDDEN']);
    const ok = await call(rt.url, 'GET', '/knowledge/config', { token: await sign(key, { claims: { aud: 'kn', scopes: ['knowledge:read'] } }) });
    expect(ok.status).toBe(200);
    expect(ok.body.vector_dbs).toEqual([expect.objectContaining({ id: store.id, search_types: ['keyword'] })]);
  });
});
