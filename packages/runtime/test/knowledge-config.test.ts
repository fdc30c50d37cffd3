/**
 * `GET /knowledge/config` against the specification's tables (test/support/knowledge-spec.ts):
 * every reader with its name and chunker set, the whole readersForType map, the chunkers'
 * default metadata, and the route's error envelope. Readers whose service has no key yet are
 * still listed, and using one fails naming the setting.
 *
 * The route reports what is registered. The `converter` reader is built on its own branch; until
 * it is registered here, the only difference from the spec allowed is exactly its entries.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RuntimeError } from '../src/errors.js';
import { knowledgeConfig } from '../src/knowledge/config.js';
import { Knowledge } from '../src/knowledge/knowledge.js';
import { defaultReaders } from '../src/knowledge/readers/registry.js';
import { SqliteVectorStore } from '../src/knowledge/vector-stores/sqlite/store.js';
import { sqliteTestDatabase } from './support/databases.js';
import { call } from './support/http.js';
import { CONVERTER_PENDING, EXPECTED_CONFIG, configDifferences } from './support/knowledge-spec.js';
import { startRuntime, type StartedRuntime } from './support/runtime.js';

let dir: string;
let store: SqliteVectorStore;
let knowledge: Knowledge;
let rt: StartedRuntime;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'svc-knowledge-config-'));
  store = new SqliteVectorStore({ path: join(dir, 'knowledge.db'), id: 'kb-store', name: 'SQLite' });
  // No service is configured: no Firecrawl, search provider or S3 credentials.
  knowledge = new Knowledge({ id: 'kb', store, readers: defaultReaders({}) });
  rt = await startRuntime(sqliteTestDatabase, { knowledge: [knowledge] });
});

afterAll(async () => {
  await rt?.stop();
  await store?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('GET /knowledge/config against the specification', () => {
  it('reports the spec’s readers, readersForType and chunkers, the converter’s included, and nothing else', async () => {
    const res = await call(rt.url, 'GET', '/knowledge/config');
    expect(res.status).toBe(200);
    expect(configDifferences(res.body)).toEqual([]);
  });

  it('the pending list names the converter reader and each of its spec entries, nothing else', () => {
    expect(CONVERTER_PENDING).toContain('readers.converter: missing');
    expect(CONVERTER_PENDING).toContain('readersForType[".pdf"]: [pdf] lacks converter');
    expect(CONVERTER_PENDING).toContain('readersForType[".mov"]: missing, expected [converter]');
    // 1 reader + 6 shared extensions (.csv .xlsx .docx .pptx .md .pdf) + 38 converter-only ones.
    expect(CONVERTER_PENDING).toHaveLength(1 + 6 + 38);
    expect(CONVERTER_PENDING.every((line) => line.includes('converter'))).toBe(true);
  });

  it('compares exactly: a renamed reader, a lost chunker, a changed list or default is reported', () => {
    const good = {
      readers: Object.fromEntries(Object.entries(EXPECTED_CONFIG.readers).map(([id, r]) => [id, { id, name: r.name, chunkers: r.chunkers.toReversed() }])),
      readersForType: Object.fromEntries(Object.entries(EXPECTED_CONFIG.readersForType).map(([k, v]) => [k, [...v]])),
      chunkers: Object.fromEntries(Object.entries(EXPECTED_CONFIG.chunkers).map(([key, metadata]) => [key, { key, metadata: { ...metadata } }])),
    };
    expect(configDifferences(good)).toEqual([]);
    const bad = structuredClone(good);
    bad.readers.csv!.name = 'CSVReader';
    bad.readers.text!.chunkers = bad.readers.text!.chunkers.filter((c) => c !== 'CodeChunker');
    bad.readersForType.url = ['website', 'url', 'crawler', 'video_site', 'web_search', 'bucket'];
    bad.readersForType['.rtf'] = ['text'];
    delete (bad.readersForType as Record<string, unknown>).topic;
    bad.chunkers.CodeChunker!.metadata = { chunk_size: 5000 };
    expect(configDifferences(bad)).toEqual([
      'readers.csv.name: CSVReader, expected CsvReader',
      expect.stringMatching(/^readers\.text\.chunkers: /),
      'readersForType["url"]: [website, url, crawler, video_site, web_search, bucket], expected [url, website, crawler, video_site, web_search, bucket]',
      'readersForType["topic"]: missing, expected [preprint]',
      'readersForType[".rtf"]: [text] not expected',
      'chunkers.CodeChunker: key CodeChunker, metadata {"chunk_size":5000}, expected {"chunk_size":2048}',
    ]);
  });

  it('reports the same set with no knowledge base hosted (the built-in readers)', async () => {
    const config = await knowledgeConfig([]);
    expect(configDifferences(config)).toEqual([]);
    expect(config).toMatchObject({ filters: [], vector_dbs: [], remote_content_sources: [] });
  });

  it('reports the hosted store with its search types, and no remote content sources yet', async () => {
    const res = await call(rt.url, 'GET', '/knowledge/config?knowledge_id=kb');
    expect(res.body.vector_dbs).toEqual([{ id: 'kb-store', name: 'SQLite', description: expect.any(String), search_types: ['keyword'] }]);
    expect(res.body.remote_content_sources).toEqual([]);
    expect(res.body.filters).toEqual([]);
  });
});

describe('readers whose service is not configured', () => {
  it('are listed, and an upload that needs one fails naming the setting', async () => {
    const config = (await call(rt.url, 'GET', '/knowledge/config')).body;
    for (const id of ['crawler', 'web_search', 'bucket', 'video_site', 'preprint', 'website']) expect(config.readers[id], id).toBeDefined();
    const refusals: [Parameters<Knowledge['insert']>[0], RegExp][] = [
      [{ url: 'https://example.org/', reader: 'crawler' }, /crawler reader is not configured: set FIRECRAWL_API_KEY/],
      [{ topic: 'compost', reader: 'web_search' }, /no search provider: set SEARXNG_BASE_URL .* or TAVILY_API_KEY/],
      [{ url: 's3://bucket/report.pdf', reader: 'bucket' }, /bucket reader is not configured: set S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY/],
    ];
    for (const [input, message] of refusals) {
      const error = await knowledge.insert(input).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(RuntimeError.isInstance(error) && error.code, String(input.reader)).toBe('BAD_REQUEST');
      expect((error as Error).message).toMatch(message);
    }
  });
});

/** The error body's fields, apart from the field list a 422 adds. */
const envelope = (body: Record<string, unknown>) => Object.keys(body).filter((k) => k !== 'errors').sort();

describe('GET /knowledge/config errors', () => {
  it('404 NOT_FOUND for an unknown knowledge_id or db_id', async () => {
    for (const query of ['knowledge_id=nope', 'db_id=nope', 'knowledge_id=kb&db_id=nope']) {
      const res = await call(rt.url, 'GET', `/knowledge/config?${query}`);
      expect([res.status, res.body.error_code], query).toEqual([404, 'NOT_FOUND']);
      expect(envelope(res.body)).toEqual(['detail', 'error_code']);
    }
  });

  it('422 VALIDATION_ERROR for a repeated parameter or a NUL character', async () => {
    for (const query of ['knowledge_id=kb&knowledge_id=other', 'db_id=%00']) {
      const res = await call(rt.url, 'GET', `/knowledge/config?${query}`);
      expect([res.status, res.body.error_code], query).toEqual([422, 'VALIDATION_ERROR']);
      expect(envelope(res.body)).toEqual(['detail', 'error_code']);
    }
  });

  it('401 UNAUTHENTICATED without a credential when the runtime has a security key', async () => {
    const secured = await startRuntime(sqliteTestDatabase, { knowledge: [knowledge], env: { OS_SECURITY_KEY: 'config-test-key' } });
    try {
      const none = await call(secured.url, 'GET', '/knowledge/config');
      expect([none.status, none.body.error_code]).toEqual([401, 'UNAUTHENTICATED']);
      expect(envelope(none.body)).toEqual(['detail', 'error_code']);
      expect((await call(secured.url, 'GET', '/knowledge/config', { token: 'config-test-key' })).status).toBe(200);
    } finally {
      await secured.stop();
    }
  });

  it('documents 400, 401, 404, 422 and 500 with the error body in /openapi.json', async () => {
    const doc = (await call(rt.url, 'GET', '/openapi.json')).body;
    const responses = doc.paths['/knowledge/config'].get.responses;
    for (const status of ['400', '401', '404', '422', '500']) {
      expect(responses[status].content['application/json'].schema, status).toEqual({ $ref: '#/components/schemas/ErrorResponse' });
    }
    expect(doc.components.schemas.ErrorResponse.required).toContain('detail');
  });
});
