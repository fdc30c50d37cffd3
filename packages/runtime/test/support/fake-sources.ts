/**
 * Loopback stand-ins for what the source readers reach, one HTTP server each, speaking the
 * real wire formats (see source-fixtures.ts for where each shape comes from): a small website
 * with robots.txt, Firecrawl's v2 API, YouTube's watch page and timedtext, SearXNG, Tavily and
 * arXiv's query API (plus PDFs). Each server records the requests it got, so tests can check
 * what was (and was not) fetched and which credentials were sent.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pdfWithPages } from './office-fixtures.js';
import {
  arxivErrorFeed,
  arxivFeed,
  classicTimedtext,
  firecrawlDocument,
  json3Timedtext,
  PAPERS,
  searxngAnswer,
  srv3Timedtext,
  tavilyAnswer,
  watchPage,
  type Caption,
  type FakeHit,
  type FakeVideo,
} from './source-fixtures.js';

export interface Seen {
  method: string;
  /** Path and query. */
  url: string;
  host: string;
  authorization: string | undefined;
  body: string;
}

export interface FakeService {
  url: string;
  seen: Seen[];
}

export interface FakeSources {
  site: FakeService;
  firecrawl: FakeService;
  youtube: FakeService;
  searxng: FakeService;
  tavily: FakeService;
  arxiv: FakeService;
  close(): Promise<void>;
}

export const FIRECRAWL_KEY = 'fc-loopback-0123456789';
export const TAVILY_KEY = 'tvly-loopback-0123456789';

type Handler = (req: IncomingMessage, res: ServerResponse, body: string, self: FakeService) => void;

async function serve(handler: Handler): Promise<{ service: FakeService; server: Server }> {
  const service: FakeService = { url: '', seen: [] };
  const server = createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (p: Buffer) => parts.push(p));
    req.on('end', () => {
      const body = Buffer.concat(parts).toString('utf8');
      service.seen.push({ method: req.method ?? '', url: req.url ?? '/', host: req.headers.host ?? '', authorization: req.headers.authorization, body });
      handler(req, res, body, service);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  service.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { service, server };
}

function send(res: ServerResponse, status: number, type: string, body: string | Uint8Array): void {
  res.writeHead(status, { 'content-type': type });
  res.end(body);
}

const json = (res: ServerResponse, status: number, body: unknown) => send(res, status, 'application/json; charset=utf-8', JSON.stringify(body));

// ---------------------------------------------------------------- the website

const page = (title: string, body: string) =>
  `<!doctype html><html><head><title>${title}</title></head><body><nav><a href="/">Home</a></nav><article><h1>${title}</h1>${body}</article><footer>Site footer</footer></body></html>`;

/** The garden site: pages by path; `closed.test` as host name is a second site that disallows all. */
export const SITE_PAGES: Record<string, string> = {
  '/': page(
    'Allotment handbook',
    `<p>Turn the compost heap every fortnight so the middle stays warm and sweet-smelling.</p>
     <ul><li><a href="/soil">Soil</a></li><li><a href="/tools?utm_source=newsletter#sharpening">Tools</a></li>
     <li><a href="/private/ledger">Ledger</a></li><li><a href="https://elsewhere.example/offsite">Elsewhere</a></li>
     <li><a href="/soil#drainage">Soil drainage</a></li><li><a href="/missing">Missing page</a></li>
     <li><a href="/seeds.pdf">Seed catalogue</a></li><li><a href="mailto:plots@example.org">Mail</a></li></ul>`,
  ),
  '/soil': page('Soil', '<p>Loam crumbles in the hand; clay holds water and needs grit worked into it before planting leeks.</p><p><a href="/soil/worms">Worms</a> <a href="/">Back</a></p>'),
  '/soil/worms': page('Worms', '<p>Earthworm castings are the richest part of any bed; leave the worms undisturbed in winter.</p>'),
  '/tools': page('Tools', '<p>Sharpen the spade on a whetstone each spring, and oil the hinges of the shears.</p>'),
  '/private/ledger': page('Ledger', '<p>Secret plot fees that robots.txt keeps out of any crawl.</p>'),
};

const siteHandler: Handler = (req, res) => {
  const url = new URL(req.url ?? '/', 'http://x');
  const closed = (req.headers.host ?? '').startsWith('closed.test');
  if (url.pathname === '/robots.txt') {
    if (closed) return send(res, 200, 'text/plain', 'User-agent: *\nDisallow: /\n');
    return send(res, 200, 'text/plain', '# Garden rules\nUser-agent: *\nDisallow: /private/\n\nUser-agent: greedybot\nDisallow: /\n');
  }
  const html = SITE_PAGES[url.pathname];
  if (!html) return send(res, 404, 'text/html', '<h1>Not found</h1>');
  send(res, 200, 'text/html; charset=utf-8', html);
};

// ---------------------------------------------------------------- Firecrawl

/** What Firecrawl "scrapes" for each path of the site (the fake never fetches the site). */
const FIRECRAWL_PAGES: Record<string, { title: string; markdown: string }> = {
  '/': { title: 'Lighthouse keeping', markdown: '# Lighthouse keeping\n\nPolish the Fresnel lens at dawn and trim the wick before dusk.' },
  '/log': { title: 'Keeper log', markdown: '# Keeper log\n\nFog horn sounded four times during the equinox gale.' },
  '/stores': { title: 'Stores', markdown: '# Stores\n\nParaffin is kept in the stone shed, away from the lamp room.' },
};

/** A page as Firecrawl returns it; one it does not know the site answered with 404. */
function scraped(target: string): Record<string, unknown> {
  const known = FIRECRAWL_PAGES[new URL(target).pathname];
  return firecrawlDocument(known ? { url: target, ...known } : { url: target, title: 'Not Found', markdown: '', statusCode: 404 });
}

function firecrawlHandler(): Handler {
  const polls = new Map<string, number>();
  const crawls = new Map<string, { url: string; limit: number }>();
  return (req, res, body, self) => {
    if (req.headers.authorization !== `Bearer ${FIRECRAWL_KEY}`) return json(res, 401, { success: false, error: 'Unauthorized: Invalid token' });
    const url = new URL(req.url ?? '/', 'http://x');
    if (req.method === 'POST' && url.pathname === '/v2/scrape') {
      const request = JSON.parse(body) as { url: string; formats: string[] };
      if (!Array.isArray(request.formats) || !request.formats.includes('markdown')) return json(res, 400, { success: false, error: 'Bad Request', details: [] });
      return json(res, 200, { success: true, data: scraped(request.url) });
    }
    if (req.method === 'POST' && url.pathname === '/v2/crawl') {
      const request = JSON.parse(body) as { url: string; limit: number };
      const id = `0b4a7c2e-5d1f-4e8a-9c3b-${String(polls.size + 1).padStart(12, '0')}`;
      polls.set(id, 0);
      crawls.set(id, request);
      return json(res, 200, { success: true, id, url: `${self.url}/v2/crawl/${id}` });
    }
    const status = /^\/v2\/crawl\/([0-9a-f-]+)$/.exec(url.pathname);
    if (req.method === 'GET' && status) {
      const id = status[1]!;
      const crawl = crawls.get(id);
      if (!crawl) return json(res, 404, { success: false, error: 'Job not found' });
      const n = polls.get(id)! + 1;
      polls.set(id, n);
      const common = { total: 3, creditsUsed: 3, expiresAt: '2026-01-01T00:00:00.000Z' };
      // First poll: still running. Then the data, in two pages linked by `next`.
      if (n === 1) return json(res, 200, { success: true, status: 'scraping', completed: 1, ...common, data: [] });
      const origin = new URL(crawl.url).origin;
      const all = [scraped(`${origin}/`), scraped(`${origin}/log`), scraped(`${origin}/gone`), scraped(`${origin}/stores`)].slice(0, crawl.limit + 1);
      if (url.searchParams.get('skip') === '2') return json(res, 200, { success: true, status: 'completed', completed: 3, ...common, next: null, data: all.slice(2) });
      return json(res, 200, { success: true, status: 'completed', completed: 3, ...common, next: `${self.url}/v2/crawl/${id}?skip=2`, data: all.slice(0, 2) });
    }
    json(res, 404, { success: false, error: 'Not found' });
  };
}

// ---------------------------------------------------------------- YouTube

const KETTLE_CAPTIONS: Caption[] = [
  { start: 0.4, dur: 3.1, text: "Today we're descaling an old copper kettle" },
  { start: 3.5, dur: 4.2, text: 'with nothing but lemon juice & water' },
  { start: 61.2, dur: 3.9, text: 'after an hour the limescale simply wipes away' },
  { start: 125.8, dur: 2.6, text: 'rinse it twice before the next brew' },
];
const LOOM_CAPTIONS: Caption[] = [
  { start: 1, dur: 2.5, text: 'The warp threads are tied to the back beam' },
  { start: 4, dur: 3, text: 'then the heddles lift every other thread for the shuttle' },
];

export const VIDEOS: FakeVideo[] = [
  {
    id: 'kEttLe_0001',
    title: 'Descaling a copper kettle',
    author: 'Kitchen Workshop',
    tracks: [
      { lang: 'de', name: 'German', asr: false, format: 'classic' },
      { lang: 'en', name: 'English (auto-generated)', asr: true, format: 'classic' },
    ],
  },
  { id: 'LoomWeave-2', title: 'Weaving on a floor loom', author: 'Fibre Arts', tracks: [{ lang: 'en', name: 'English', asr: false, format: 'json3' }] },
  { id: 'Srv3Format3', title: 'Weaving, format 3', author: 'Fibre Arts', tracks: [{ lang: 'en', name: 'English', asr: true, format: 'srv3' }] },
  { id: 'noCaptions0', title: 'A silent film', author: 'Archive', tracks: [] },
  { id: 'goneVideo00', title: '', author: '', tracks: [], playability: { status: 'ERROR', reason: 'Video unavailable' } },
];

const youtubeHandler: Handler = (req, res) => {
  const url = new URL(req.url ?? '/', 'http://x');
  if (url.pathname === '/watch') {
    const video = VIDEOS.find((v) => v.id === url.searchParams.get('v'));
    return send(res, 200, 'text/html; charset=utf-8', watchPage(video));
  }
  if (url.pathname === '/api/timedtext') {
    const id = url.searchParams.get('v');
    const lang = url.searchParams.get('lang');
    if (!url.searchParams.get('signature')) return send(res, 200, 'text/xml; charset=UTF-8', '');
    const captions = id === 'kEttLe_0001' ? (lang === 'en' ? KETTLE_CAPTIONS : [{ start: 0, dur: 2, text: 'Heute entkalken wir einen Kessel' }]) : LOOM_CAPTIONS;
    const fmt = url.searchParams.get('fmt');
    if (fmt === 'json3') return send(res, 200, 'application/json; charset=UTF-8', json3Timedtext(captions));
    if (fmt === 'srv3') return send(res, 200, 'text/xml; charset=UTF-8', srv3Timedtext(captions));
    return send(res, 200, 'text/xml; charset=UTF-8', classicTimedtext(captions));
  }
  send(res, 404, 'text/html', 'Not found');
};

// ---------------------------------------------------------------- search

function hitsFor(query: string, site: string): FakeHit[] {
  if (!/compost|garden/i.test(query)) return [];
  return [
    { url: `${site}/`, title: 'Allotment handbook', content: 'Turn the compost heap every fortnight so the middle stays warm.' },
    { url: `${site}/soil`, title: 'Soil', content: 'Loam crumbles in the hand; clay holds water.' },
    { url: `${site}/missing`, title: 'Compost myths', content: 'Citrus peel does not ruin a compost heap if it is chopped small.' },
    { url: 'magnet:?xt=urn:btih:c12fe1c06bba254a9dc9f519b335aa7c1367a88a', title: 'Not a web page', content: 'Ignored.' },
  ];
}

function searxngHandler(site: () => string): Handler {
  return (req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (url.pathname !== '/search') return send(res, 404, 'text/html', 'Not found');
    // An instance without `json` in search.formats answers 403 to format=json.
    if (url.searchParams.get('format') !== 'json') return send(res, 403, 'text/html', '<h1>403 Forbidden</h1>');
    const q = url.searchParams.get('q') ?? '';
    json(res, 200, searxngAnswer(q, hitsFor(q, site())));
  };
}

function tavilyHandler(site: () => string): Handler {
  return (req, res, body) => {
    if (req.method !== 'POST' || new URL(req.url ?? '/', 'http://x').pathname !== '/search') return json(res, 404, { detail: { error: 'Not Found' } });
    if (req.headers.authorization !== `Bearer ${TAVILY_KEY}`) return json(res, 401, { detail: { error: 'Unauthorized: missing or invalid API key.' } });
    const request = JSON.parse(body) as { query: string; max_results?: number };
    json(res, 200, tavilyAnswer(request.query, hitsFor(request.query, site()).slice(0, request.max_results ?? 5)));
  };
}

// ---------------------------------------------------------------- arXiv

const arxivHandler: Handler = (req, res) => {
  const url = new URL(req.url ?? '/', 'http://x');
  const pdf = /^\/pdf\/(.+)$/.exec(url.pathname);
  if (pdf) {
    const paper = PAPERS.find((p) => `${p.id}${p.version}` === pdf[1]);
    if (!paper) return send(res, 404, 'text/html', 'Not found');
    return send(res, 200, 'application/pdf', pdfWithPages([[paper.title.replace(/\s+/g, ' ')], ['Section 2. The periwinkle index is rebuilt at every spring tide.']]));
  }
  if (url.pathname !== '/api/query') return send(res, 404, 'text/html', 'Not found');
  const ids = (url.searchParams.get('id_list') ?? '').split(',').filter(Boolean);
  const query = url.searchParams.get('search_query') ?? '';
  const bad = ids.find((id) => !/^\d{4}\.\d{4,5}(v\d+)?$/.test(id));
  if (bad) return send(res, 400, 'application/atom+xml; charset=utf-8', arxivErrorFeed(bad));
  let papers = PAPERS;
  if (ids.length > 0) papers = papers.filter((p) => ids.some((id) => id === p.id || id === `${p.id}${p.version}`));
  if (query) {
    const terms = query
      .split(/\s+AND\s+/)
      .map((t) => t.replace(/^all:/, '').toLowerCase())
      .filter(Boolean);
    papers = papers.filter((p) => terms.every((t) => `${p.title} ${p.summary}`.toLowerCase().includes(t)));
  }
  const max = Number(url.searchParams.get('max_results') ?? '10');
  send(res, 200, 'application/atom+xml; charset=utf-8', arxivFeed(url.search.slice(1), papers.slice(0, max)));
};

export async function startFakeSources(): Promise<FakeSources> {
  const site = await serve(siteHandler);
  const firecrawl = await serve(firecrawlHandler());
  const youtube = await serve(youtubeHandler);
  const searxng = await serve(searxngHandler(() => site.service.url));
  const tavily = await serve(tavilyHandler(() => site.service.url));
  const arxiv = await serve(arxivHandler);
  const servers = [site, firecrawl, youtube, searxng, tavily, arxiv];
  return {
    site: site.service,
    firecrawl: firecrawl.service,
    youtube: youtube.service,
    searxng: searxng.service,
    tavily: tavily.service,
    arxiv: arxiv.service,
    async close() {
      for (const { server } of servers) {
        server.closeAllConnections();
        await new Promise((resolve) => server.close(resolve));
      }
    },
  };
}
