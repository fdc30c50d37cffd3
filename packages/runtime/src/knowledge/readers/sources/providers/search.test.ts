import { describe, expect, it } from 'vitest';
import { RuntimeError } from '../../../../errors.js';
import { searxngAnswer, tavilyAnswer } from '../../../../../test/support/source-fixtures.js';
import type { FetchedResource } from '../../../../net/safe-fetch.js';
import type { SourceContext, SourceFetchOptions } from '../source-reader.js';
import { SearxngProvider } from './searxng.js';
import { usableResults } from './search-provider.js';
import { TavilyProvider } from './tavily.js';

const HITS = [
  { url: 'https://garden.example/compost', title: 'Compost basics', content: 'Turn the heap every fortnight.' },
  { url: 'https://garden.example/compost#again', title: 'Compost basics (again)', content: 'Same page.' },
  { url: 'magnet:?xt=urn:btih:abc', title: 'Not a page', content: '' },
  { url: 'https://soil.example/loam', title: 'Loam', content: 'Loam crumbles in the hand.' },
];

/** A context whose services answer from a table, recording what was asked. */
function serviceContext(answer: (url: string, options: SourceFetchOptions) => { status: number; body: unknown }) {
  const calls: { url: string; options: SourceFetchOptions }[] = [];
  const fetchService = async (url: string, options: SourceFetchOptions = {}): Promise<FetchedResource> => {
    calls.push({ url, options });
    const { status, body } = answer(url, options);
    const text = typeof body === 'string' ? body : JSON.stringify(body);
    return { url, status, mimeType: 'application/json', body: new TextEncoder().encode(text), headers: {}, remoteAddress: '127.0.0.1' };
  };
  const context: SourceContext = {
    fetch: () => Promise.reject(new Error('result pages are not fetched here')),
    fetchService,
    checkUrl: async (u) => new URL(u),
    readers: undefined as never,
    maxBytes: 1_000_000,
    signal: undefined,
  };
  return { context, calls };
}

describe('SearXNG', () => {
  it('asks /search for JSON and maps url, title, content and engine; drops repeats and non-web links', async () => {
    const { context, calls } = serviceContext(() => ({ status: 200, body: searxngAnswer('compost', HITS) }));
    const results = await new SearxngProvider('http://searx.lan:8080').search('compost heap', 5, context);
    expect(calls[0]!.url).toBe('http://searx.lan:8080/search?q=compost+heap&format=json&pageno=1');
    expect(results).toEqual([
      { url: 'https://garden.example/compost', title: 'Compost basics', snippet: 'Turn the heap every fortnight.', engine: 'duckduckgo', publishedDate: undefined },
      { url: 'https://garden.example/compost#again', title: 'Compost basics (again)', snippet: 'Same page.', engine: 'duckduckgo', publishedDate: undefined },
      { url: 'https://soil.example/loam', title: 'Loam', snippet: 'Loam crumbles in the hand.', engine: 'duckduckgo', publishedDate: undefined },
    ]);
    expect(await new SearxngProvider('http://searx.lan:8080').search('compost', 1, context)).toHaveLength(1);
  });

  it('explains the 403 of an instance without the json format', async () => {
    const { context } = serviceContext(() => ({ status: 403, body: '<h1>403 Forbidden</h1>' }));
    await expect(new SearxngProvider('http://searx.lan').search('x', 5, context)).rejects.toThrow(
      'SearXNG answered HTTP 403 to a JSON search: enable the json format (search.formats in its settings.yml)',
    );
  });
});

describe('Tavily', () => {
  it('posts the query with the key as a bearer token and maps the results', async () => {
    const { context, calls } = serviceContext(() => ({ status: 200, body: tavilyAnswer('compost', HITS) }));
    const results = await new TavilyProvider('tvly-secret-1234', 'https://api.tavily.com').search('compost', 3, context);
    expect(calls[0]!.url).toBe('https://api.tavily.com/search');
    expect(calls[0]!.options.method).toBe('POST');
    expect(calls[0]!.options.headers?.authorization).toBe('Bearer tvly-secret-1234');
    expect(JSON.parse(calls[0]!.options.body as string)).toEqual({ query: 'compost', max_results: 3, search_depth: 'basic', include_answer: false, include_raw_content: false });
    expect(results.map((r) => [r.url, r.title, r.snippet])).toEqual([
      ['https://garden.example/compost', 'Compost basics', 'Turn the heap every fortnight.'],
      ['https://garden.example/compost#again', 'Compost basics (again)', 'Same page.'],
      ['https://soil.example/loam', 'Loam', 'Loam crumbles in the hand.'],
    ]);
  });

  it('says which setting to check when the key is refused, without repeating the key', async () => {
    const { context } = serviceContext(() => ({ status: 401, body: { detail: { error: 'Unauthorized: missing or invalid API key tvly-secret-1234.' } } }));
    const error = await new TavilyProvider('tvly-secret-1234', 'https://api.tavily.com').search('x', 5, context).catch((e: unknown) => e as RuntimeError);
    expect(RuntimeError.isInstance(error) && error.status).toBe(400);
    expect((error as RuntimeError).message).toBe('Tavily answered HTTP 401: Unauthorized: missing or invalid API key [redacted]. (check TAVILY_API_KEY)');
  });

  it('makes a rate limit or a server error retryable (503), and needs a key', async () => {
    for (const status of [429, 502]) {
      const { context } = serviceContext(() => ({ status, body: { detail: { error: 'busy' } } }));
      const error = (await new TavilyProvider('k-1234', 'https://api.tavily.com').search('x', 5, context).catch((e: unknown) => e)) as RuntimeError;
      expect(error.code, String(status)).toBe('SERVICE_UNAVAILABLE');
    }
    const { context } = serviceContext(() => ({ status: 200, body: {} }));
    await expect(new TavilyProvider(undefined, 'https://api.tavily.com').search('x', 5, context)).rejects.toThrow('TAVILY_API_KEY is not set');
  });
});

describe('usableResults', () => {
  it('keeps http(s) results once each, up to the limit', () => {
    const base = { title: 't', snippet: 's' };
    const kept = usableResults(
      [
        { ...base, url: 'https://a.example/x' },
        { ...base, url: 'https://a.example/x' },
        { ...base, url: 'javascript:alert(1)' },
        { ...base, url: 'not a url' },
        { ...base, url: 'http://b.example/' },
        { ...base, url: 'http://c.example/' },
      ],
      2,
    );
    expect(kept.map((r) => r.url)).toEqual(['https://a.example/x', 'http://b.example/']);
  });
});
