/**
 * The source readers end to end, on SQLite and PostgreSQL: POST /knowledge/content with a `url`
 * or `topic` and a `reader_id` (website, crawler, video_site, web_search, preprint, bucket, url)
 * reads from loopback stand-ins that speak each service's real wire format (fake-sources.ts,
 * fake-s3.ts), and POST /knowledge/search finds what was read. Failures end as `failed` records
 * whose message says what was wrong (robots.txt, a 404, no captions, a missing or refused key,
 * an address the SSRF rules refuse), never a 500 or a record stuck in `processing`; bad input a
 * reader can see without reading is refused at once.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HostResolver } from '../src/net/safe-fetch.js';
import { Knowledge } from '../src/knowledge/knowledge.js';
import { defaultReaders } from '../src/knowledge/readers/registry.js';
import { PostgresVectorStore } from '../src/knowledge/vector-stores/postgres/store.js';
import { SqliteVectorStore } from '../src/knowledge/vector-stores/sqlite/store.js';
import type { VectorStore } from '../src/knowledge/vector-stores/vector-store.js';
import type { Db } from '../src/storage/db.js';
import { testDatabaseKinds, type TestDatabase, type TestDatabaseKind } from './support/databases.js';
import { startFakeS3, S3_KEY, type FakeS3 } from './support/fake-s3.js';
import { FIRECRAWL_KEY, startFakeSources, TAVILY_KEY, type FakeSources } from './support/fake-sources.js';
import { call } from './support/http.js';
import { settled } from './support/knowledge-content.js';
import { pdfWithPages } from './support/office-fixtures.js';
import { startRuntime, type StartedRuntime } from './support/runtime.js';

const BUCKET = 'garden-docs';

let dir: string;
let fakes: FakeSources;
let s3: FakeS3;
/** A port nothing listens on. */
let closedPort: number;

/** `*.test` names resolve to loopback, so a second "site" can live on the same server. */
const resolve: HostResolver = async (hostname) => {
  if (hostname.endsWith('.test')) return [{ address: '127.0.0.1', family: 4 }];
  throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
};

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'svc-ksrc-'));
  fakes = await startFakeSources();
  s3 = await startFakeS3(BUCKET, {
    'notes/compost.md': { body: '# Compost\n\nA bokashi bucket ferments kitchen scraps before they go on the heap.\n', type: 'text/markdown' },
    'notes/plots.csv': { body: 'plot,holder,crop\n7,Okafor,runner beans\n9,Lindqvist,rhubarb\n', type: 'text/csv' },
    'notes/broken.json': { body: '{"unterminated": ', type: 'application/json' },
    'notes/empty.txt': { body: '', type: 'text/plain' },
    'manual.pdf': { body: pdfWithPages([['Greenhouse manual'], ['Open the roof vents when the thermometer passes twenty-five degrees.']]), type: 'application/pdf' },
  });
  // Bind then close a socket to find a free port that refuses connections.
  const { createServer } = await import('node:net');
  const probe = createServer();
  await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
  closedPort = (probe.address() as { port: number }).port;
  await new Promise((r) => probe.close(r));
});
afterAll(async () => {
  await fakes?.close();
  await s3?.close();
  rmSync(dir, { recursive: true, force: true });
});

function environment(extra: Record<string, string> = {}): Record<string, string> {
  return {
    WEBSITE_DELAY_MS: '0',
    FIRECRAWL_BASE_URL: fakes.firecrawl.url,
    FIRECRAWL_API_KEY: FIRECRAWL_KEY,
    FIRECRAWL_POLL_INTERVAL_MS: '20',
    YOUTUBE_BASE_URL: fakes.youtube.url,
    SEARXNG_BASE_URL: fakes.searxng.url,
    ARXIV_BASE_URL: fakes.arxiv.url,
    ARXIV_PDF_BASE_URL: fakes.arxiv.url,
    S3_ENDPOINT: s3.endpoint,
    S3_ACCESS_KEY_ID: S3_KEY,
    S3_SECRET_ACCESS_KEY: S3_KEY,
    ...extra,
  };
}

function openStore(kind: TestDatabaseKind, db: Db | undefined, table: string): VectorStore {
  if (kind.kind === 'sqlite') return new SqliteVectorStore({ path: join(dir, `${table}-${kind.kind}.db`), table });
  return new PostgresVectorStore({ db: db!, table });
}

const hitsFor = async (base: string, knowledgeId: string, query: string) =>
  (await call(base, 'POST', '/knowledge/search', { body: { query, knowledge_id: knowledgeId } })).body.data as { content: string; content_id: string; name: string; meta_data: Record<string, unknown> }[];

for (const kind of testDatabaseKinds) {
  describe.runIf(kind.available)(`knowledge source readers on ${kind.kind}`, () => {
    let database: TestDatabase | undefined;
    let storeDb: Db | undefined;
    const stores: VectorStore[] = [];
    let rt: StartedRuntime;
    const web = '?knowledge_id=web';
    const strict = '?knowledge_id=strict';
    const wrong = '?knowledge_id=wrong';
    const bare = '?knowledge_id=bare';

    /** Uploads, waits for the record to settle, and returns the record. */
    const ingest = async (query: string, fields: Record<string, unknown>) => {
      const res = await call(rt.url, 'POST', `/knowledge/content${query}`, { body: fields });
      expect(res.status, JSON.stringify(res.body)).toBe(202);
      const status = await settled(rt.url, res.body.id, query);
      const record = (await call(rt.url, 'GET', `/knowledge/content/${res.body.id}${query}`)).body;
      return { id: res.body.id as string, status, record };
    };

    /** A collection's child records, in the order of their place in it. */
    const childrenOf = async (query: string, parentId: string) => {
      const res = await call(rt.url, 'GET', `/knowledge/content${query}&parent_id=${parentId}&limit=100`);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return (res.body.data as Record<string, any>[]).toSorted((a, b) => (a.source < b.source ? -1 : 1));
    };

    beforeAll(async () => {
      if (kind.kind === 'postgres') {
        database = await kind.create();
        storeDb = database.open();
      }
      const base = (id: string, env: Record<string, string>, allow: boolean) => {
        const store = openStore(kind, storeDb, `ks_${id}`);
        stores.push(store);
        return new Knowledge({ id, store, readers: defaultReaders(env), urlFetch: allow ? { allowPrivateHosts: true, resolve } : { resolve } });
      };
      rt = await startRuntime(kind, {
        knowledge: [
          base('web', environment(), true),
          base('strict', environment(), false),
          base('tavily', environment({ WEB_SEARCH_PROVIDER: 'tavily', TAVILY_BASE_URL: fakes.tavily.url, TAVILY_API_KEY: TAVILY_KEY }), true),
          base('wrong', environment({ FIRECRAWL_API_KEY: 'fc-wrong-key-5555', WEB_SEARCH_PROVIDER: 'tavily', TAVILY_BASE_URL: fakes.tavily.url, TAVILY_API_KEY: 'tvly-wrong-key-6666', S3_ACCESS_KEY_ID: 'AKIAWRONGKEY7777' }), true),
          base('bare', {}, true),
        ],
      });
    });
    afterAll(async () => {
      await rt?.stop();
      for (const s of stores) await s.close();
      await storeDb?.close();
      await database?.cleanup();
    });

    it('website: crawls the site breadth-first within its host, honouring robots.txt; a record per page, a failed page fails only itself', async () => {
      const site = fakes.site.url;
      const before = fakes.site.seen.length;
      const { id, status, record } = await ingest(web, { url: `${site}/`, reader_id: 'website', metadata: { area: 'garden' } });
      expect(status.status).toBe('completed');
      expect(record).toMatchObject({ name: `${site}/`, type: 'website', reader_id: 'website', parent_id: null, source: null, children: { processing: 0, completed: 4, failed: 1 } });
      // What robots.txt kept out is a note on the collection; a page that failed is a child saying why.
      expect(status.status_message).toBe(`completed: 5 item(s): 4 read, 1 failed; skipped: ${site}/private/ledger: disallowed by robots.txt`);
      const pages = await childrenOf(web, id);
      expect(pages.map((p) => [p.source, p.status, p.name])).toEqual([
        [`${site}/`, 'completed', 'Allotment handbook'],
        [`${site}/missing`, 'failed', `${site}/missing`],
        [`${site}/soil`, 'completed', 'Soil'],
        [`${site}/soil/worms`, 'completed', 'Worms'],
        [`${site}/tools`, 'completed', 'Tools'],
      ]);
      expect(pages.find((p) => p.status === 'failed')!.status_message).toBe(`${site}/missing answered HTTP 404 Not Found`);
      for (const page of pages.filter((p) => p.status === 'completed')) {
        expect(page).toMatchObject({ parent_id: id, type: 'website', metadata: { area: 'garden' }, status_message: null });
        expect(page.content_hash).toMatch(/^[0-9a-f]{64}$/);
        expect(page.chunks).toBeGreaterThan(0);
      }
      expect(record.chunks).toBe(pages.reduce((n, p) => n + (p.chunks ?? 0), 0));

      const fetched = fakes.site.seen.slice(before).map((s) => s.url);
      expect(fetched[0]).toBe('/robots.txt');
      // Breadth-first, each page once (fragments and tracking parameters normalised away),
      // never the disallowed path, the PDF or another host.
      expect(fetched.slice(1)).toEqual(['/', '/soil', '/tools', '/missing', '/soil/worms']);

      const worms = await hitsFor(rt.url, 'web', 'earthworm castings');
      const wormsPage = pages.find((p) => p.source === `${site}/soil/worms`)!;
      expect(worms[0]).toMatchObject({ content_id: wormsPage.id, name: 'Worms', meta_data: { url: `${site}/soil/worms`, title: 'Worms', depth: 2, area: 'garden' } });
      expect(worms[0]!.content).toContain('leave the worms undisturbed');
      const tools = await hitsFor(rt.url, 'web', 'whetstone spade');
      expect(tools[0]!.meta_data.url).toBe(`${site}/tools`);
      expect(await hitsFor(rt.url, 'web', 'secret')).toEqual([]);
    });

    it('website: a site whose robots.txt disallows the start page, an unreachable site, and the SSRF rules end as failed records', async () => {
      const port = new URL(fakes.site.url).port;
      const before = fakes.site.seen.length;
      const closed = await ingest(web, { url: `http://closed.test:${port}/`, reader_id: 'website' });
      expect(closed.status).toEqual({ id: closed.id, status: 'failed', status_message: `website reader: robots.txt of closed.test:${port} disallows http://closed.test:${port}/` });
      expect(fakes.site.seen.slice(before).map((s) => `${s.host}${s.url}`)).toEqual([`closed.test:${port}/robots.txt`]);

      const down = await ingest(web, { url: `http://127.0.0.1:${closedPort}/`, reader_id: 'website' });
      expect(down.status.status_message).toBe(`Cannot fetch http://127.0.0.1:${closedPort}/robots.txt (ECONNREFUSED)`);

      const guarded = await ingest(strict, { url: `${fakes.site.url}/`, reader_id: 'website' });
      expect(guarded.status.status_message).toBe('URL host resolves to a loopback address (127.0.0.1); set allowPrivateHosts to ingest from internal hosts');
    });

    it('crawler: scrapes a page or crawls a site through Firecrawl, with the key from the settings', async () => {
      const site = fakes.site.url;
      const scraped = await ingest(web, { url: `${site}/`, reader_id: 'crawler' });
      expect(scraped.status).toEqual({ id: scraped.id, status: 'completed', status_message: null });
      expect(scraped.record).toMatchObject({ name: 'Lighthouse keeping', type: 'crawler' });
      const lens = await hitsFor(rt.url, 'web', 'Fresnel lens');
      expect(lens[0]).toMatchObject({ content_id: scraped.id, meta_data: { url: `${site}/`, title: 'Lighthouse keeping' } });
      const scrapeCall = fakes.firecrawl.seen.find((s) => s.url === '/v2/scrape')!;
      expect(scrapeCall.authorization).toBe(`Bearer ${FIRECRAWL_KEY}`);
      expect(JSON.parse(scrapeCall.body)).toEqual({ url: `${site}/`, formats: ['markdown'], onlyMainContent: true });

      // A crawl: started, polled until completed, its data read across the `next` page; a page
      // the site answered with 404 is a note.
      const crawled = await ingest(web, { url: `${site}/`, reader_id: 'crawler', reader_options: { mode: 'crawl', limit: 3 } });
      expect(crawled.status).toEqual({ id: crawled.id, status: 'completed', status_message: 'completed: 4 item(s): 3 read, 1 failed' });
      expect(crawled.record).toMatchObject({ type: 'crawler', children: { processing: 0, completed: 3, failed: 1 } });
      const pages = await childrenOf(web, crawled.id);
      expect(pages.map((p) => [p.source, p.name, p.status, p.status_message])).toEqual([
        [`${site}/`, 'Lighthouse keeping', 'completed', null],
        [`${site}/gone`, `${site}/gone`, 'failed', `${site}/gone answered HTTP 404`],
        [`${site}/log`, 'Keeper log', 'completed', null],
        [`${site}/stores`, 'Stores', 'completed', null],
      ]);
      const paraffin = await hitsFor(rt.url, 'web', 'paraffin stone shed');
      expect(paraffin[0]).toMatchObject({ content_id: pages[3]!.id, meta_data: { url: `${site}/stores`, title: 'Stores' } });
      const started = fakes.firecrawl.seen.find((s) => s.url === '/v2/crawl')!;
      expect(JSON.parse(started.body)).toEqual({ url: `${site}/`, limit: 3, scrapeOptions: { formats: ['markdown'], onlyMainContent: true } });
      expect(fakes.firecrawl.seen.filter((s) => s.url.startsWith('/v2/crawl/')).length).toBeGreaterThanOrEqual(3);
    });

    it('crawler: a missing key, a refused key and a target the SSRF rules refuse end as failed records', async () => {
      const site = fakes.site.url;
      const missing = await ingest(bare, { url: `${site}/`, reader_id: 'crawler' });
      expect(missing.status.status_message).toBe('The crawler reader is not configured: set FIRECRAWL_API_KEY (or FIRECRAWL_BASE_URL for a self-hosted Firecrawl)');
      const refused = await ingest(wrong, { url: `${site}/`, reader_id: 'crawler' });
      expect(refused.status.status_message).toBe('Firecrawl answered HTTP 401: Unauthorized: Invalid token (check FIRECRAWL_API_KEY)');
      const before = fakes.firecrawl.seen.length;
      const guarded = await ingest(strict, { url: `${site}/`, reader_id: 'crawler' });
      expect(guarded.status.status_message).toBe('URL host resolves to a loopback address (127.0.0.1); set allowPrivateHosts to ingest from internal hosts');
      // The target was refused before Firecrawl was asked to fetch it.
      expect(fakes.firecrawl.seen.length).toBe(before);
    });

    it('video_site: reads the captions of a youtu.be link into timestamped passages', async () => {
      const video = await ingest(strict, { url: 'https://youtu.be/kEttLe_0001?si=share', reader_id: 'video_site' });
      expect(video.status).toEqual({ id: video.id, status: 'completed', status_message: null });
      // The record takes the video title; any link form is the same content.
      expect(video.record).toMatchObject({ name: 'Descaling a copper kettle', type: 'video_site' });
      const again = await call(rt.url, 'POST', `/knowledge/content${strict}`, { body: { url: 'https://www.youtube.com/watch?v=kEttLe_0001', reader_id: 'video_site', write_mode: 'skip' } });
      expect(again.body.id).toBe(video.id);

      const hits = await hitsFor(rt.url, 'strict', 'limescale wipes');
      expect(hits[0]).toMatchObject({
        content_id: video.id,
        name: 'Descaling a copper kettle',
        meta_data: {
          video_id: 'kEttLe_0001',
          video_url: 'https://www.youtube.com/watch?v=kEttLe_0001',
          title: 'Descaling a copper kettle',
          author: 'Kitchen Workshop',
          language: 'en',
          captions: 'automatic',
          start_seconds: 61.2,
          timestamp: '1:01',
          timestamp_url: 'https://www.youtube.com/watch?v=kEttLe_0001&t=61s',
        },
      });
      // The page's caption URL points at youtube.com; it was fetched from the configured base.
      const captionCall = fakes.youtube.seen.find((s) => s.url.startsWith('/api/timedtext') && s.url.includes('kEttLe_0001'))!;
      expect(new URLSearchParams(captionCall.url.split('?')[1]).get('lang')).toBe('en');
      const lemon = await hitsFor(rt.url, 'strict', 'lemon juice');
      expect(lemon[0]!.content).toContain("Today we're descaling an old copper kettle with nothing but lemon juice & water");

      const loom = await ingest(strict, { url: 'https://www.youtube.com/shorts/LoomWeave-2', reader_id: 'video_site' });
      expect(loom.status.status).toBe('completed');
      expect((await hitsFor(rt.url, 'strict', 'heddles shuttle'))[0]).toMatchObject({ content_id: loom.id, meta_data: { captions: 'manual', timestamp: '0:01' } });
    });

    it('video_site: no captions and an unavailable video fail with that message; a link that is not a video is refused at once', async () => {
      const silent = await ingest(strict, { url: 'https://www.youtube.com/watch?v=noCaptions0', reader_id: 'video_site' });
      expect(silent.status.status_message).toBe('video_site reader: video noCaptions0 has no captions, so there is no transcript to read');
      const gone = await ingest(strict, { url: 'https://www.youtube.com/embed/goneVideo00', reader_id: 'video_site' });
      expect(gone.status.status_message).toBe('video_site reader: video goneVideo00 cannot be played (ERROR: Video unavailable)');
      const vimeo = await call(rt.url, 'POST', `/knowledge/content${strict}`, { body: { url: 'https://vimeo.com/123456', reader_id: 'video_site' } });
      expect(vimeo.status).toBe(400);
      expect(vimeo.body.detail).toBe('video_site reader: "https://vimeo.com/123456" is not a YouTube video URL (youtube.com/watch?v=..., youtu.be/..., /shorts/..., /embed/...)');
    });

    it('web_search: SearXNG results become documents; with fetch_pages the pages themselves are read', async () => {
      const site = fakes.site.url;
      const found = await ingest(web, { topic: 'compost heap', reader_id: 'web_search' });
      expect(found.status).toEqual({ id: found.id, status: 'completed', status_message: null });
      expect(found.record).toMatchObject({ name: 'compost heap', type: 'web_search' });
      expect(fakes.searxng.seen.at(-1)!.url).toBe('/search?q=compost+heap&format=json&pageno=1');
      const hits = await hitsFor(rt.url, 'web', 'citrus peel');
      expect(hits[0]).toMatchObject({
        content_id: found.id,
        name: 'Compost myths',
        meta_data: { url: `${site}/missing`, title: 'Compost myths', rank: 3, query: 'compost heap', source: 'web_search', search_engine: 'searxng:duckduckgo' },
      });

      const pages = await ingest(web, { topic: 'garden compost', reader_id: 'web_search', reader_options: { fetch_pages: true, max_results: 3 } });
      expect(pages.status.status).toBe('completed');
      expect(pages.status.status_message).toBe(`completed; skipped: ${site}/missing: ${site}/missing answered HTTP 404 Not Found (its snippet was kept)`);
      // "leeks" is only on the soil page itself, not in its snippet.
      const leeks = (await hitsFor(rt.url, 'web', 'leeks grit')).filter((h) => h.content_id === pages.id);
      expect(leeks[0]).toMatchObject({ meta_data: { url: `${site}/soil`, title: 'Soil', rank: 2 } });
      expect(leeks[0]!.content).toContain('clay holds water and needs grit worked into it before planting leeks');
    });

    it('web_search: Tavily with its key; no provider, a refused key, a topic without reader are clear', async () => {
      const tavily = await ingest('?knowledge_id=tavily', { topic: 'compost', reader_id: 'web_search' });
      expect(tavily.status.status).toBe('completed');
      expect(fakes.tavily.seen.at(-1)!.authorization).toBe(`Bearer ${TAVILY_KEY}`);
      expect(JSON.parse(fakes.tavily.seen.at(-1)!.body)).toMatchObject({ query: 'compost', max_results: 5 });
      expect((await hitsFor(rt.url, 'tavily', 'fortnight heap'))[0]).toMatchObject({ content_id: tavily.id, meta_data: { search_engine: 'tavily', rank: 1 } });

      const none = await ingest(bare, { topic: 'compost', reader_id: 'web_search' });
      expect(none.status.status_message).toBe(
        'The web_search reader has no search provider: set SEARXNG_BASE_URL (a SearXNG instance) or TAVILY_API_KEY, and WEB_SEARCH_PROVIDER to choose one',
      );
      const refused = await ingest(wrong, { topic: 'compost', reader_id: 'web_search' });
      expect(refused.status.status_message).toBe('Tavily answered HTTP 401: Unauthorized: missing or invalid API key. (check TAVILY_API_KEY)');
      const nothing = await ingest(web, { topic: 'deep sea vents', reader_id: 'web_search' });
      expect(nothing.status.status_message).toBe('web_search reader: searxng found nothing for "deep sea vents"');

      const noReader = await call(rt.url, 'POST', `/knowledge/content${web}`, { body: { topic: 'compost' } });
      expect(noReader.status).toBe(400);
      expect(noReader.body.detail).toBe('A topic needs a reader_id: web_search or preprint');
      const urlToSearch = await call(rt.url, 'POST', `/knowledge/content${web}`, { body: { url: 'https://example.org/', reader_id: 'web_search' } });
      expect(urlToSearch.body.detail).toBe('The web_search reader reads a topic (send the search query as topic), not a url');
    });

    it('preprint: arXiv abstracts by search, and a paper by id with its PDF', async () => {
      const searched = await ingest(strict, { topic: 'tidal memory', reader_id: 'preprint' });
      expect(searched.status).toEqual({ id: searched.id, status: 'completed', status_message: null });
      const query = new URLSearchParams(fakes.arxiv.seen.at(-1)!.url.split('?')[1]);
      expect(query.get('search_query')).toBe('all:tidal AND all:memory');
      expect(query.get('sortBy')).toBe('relevance');
      const periwinkle = await hitsFor(rt.url, 'strict', 'periwinkle index');
      expect(periwinkle[0]).toMatchObject({
        content_id: searched.id,
        name: 'Tidal Memory: Retrieval for Long-Running Agents',
        meta_data: {
          arxiv_id: '2401.01234',
          title: 'Tidal Memory: Retrieval for Long-Running Agents',
          authors: 'Ada Lindqvist, Bram Okafor',
          published: '2024-01-03T17:52:34Z',
          pdf_url: 'http://arxiv.org/pdf/2401.01234v2',
          abs_url: 'http://arxiv.org/abs/2401.01234v2',
          primary_category: 'cs.IR',
        },
      });

      const byId = await ingest(strict, { topic: '2401.01234', reader_id: 'preprint', reader_options: { include_pdf: true } });
      expect(byId.status.status).toBe('completed');
      expect(byId.record).toMatchObject({ name: 'Tidal Memory: Retrieval for Long-Running Agents', type: 'preprint' });
      expect(fakes.arxiv.seen.some((s) => s.url === '/pdf/2401.01234v2')).toBe(true);
      const tide = await hitsFor(rt.url, 'strict', 'spring tide rebuilt');
      // PDF pages are chunked as one text: the chunk holding the page-2 phrase ends on page 2.
      expect(tide[0]).toMatchObject({ content_id: byId.id, meta_data: { arxiv_id: '2401.01234', page_end: 2, pdf_url: `${fakes.arxiv.url}/pdf/2401.01234v2` } });
    });

    it('preprint: no papers fails the record; a malformed id or option is refused at once', async () => {
      const none = await ingest(strict, { topic: 'quantum gravity', reader_id: 'preprint' });
      expect(none.status.status_message).toBe('preprint reader: arXiv found no papers for "quantum gravity"');
      const badId = await call(rt.url, 'POST', `/knowledge/content${strict}`, { body: { topic: 'tides', reader_id: 'preprint', reader_options: { id_list: ['12345'] } } });
      expect(badId.status).toBe(400);
      expect(badId.body.detail).toBe('preprint reader: "12345" is not an arXiv id (e.g. 2401.01234 or hep-th/9901001)');
      const unknown = await call(rt.url, 'POST', `/knowledge/content${strict}`, { body: { topic: 'tides', reader_id: 'preprint', reader_options: '{"pdf": true}' } });
      expect(unknown.body.detail).toBe('preprint reader: unknown reader_options "pdf"; known: id_list, max_results, sort_by, include_pdf');
    });

    it('bucket: every object under a prefix, each read by the reader its extension picks, and one object', async () => {
      const prefix = await ingest(strict, { url: `s3://${BUCKET}/notes/`, reader_id: 'bucket' });
      expect(prefix.status.status).toBe('completed');
      // An empty object has nothing to read and is no child; a bad one fails only itself.
      expect(prefix.record).toMatchObject({ name: `s3://${BUCKET}/notes/`, type: 'bucket', chunks: 4, children: { processing: 0, completed: 2, failed: 1 } });
      expect(prefix.status.status_message).toBe('completed: 3 item(s): 2 read, 1 failed');
      const objects = await childrenOf(strict, prefix.id);
      expect(objects.map((o) => [o.source, o.name, o.status, o.type, o.chunks])).toEqual([
        [`s3://${BUCKET}/notes/broken.json`, 'notes/broken.json', 'failed', null, null],
        [`s3://${BUCKET}/notes/compost.md`, 'notes/compost.md', 'completed', 'markdown', 1],
        [`s3://${BUCKET}/notes/plots.csv`, 'notes/plots.csv', 'completed', 'csv', 3],
      ]);
      expect(objects[0]!.status_message).toBe(`s3://${BUCKET}/notes/broken.json: json reader: "broken.json" is not valid JSON (Unexpected end of JSON input)`);
      const bokashi = await hitsFor(rt.url, 'strict', 'bokashi ferments');
      expect(bokashi[0]).toMatchObject({ content_id: objects[1]!.id, meta_data: { bucket: BUCKET, key: 'notes/compost.md', url: `s3://${BUCKET}/notes/compost.md` } });
      // The CSV was read by the csv reader and chunked by rows (its default).
      const rhubarb = await hitsFor(rt.url, 'strict', 'rhubarb');
      expect(rhubarb[0]).toMatchObject({ content: '9, Lindqvist, rhubarb', meta_data: { key: 'notes/plots.csv' } });

      const single = await ingest(strict, { url: `s3://${BUCKET}/manual.pdf`, reader_id: 'bucket' });
      expect(single.status).toEqual({ id: single.id, status: 'completed', status_message: null });
      expect((await hitsFor(rt.url, 'strict', 'roof vents thermometer'))[0]).toMatchObject({ content_id: single.id, meta_data: { key: 'manual.pdf', page_end: 2 } });
    });

    it('bucket: a missing object, refused or missing credentials fail the record; a bad location is refused at once', async () => {
      const missing = await ingest(strict, { url: `s3://${BUCKET}/nope.txt`, reader_id: 'bucket' });
      expect(missing.status.status_message).toBe(`bucket reader: s3://${BUCKET}/nope.txt does not exist (NoSuchKey)`);
      const refused = await ingest(wrong, { url: `s3://${BUCKET}/manual.pdf`, reader_id: 'bucket' });
      expect(refused.status.status_message).toBe(`bucket reader: S3 refused access to s3://${BUCKET}/manual.pdf (InvalidAccessKeyId); check S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY`);
      const unset = await ingest(bare, { url: `s3://${BUCKET}/manual.pdf`, reader_id: 'bucket' });
      expect(unset.status.status_message).toBe(
        'The bucket reader is not configured: set S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY (with S3_ENDPOINT and S3_REGION for storage other than AWS)',
      );
      const badName = await call(rt.url, 'POST', `/knowledge/content${strict}`, { body: { url: 's3://Bad_Bucket/x', reader_id: 'bucket' } });
      expect(badName.status).toBe(400);
      expect(badName.body.detail).toBe('bucket reader: "Bad_Bucket" is not a valid bucket name (3-63 lower-case letters, digits, dots and hyphens)');
      const http = await call(rt.url, 'POST', `/knowledge/content${strict}`, { body: { url: 'http://example.org/x', reader_id: 'bucket' } });
      expect(http.body.detail).toBe('bucket reader: "http://example.org/x" is not an s3:// location (s3://bucket/key or s3://bucket/prefix/)');
    });

    it('no failed record repeats a credential, and no record is left processing', async () => {
      const listed = await call(rt.url, 'GET', `/knowledge/content${wrong}&limit=100`);
      const text = JSON.stringify(listed.body);
      for (const secret of ['fc-wrong-key-5555', 'tvly-wrong-key-6666', 'AKIAWRONGKEY7777', FIRECRAWL_KEY, TAVILY_KEY]) expect(text).not.toContain(secret);
      for (const query of [web, strict, wrong, bare, '?knowledge_id=tavily']) {
        const all = (await call(rt.url, 'GET', `/knowledge/content${query}&limit=100`)).body.data as { status: string }[];
        expect(all.filter((r) => r.status === 'processing'), query).toEqual([]);
      }
    });

    it('url: the registered reader for one page; a source reader refuses file content', async () => {
      const page = await ingest(web, { url: `${fakes.site.url}/soil`, reader_id: 'url' });
      expect(page.status.status).toBe('completed');
      expect(page.record).toMatchObject({ name: 'Soil', type: 'html', reader_id: 'url' });
      const text = await call(rt.url, 'POST', `/knowledge/content${web}`, { body: { text_content: 'hello', reader_id: 'website' } });
      expect(text.status).toBe(400);
      expect(text.body.detail).toBe('The website reader reads a url, not file content');
      const options = await call(rt.url, 'POST', `/knowledge/content${web}`, { body: { text_content: 'hello', reader_options: { max_pages: 1 } } });
      expect(options.body.detail).toBe('reader_options are for a url or topic read by a source reader');
    });

    it('Knowledge.insert reads sources for SDK users, with reader options', async () => {
      const sdk = new Knowledge({ id: 'sdk', store: openStore(kind, storeDb, 'ks_sdk'), readers: defaultReaders(environment()), urlFetch: { allowPrivateHosts: true } });
      try {
        const shallow = await sdk.insert({ url: `${fakes.site.url}/`, reader: 'website', readerOptions: { max_depth: 0 } });
        expect(shallow).toMatchObject({ name: 'Allotment handbook', reader: 'website', chunker: 'FixedSizeChunker', chunks: 1 });
        expect(shallow.notes).toBeUndefined();
        const papers = await sdk.insert({ topic: 'chunk boundaries', reader: 'PreprintReader' });
        expect(papers).toMatchObject({ name: 'chunk boundaries', reader: 'preprint', chunks: 1 });
        const hits = await sdk.search('lighthouse maintenance');
        expect(hits[0]).toMatchObject({ content_id: papers.content_id, meta_data: { arxiv_id: '2312.04567' } });
        await expect(sdk.insert({ url: `${fakes.site.url}/`, reader: 'website', readerOptions: { max_pages: 5000 } })).rejects.toThrow(
          'website reader: reader_options.max_pages must be a whole number from 1 to 10',
        );
      } finally {
        await sdk.store.close();
      }
    });
  });
}
