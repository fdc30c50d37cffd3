/**
 * URL content end to end, on SQLite and PostgreSQL: POST /knowledge/content with `url` fetches
 * pages from a loopback server in the background, reads each with the reader its content type
 * picks (HTML through Readability + turndown, markdown as is), and search finds them; a JSON
 * array of URLs makes one record per URL; a knowledge base with the default SSRF rules ends a
 * loopback URL as a `failed` record that says why, and so does every address that is not global
 * unicast (documentation, benchmarking, NAT64 of a private address, 6to4...), named by a test
 * resolver, on the first hop or after a redirect.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Knowledge } from '../src/knowledge/knowledge.js';
import { PostgresVectorStore } from '../src/knowledge/vector-stores/postgres/store.js';
import { SqliteVectorStore } from '../src/knowledge/vector-stores/sqlite/store.js';
import type { HostResolver } from '../src/net/safe-fetch.js';
import type { VectorStore } from '../src/knowledge/vector-stores/vector-store.js';
import type { Db } from '../src/storage/db.js';
import { testDatabaseKinds, type TestDatabase, type TestDatabaseKind } from './support/databases.js';
import { call } from './support/http.js';
import { settled, upload } from './support/knowledge-content.js';
import { startRuntime, type StartedRuntime } from './support/runtime.js';

const HTML = `<!doctype html><html><head><title>Kettle care</title></head><body>
<nav><a href="/">Home</a> <a href="/shop">Shop navigation link</a></nav>
<article><h1>Descaling a kettle</h1>
<p>Fill the kettle with equal parts water and vinegar, boil it, and leave it to soak for an hour.
Rinse it twice afterwards so the next cup of tea does not taste of vinegar.</p>
<h2>How often</h2><p>Descale every month in hard-water areas, every season elsewhere.</p></article>
<footer>Copyright footer text</footer></body></html>`;

const MARKDOWN = `# Bicycle chains

Clean the chain with degreaser and lubricate every derailleur pulley after wet rides.
`;

const PAGES: Record<string, { type: string; body: string }> = {
  '/kettle': { type: 'text/html; charset=utf-8', body: HTML },
  '/chains': { type: 'text/markdown', body: MARKDOWN },
  '/notes.txt': { type: 'text/plain', body: 'Sourdough starters are fed with flour and water daily.' },
};

let dir: string;
let pages: Server;
let site: string;
/** The paths the page server was asked for. */
const asked: string[] = [];

/** Test names for addresses that are not global unicast; anything else is unknown. */
const NAMES: Record<string, string> = {
  'docs.test': '192.0.2.10',
  'bench.test': '198.18.0.7',
  'nat64.test': '64:ff9b::a00:1',
  'tunnel.test': '2002:7f00:1::1',
  'mixed.test': '2606:4700:4700::1111',
};
const testNames: HostResolver = async (hostname) => {
  const address = NAMES[hostname];
  if (!address) throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
  // mixed.test answers a global address and a documentation one.
  const all = hostname === 'mixed.test' ? [address, '203.0.113.5'] : [address];
  return all.map((a) => ({ address: a, family: a.includes(':') ? (6 as const) : (4 as const) }));
};

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'svc-kurl-'));
  pages = createServer((req, res) => {
    asked.push(req.url ?? '');
    if (req.url?.startsWith('/hop?to=')) {
      res.writeHead(302, { location: new URL(req.url, 'http://x').searchParams.get('to')! });
      res.end();
      return;
    }
    const page = PAGES[req.url ?? ''];
    if (!page) {
      res.writeHead(404);
      res.end();
      return;
    }
    res.writeHead(200, { 'content-type': page.type });
    res.end(page.body);
  });
  await new Promise<void>((resolve) => pages.listen(0, '127.0.0.1', resolve));
  site = `http://127.0.0.1:${(pages.address() as AddressInfo).port}`;
});
afterAll(async () => {
  pages?.closeAllConnections();
  await new Promise((resolve) => pages?.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

function openStore(kind: TestDatabaseKind, db: Db | undefined, table: string): VectorStore {
  if (kind.kind === 'sqlite') return new SqliteVectorStore({ path: join(dir, `${table}-${kind.kind}.db`), table });
  return new PostgresVectorStore({ db: db!, table });
}

for (const kind of testDatabaseKinds) {
  describe.runIf(kind.available)(`knowledge URL content on ${kind.kind}`, () => {
    let database: TestDatabase | undefined;
    let storeDb: Db | undefined;
    let stores: VectorStore[] = [];
    let rt: StartedRuntime;
    const intranet = '?knowledge_id=intranet';
    const strict = '?knowledge_id=strict';
    const resolved = '?knowledge_id=resolved';

    beforeAll(async () => {
      if (kind.kind === 'postgres') {
        database = await kind.create();
        storeDb = database.open();
      }
      stores = [openStore(kind, storeDb, 'ku_intranet'), openStore(kind, storeDb, 'ku_strict'), openStore(kind, storeDb, 'ku_resolved')];
      const open = new Knowledge({ id: 'intranet', store: stores[0]!, urlFetch: { allowPrivateHosts: true } });
      const guarded = new Knowledge({ id: 'strict', store: stores[1]! });
      // The page server (127.0.0.1) is allowed by name; the test names are resolved by the table.
      const named = new Knowledge({ id: 'resolved', store: stores[2]!, urlFetch: { allowPrivateHosts: ['127.0.0.1'], resolve: testNames } });
      rt = await startRuntime(kind, { knowledge: [open, guarded, named] });
    });
    afterAll(async () => {
      await rt?.stop();
      for (const s of stores) await s.close();
      await storeDb?.close();
      await database?.cleanup();
    });

    it('ingests an HTML page and a markdown page from an allowed host, and search finds them', async () => {
      const html = await call(rt.url, 'POST', `/knowledge/content${intranet}`, { body: { url: `${site}/kettle`, metadata: { area: 'home' } } });
      expect(html.status).toBe(202);
      expect(html.body).toEqual({ id: expect.any(String), name: `${site}/kettle`, description: null, metadata: { area: 'home' }, status: 'processing' });
      const md = await upload(rt.url, `/knowledge/content${intranet}`, { url: `${site}/chains`, name: 'Chains' });
      expect(md.status).toBe(202);
      expect(await settled(rt.url, html.body.id, intranet)).toEqual({ id: html.body.id, status: 'completed', status_message: null });
      expect((await settled(rt.url, md.body.id, intranet)).status).toBe('completed');

      // The record takes the page title; the reader follows the content type.
      const record = await call(rt.url, 'GET', `/knowledge/content/${html.body.id}${intranet}`);
      expect(record.body).toMatchObject({ name: 'Kettle care', type: 'html', size: Buffer.byteLength(HTML), status: 'completed' });
      expect((await call(rt.url, 'GET', `/knowledge/content/${md.body.id}${intranet}`)).body).toMatchObject({ name: 'Chains', type: 'markdown' });

      const kettle = await call(rt.url, 'POST', '/knowledge/search', { body: { query: 'vinegar soak', knowledge_id: 'intranet' } });
      expect(kettle.status).toBe(200);
      expect(kettle.body.data.length).toBeGreaterThan(0);
      expect(kettle.body.data[0]).toMatchObject({ content_id: html.body.id, name: 'Kettle care', meta_data: { url: `${site}/kettle`, area: 'home', title: 'Kettle care' } });
      const texts = kettle.body.data.map((hit: { content: string }) => hit.content).join('\n');
      expect(texts).toContain('equal parts water and vinegar');
      expect(texts).not.toContain('Copyright footer text');

      const chains = await call(rt.url, 'POST', '/knowledge/search', { body: { query: 'derailleur degreaser', knowledge_id: 'intranet' } });
      expect(chains.body.data[0]).toMatchObject({ content_id: md.body.id, name: 'Chains', meta_data: { url: `${site}/chains` } });
      expect(chains.body.data[0].content).toContain('lubricate every derailleur pulley');
    });

    it('makes one record per URL of a JSON array', async () => {
      const res = await upload(rt.url, `/knowledge/content${intranet}`, { url: JSON.stringify([`${site}/notes.txt`, `${site}/missing`]) });
      expect(res.status).toBe(202);
      expect(res.body).toHaveLength(2);
      const [notes, missing] = res.body as { id: string; name: string; status: string }[];
      expect(notes).toMatchObject({ name: `${site}/notes.txt`, status: 'processing' });
      expect(missing).toMatchObject({ name: `${site}/missing`, status: 'processing' });
      expect(notes!.id).not.toBe(missing!.id);
      expect(await settled(rt.url, notes!.id, intranet)).toEqual({ id: notes!.id, status: 'completed', status_message: null });
      expect(await settled(rt.url, missing!.id, intranet)).toEqual({ id: missing!.id, status: 'failed', status_message: `${site}/missing answered HTTP 404 Not Found` });
      const hits = await call(rt.url, 'POST', '/knowledge/search', { body: { query: 'sourdough starters', knowledge_id: 'intranet' } });
      expect(hits.body.data[0]).toMatchObject({ content_id: notes!.id, meta_data: { url: `${site}/notes.txt` } });
    });

    it('fails a loopback URL under the default rules, and refuses malformed URLs up front', async () => {
      const res = await call(rt.url, 'POST', `/knowledge/content${strict}`, { body: { url: `${site}/kettle` } });
      expect(res.status).toBe(202);
      expect(await settled(rt.url, res.body.id, strict)).toEqual({
        id: res.body.id,
        status: 'failed',
        status_message: 'URL host resolves to a loopback address (127.0.0.1); set allowPrivateHosts to ingest from internal hosts',
      });
      const none = await call(rt.url, 'POST', '/knowledge/search', { body: { query: 'vinegar', knowledge_id: 'strict' } });
      expect(none.body.data).toEqual([]);

      for (const [url, message] of [
        ['file:///etc/passwd', 'Only http and https URLs can be fetched, not file'],
        ['not a url', '"not a url" is not a valid URL'],
        ['[1, 2]', 'url must be a URL or a non-empty JSON array of URLs'],
        ['[', 'url must be a URL or a JSON array of URLs'],
        [JSON.stringify(Array.from({ length: 21 }, (_, i) => `${site}/p${i}`)), 'url lists 21 URLs; send at most 20 per request'],
      ] as const) {
        const refused = await call(rt.url, 'POST', `/knowledge/content${strict}`, { body: { url } });
        expect(refused.status, url).toBe(400);
        expect(refused.body.detail, url).toBe(message);
      }
      const both = await call(rt.url, 'POST', `/knowledge/content${strict}`, { body: { url: `${site}/kettle`, text_content: 'x' } });
      expect(both.status).toBe(400);
      const listed = await call(rt.url, 'GET', `/knowledge/content${strict}`);
      expect(listed.body.meta.total_count).toBe(1);
    });

    it('fails a URL at any address that is not global unicast, naming its class, on the first hop or after a redirect', async () => {
      const port = new URL(site).port;
      const internal = '; set allowPrivateHosts to ingest from internal hosts';
      const never = ', which is never fetched: only global unicast addresses are';
      asked.length = 0;
      for (const [url, message, reader] of [
        ['http://docs.test/kettle', `URL host resolves to a documentation address (192.0.2.10)${internal}`],
        ['http://bench.test/kettle', `URL host resolves to a benchmarking address (198.18.0.7)${internal}`],
        ['http://nat64.test/kettle', `URL host resolves to a NAT64 of 10.0.0.1 (private) address (64:ff9b::a00:1)${internal}`],
        ['http://tunnel.test/kettle', `URL host resolves to a 6to4 of 127.0.0.1 (loopback) address (2002:7f00:1::1)${never}`],
        ['http://mixed.test/kettle', `URL host resolves to a documentation address (203.0.113.5)${internal}`],
        ['http://[2001:DB8::1]/kettle', `URL host resolves to a documentation address (2001:db8::1)${internal}`],
        ['http://3221225994/kettle', `URL host resolves to a documentation address (192.0.2.10)${internal}`],
        [`${site}/hop?to=${encodeURIComponent(`http://docs.test:${port}/kettle`)}`, `URL host resolves to a documentation address (192.0.2.10)${internal}`],
        [`${site}/hop?to=${encodeURIComponent(`http://[64:ff9b::7f00:1]:${port}/kettle`)}`, `URL host resolves to a NAT64 of 127.0.0.1 (loopback) address (64:ff9b::7f00:1)${internal}`],
        ['http://docs.test/', `URL host resolves to a documentation address (192.0.2.10)${internal}`, 'website'],
      ] as const) {
        const res = await call(rt.url, 'POST', `/knowledge/content${resolved}`, { body: { url, ...(reader ? { reader_id: reader } : {}) } });
        expect(res.status, url).toBe(202);
        expect(await settled(rt.url, res.body.id, resolved), url).toEqual({ id: res.body.id, status: 'failed', status_message: message });
      }
      // Only the redirects themselves reached the page server; no refused hop was asked.
      expect(asked.every((path) => path.startsWith('/hop?to='))).toBe(true);
      expect(asked).toHaveLength(2);
      const none = await call(rt.url, 'POST', '/knowledge/search', { body: { query: 'vinegar', knowledge_id: 'resolved' } });
      expect(none.body.data).toEqual([]);
    });

    it('Knowledge.insert({ url }) ingests for SDK users', async () => {
      const sdk = new Knowledge({ id: 'sdk', store: openStore(kind, storeDb, 'ku_sdk'), urlFetch: { allowPrivateHosts: ['127.0.0.1'] } });
      const guarded = new Knowledge({ id: 'sdk2', store: openStore(kind, storeDb, 'ku_sdk2') });
      try {
        const result = await sdk.insert({ url: `${site}/kettle` });
        expect(result).toMatchObject({ name: 'Kettle care', reader: 'html', chunker: 'MarkdownChunker', size: Buffer.byteLength(HTML) });
        expect(result.chunks).toBeGreaterThan(0);
        const hits = await sdk.search('hard-water areas');
        expect(hits[0]).toMatchObject({ content_id: result.content_id, meta_data: { url: `${site}/kettle` } });
        await expect(guarded.insert({ url: `${site}/kettle` })).rejects.toThrow(
          'URL host resolves to a loopback address (127.0.0.1); set allowPrivateHosts to ingest from internal hosts',
        );
      } finally {
        await sdk.store.close();
        await guarded.store.close();
      }
    });
  });
}
