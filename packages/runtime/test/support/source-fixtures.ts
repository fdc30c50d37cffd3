/**
 * Payloads for the source readers' tests, in the shapes the real services send. The structure
 * (element and field names, nesting, escaping) follows recorded answers and the services'
 * published references; the words are our own:
 *
 * - YouTube watch page: the `var ytInitialPlayerResponse = {...};var meta = ...` script of a
 *   recorded watch page (the test assets of jdepoix/youtube-transcript-api, youtube.html.static):
 *   `playabilityStatus`, `captions.playerCaptionsTracklistRenderer.captionTracks[]` (`baseUrl`
 *   on www.youtube.com/api/timedtext with `\u0026`-escaped ampersands, `name.simpleText`,
 *   `vssId`, `languageCode`, `kind: "asr"`, `isTranslatable`, `trackName`), `audioTracks`,
 *   `translationLanguages`, `videoDetails`.
 * - Timedtext: the classic XML of the same assets (transcript.xml.static: `<transcript><text
 *   start dur>`), format 3 (`<timedtext format="3"><body><p t d><s>`), and `fmt=json3`
 *   (`wireMagic`, `pens`, `events[].tStartMs/dDurationMs/segs[].utf8`, window events without segs).
 * - arXiv: an Atom answer of export.arxiv.org/api/query as recorded (feed `link`/`title`/`id`/
 *   `updated`, `opensearch:*` with their namespace on each element, entries with `id`,
 *   `updated`, `published`, `title`, `summary`, `author/name`, `arxiv:comment`, `link`
 *   alternate and `title="pdf"`, `arxiv:primary_category`, `category`), and its error entry
 *   (arXiv API user manual, "Errors").
 * - Firecrawl: the v1/v2 OpenAPI documents of firecrawl/firecrawl (`ScrapeResponse`,
 *   `CrawlResponse`, `CrawlStatusResponseObj`, the `{success:false, error}` refusals).
 * - SearXNG: `/search?format=json` (query, number_of_results, results[] with url, title,
 *   content, engine, engines, parsed_url, template, positions, score, category, publishedDate,
 *   plus answers, corrections, infoboxes, suggestions, unresponsive_engines).
 * - Tavily: POST /search (query, follow_up_questions, answer, images, results[] with url, title,
 *   content, score, raw_content, response_time, request_id; 401 `{detail: {error}}`).
 */

// ---------------------------------------------------------------- YouTube

export interface FakeVideo {
  id: string;
  title: string;
  author: string;
  /** Caption tracks; none means the video has no captions. */
  tracks: { lang: string; name: string; asr: boolean; format: 'classic' | 'srv3' | 'json3' }[];
  playability?: { status: string; reason: string };
}

/** A track's baseUrl as the page gives it: on www.youtube.com, signed, with `lang`. */
export function timedtextUrl(videoId: string, lang: string, asr: boolean, format: 'classic' | 'srv3' | 'json3'): string {
  const params = new URLSearchParams({
    v: videoId,
    ei: 'xZ1JaJX5GKKXsvQPv4PxmAM',
    ...(asr ? { caps: 'asr' } : {}),
    opi: '112496729',
    xoaf: '5',
    hl: 'en',
    ip: '0.0.0.0',
    ipbits: '0',
    expire: '1749680181',
    sparams: 'ip,ipbits,expire,v,ei,caps,opi,xoaf',
    signature: '6A611CDC50DBD2B428E482AFC7E0D034DD29F744.A97811DFD338429D0B376D0E82C6EF86FFE12E63',
    key: 'yt8',
    ...(asr ? { kind: 'asr' } : {}),
    lang,
    ...(format === 'srv3' ? { fmt: 'srv3' } : format === 'json3' ? { fmt: 'json3' } : {}),
  });
  return `https://www.youtube.com/api/timedtext?${params.toString()}`;
}

export function playerResponse(video: FakeVideo): Record<string, unknown> {
  const captions =
    video.tracks.length === 0
      ? {}
      : {
          captions: {
            playerCaptionsTracklistRenderer: {
              captionTracks: video.tracks.map((t) => ({
                baseUrl: timedtextUrl(video.id, t.lang, t.asr, t.format),
                name: { simpleText: t.name },
                vssId: `${t.asr ? 'a' : ''}.${t.lang}`,
                languageCode: t.lang,
                ...(t.asr ? { kind: 'asr' } : {}),
                isTranslatable: true,
                trackName: '',
              })),
              audioTracks: [{ captionTrackIndices: video.tracks.map((_, i) => i), defaultCaptionTrackIndex: 0, hasDefaultTrack: true, captionsInitialState: 'CAPTIONS_INITIAL_STATE_OFF_RECOMMENDED' }],
              translationLanguages: [{ languageCode: 'af', languageName: { simpleText: 'Afrikaans' } }],
              defaultAudioTrackIndex: 0,
            },
          },
        };
  return {
    responseContext: { serviceTrackingParams: [{ service: 'GFEEDBACK', params: [{ key: 'is_viewed_live', value: 'False' }] }] },
    playabilityStatus: video.playability ? { status: video.playability.status, reason: video.playability.reason } : { status: 'OK', playableInEmbed: true },
    ...captions,
    videoDetails: {
      videoId: video.id,
      title: video.title,
      lengthSeconds: '316',
      keywords: ['kitchen', 'kettle'],
      channelId: 'UCVYamHliCI9rw1tHR1xbkfw',
      isOwnerViewing: false,
      shortDescription: 'A short film about kitchen care.',
      isCrawlable: true,
      author: video.author,
      isPrivate: false,
      isLiveContent: false,
    },
  };
}

/** A watch page: the player response in a script, with the page's escaping of `&`. */
export function watchPage(video: FakeVideo | undefined): string {
  const head = '<!DOCTYPE html><html style="font-size: 10px;font-family: Roboto, Arial, sans-serif;" lang="en"><head><title>YouTube</title></head><body>';
  if (!video) return `${head}<script nonce="n1">var ytInitialData = {"contents":{}};</script></body></html>`;
  const json = JSON.stringify(playerResponse(video)).replace(/&/g, '\\u0026');
  return `${head}<script nonce="n1">var ytInitialPlayerResponse = ${json};var meta = document.createElement('meta'); meta.name = 'referrer'; meta.content = 'origin-when-cross-origin'; document.getElementsByTagName('head')[0].appendChild(meta);</script><div id="player"></div></body></html>`;
}

export interface Caption {
  start: number;
  dur: number;
  text: string;
}

/** Caption text as the classic XML escapes it: twice for an apostrophe (`&amp;#39;`). */
function escapeCaption(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/'/g, '&amp;#39;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** The classic XML; the text escapes its entities twice, as YouTube's does (`&amp;#39;`). */
export function classicTimedtext(captions: readonly Caption[]): string {
  return `<?xml version="1.0" encoding="utf-8" ?><transcript>${captions.map((c) => `<text start="${c.start}" dur="${c.dur}">${escapeCaption(c.text)}</text>`).join('')}</transcript>`;
}

/** Format 3 XML: milliseconds, words of automatic captions in `<s>`. */
export function srv3Timedtext(captions: readonly Caption[]): string {
  const body = captions
    .map((c) => {
      const words = c.text.split(' ');
      return `<p t="${Math.round(c.start * 1000)}" d="${Math.round(c.dur * 1000)}" w="1">${words.map((w, i) => `<s${i > 0 ? ` t="${i * 240}" ac="0"` : ' ac="0"'}>${i > 0 ? ' ' : ''}${w}</s>`).join('')}</p>`;
    })
    .join('\n');
  return `<?xml version="1.0" encoding="utf-8" ?><timedtext format="3">\n<head><ws id="0"/><wp id="0"/></head>\n<body>\n${body}\n</body>\n</timedtext>`;
}

export function json3Timedtext(captions: readonly Caption[]): string {
  return JSON.stringify({
    wireMagic: 'pb3',
    pens: [{}],
    wsWinStyles: [{}, { mhModeHint: 2, juJustifCode: 0, sdScrollDir: 3 }],
    wpWinPositions: [{}, { apPoint: 6, ahHorPos: 20, avVerPos: 100, rcRows: 2, ccCols: 40 }],
    events: [
      { tStartMs: 0, dDurationMs: 600000, id: 1, wpWinPosId: 1, wsWinStyleId: 1 },
      ...captions.flatMap((c) => [
        {
          tStartMs: Math.round(c.start * 1000),
          dDurationMs: Math.round(c.dur * 1000),
          wWinId: 1,
          segs: c.text.split(' ').map((w, i) => (i === 0 ? { utf8: w, acAsrConf: 0 } : { utf8: ` ${w}`, tOffsetMs: i * 240, acAsrConf: 0 })),
        },
        { tStartMs: Math.round((c.start + c.dur) * 1000), dDurationMs: 10, wWinId: 1, aAppend: 1, segs: [{ utf8: '\n' }] },
      ]),
    ],
  });
}

// ---------------------------------------------------------------- arXiv

export interface FakePaper {
  id: string;
  version: string;
  title: string;
  summary: string;
  authors: string[];
  published: string;
  updated: string;
  primary: string;
  categories: string[];
  comment?: string;
}

export function arxivFeed(query: string, papers: readonly FakePaper[]): string {
  const entries = papers
    .map(
      (p) => `  <entry>
    <id>http://arxiv.org/abs/${p.id}${p.version}</id>
    <updated>${p.updated}</updated>
    <published>${p.published}</published>
    <title>${p.title}</title>
    <summary>${p.summary}</summary>
${p.authors.map((a) => `    <author>\n      <name>${a}</name>\n    </author>`).join('\n')}
${p.comment ? `    <arxiv:comment xmlns:arxiv="http://arxiv.org/schemas/atom">${p.comment}</arxiv:comment>\n` : ''}    <link href="http://arxiv.org/abs/${p.id}${p.version}" rel="alternate" type="text/html"/>
    <link title="pdf" href="http://arxiv.org/pdf/${p.id}${p.version}" rel="related" type="application/pdf"/>
    <arxiv:primary_category xmlns:arxiv="http://arxiv.org/schemas/atom" term="${p.primary}" scheme="http://arxiv.org/schemas/atom"/>
${p.categories.map((c) => `    <category term="${c}" scheme="http://arxiv.org/schemas/atom"/>`).join('\n')}
  </entry>`,
    )
    .join('\n');
  const escaped = query.replace(/&/g, '&amp;');
  return `<?xml version="1.0" encoding="UTF-8"?>
<feed xmlns="http://www.w3.org/2005/Atom">
  <link href="http://arxiv.org/api/query?${encodeURIComponent(query)}" rel="self" type="application/atom+xml"/>
  <title type="html">ArXiv Query: ${escaped}</title>
  <id>http://arxiv.org/api/ltEowUrxgsgaDoe1LZL0ZLw63Jc</id>
  <updated>2024-06-06T00:00:00-04:00</updated>
  <opensearch:totalResults xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/">${papers.length}</opensearch:totalResults>
  <opensearch:startIndex xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/">0</opensearch:startIndex>
  <opensearch:itemsPerPage xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/">${papers.length}</opensearch:itemsPerPage>
${entries}
</feed>
`;
}

/** arXiv's answer to a malformed id: one entry under /api/errors saying what was wrong. */
export function arxivErrorFeed(badId: string): string {
  return `<?xml version="1.0" encoding="UTF-8"?>
<feed xmlns="http://www.w3.org/2005/Atom">
  <link href="http://arxiv.org/api/query?search_query%3D%26id_list%3D${badId}%26start%3D0%26max_results%3D10" rel="self" type="application/atom+xml"/>
  <title type="html">ArXiv Query: search_query=&amp;id_list=${badId}&amp;start=0&amp;max_results=10</title>
  <id>http://arxiv.org/api/7ioD5AicZDrlgKVcC/2HL24Wnj4</id>
  <updated>2024-06-06T00:00:00-04:00</updated>
  <opensearch:totalResults xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/">1</opensearch:totalResults>
  <opensearch:startIndex xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/">0</opensearch:startIndex>
  <opensearch:itemsPerPage xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/">1</opensearch:itemsPerPage>
  <entry>
    <id>http://arxiv.org/api/errors#incorrect_id_format_for_${badId}</id>
    <title>Error</title>
    <summary>incorrect id format for ${badId}</summary>
    <updated>2024-06-06T00:00:00-04:00</updated>
    <link href="http://arxiv.org/api/errors#incorrect_id_format_for_${badId}" rel="alternate" type="text/html"/>
    <author>
      <name>arXiv api core</name>
    </author>
  </entry>
</feed>
`;
}

export const PAPERS: FakePaper[] = [
  {
    id: '2401.01234',
    version: 'v2',
    title: 'Tidal Memory: Retrieval for\n      Long-Running Agents',
    summary: `  We study how an agent that runs for weeks keeps what it learned. Our method stores
observations as passages and retrieves them by a blend of keyword and vector scores, and we
show that a periwinkle index over tide tables halves the recall error.
`,
    authors: ['Ada Lindqvist', 'Bram Okafor'],
    published: '2024-01-03T17:52:34Z',
    updated: '2024-02-11T09:01:02Z',
    primary: 'cs.IR',
    categories: ['cs.IR', 'cs.AI'],
    comment: '12 pages. v2: fixed typos',
  },
  {
    id: '2312.04567',
    version: 'v1',
    title: 'Chunk Boundaries Matter',
    summary: '  Splitting documents at headings rather than at fixed sizes improves answer quality for questions about lighthouse maintenance.\n',
    authors: ['Chen Wu'],
    published: '2023-12-07T10:00:00Z',
    updated: '2023-12-07T10:00:00Z',
    primary: 'cs.CL',
    categories: ['cs.CL'],
  },
];

// ---------------------------------------------------------------- Firecrawl

export function firecrawlDocument(page: { url: string; title: string; markdown: string; statusCode?: number }): Record<string, unknown> {
  return {
    markdown: page.markdown,
    metadata: {
      title: page.title,
      description: `${page.title} page`,
      language: 'en',
      ogLocaleAlternate: [],
      favicon: `${new URL(page.url).origin}/favicon.ico`,
      viewport: 'width=device-width, initial-scale=1',
      scrapeId: '7a1c2d3e-0000-4000-8000-000000000001',
      sourceURL: page.url,
      url: page.url,
      statusCode: page.statusCode ?? 200,
      contentType: 'text/html; charset=utf-8',
      proxyUsed: 'basic',
      cacheState: 'miss',
      creditsUsed: 1,
    },
  };
}

// ---------------------------------------------------------------- SearXNG and Tavily

export interface FakeHit {
  url: string;
  title: string;
  content: string;
}

export function searxngAnswer(query: string, hits: readonly FakeHit[]): Record<string, unknown> {
  return {
    query,
    number_of_results: 0,
    results: hits.map((h, i) => {
      const u = new URL(h.url);
      return {
        url: h.url,
        title: h.title,
        content: h.content,
        publishedDate: null,
        thumbnail: '',
        engine: 'duckduckgo',
        template: 'default.html',
        parsed_url: [u.protocol.replace(':', ''), u.host, u.pathname, '', u.search.replace('?', ''), ''],
        img_src: '',
        priority: '',
        engines: ['duckduckgo', 'brave'],
        positions: [i + 1, i + 2],
        score: 4 / (i + 1),
        category: 'general',
      };
    }),
    answers: [],
    corrections: [],
    infoboxes: [],
    suggestions: [`${query} guide`],
    unresponsive_engines: [['wikidata', 'timeout']],
  };
}

export function tavilyAnswer(query: string, hits: readonly FakeHit[]): Record<string, unknown> {
  return {
    query,
    follow_up_questions: null,
    answer: null,
    images: [],
    results: hits.map((h, i) => ({ url: h.url, title: h.title, content: h.content, score: 0.9 - i * 0.1, raw_content: null })),
    response_time: 1.09,
    request_id: '123e4567-e89b-12d3-a456-426614174111',
  };
}
