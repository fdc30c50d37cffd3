import { describe, expect, it } from 'vitest';
import { readSourceSettings } from './sources.js';

describe('readSourceSettings', () => {
  it('has the reference defaults and needs nothing set', () => {
    const s = readSourceSettings({});
    expect(s.website).toEqual({ maxDepth: 3, maxPages: 10, delayMs: 1000 });
    expect(s.firecrawl).toMatchObject({ apiKey: undefined, baseUrl: 'https://api.firecrawl.dev', customBaseUrl: false, crawlLimit: 10 });
    expect(s.video).toEqual({ baseUrl: 'https://www.youtube.com', languages: ['en'] });
    expect(s.webSearch).toMatchObject({ provider: undefined, maxResults: 5, tavilyBaseUrl: 'https://api.tavily.com' });
    expect(s.arxiv).toEqual({ baseUrl: 'https://export.arxiv.org', pdfBaseUrl: 'https://arxiv.org', maxResults: 5 });
    expect(s.s3).toMatchObject({ endpoint: undefined, region: 'us-east-1', forcePathStyle: true, maxObjects: 100 });
  });

  it('reads every variable, trimming base URLs', () => {
    const s = readSourceSettings({
      WEBSITE_MAX_DEPTH: '1',
      WEBSITE_MAX_PAGES: '25',
      WEBSITE_DELAY_MS: '0',
      FIRECRAWL_API_KEY: 'fc-1',
      FIRECRAWL_BASE_URL: 'http://firecrawl.lan:3002/',
      YOUTUBE_BASE_URL: 'http://127.0.0.1:9/yt',
      VIDEO_CAPTION_LANGUAGES: 'de, en',
      SEARXNG_BASE_URL: 'http://searx.lan',
      TAVILY_API_KEY: 'tvly-1',
      ARXIV_BASE_URL: 'http://127.0.0.1:10',
      S3_ENDPOINT: 'http://minio.lan:9000',
      AWS_ACCESS_KEY_ID: 'from-aws',
      S3_SECRET_ACCESS_KEY: 'secret',
      S3_FORCE_PATH_STYLE: 'false',
    });
    expect(s.website).toEqual({ maxDepth: 1, maxPages: 25, delayMs: 0 });
    expect(s.firecrawl).toMatchObject({ apiKey: 'fc-1', baseUrl: 'http://firecrawl.lan:3002', customBaseUrl: true });
    expect(s.video).toEqual({ baseUrl: 'http://127.0.0.1:9/yt', languages: ['de', 'en'] });
    // Both configured: SearXNG, the first of the two, unless WEB_SEARCH_PROVIDER says otherwise.
    expect(s.webSearch.provider).toBe('searxng');
    expect(readSourceSettings({ SEARXNG_BASE_URL: 'http://searx.lan', TAVILY_API_KEY: 'k', WEB_SEARCH_PROVIDER: 'Tavily' }).webSearch.provider).toBe('tavily');
    expect(readSourceSettings({ TAVILY_API_KEY: 'k' }).webSearch.provider).toBe('tavily');
    expect(s.s3).toMatchObject({ endpoint: 'http://minio.lan:9000', accessKeyId: 'from-aws', secretAccessKey: 'secret', forcePathStyle: false });
  });

  it('refuses malformed values at startup, naming the variable', () => {
    expect(() => readSourceSettings({ WEBSITE_MAX_PAGES: '0' })).toThrow('WEBSITE_MAX_PAGES must be a whole number from 1 to 1000, got "0"');
    expect(() => readSourceSettings({ WEBSITE_DELAY_MS: 'soon' })).toThrow('WEBSITE_DELAY_MS must be a whole number');
    expect(() => readSourceSettings({ WEB_SEARCH_PROVIDER: 'bing' })).toThrow('WEB_SEARCH_PROVIDER must be searxng or tavily, got "bing"');
    expect(() => readSourceSettings({ SEARXNG_BASE_URL: 'searx.lan' })).toThrow('SEARXNG_BASE_URL must be an http(s) URL, got "searx.lan"');
    expect(() => readSourceSettings({ FIRECRAWL_BASE_URL: 'http://user:pw@fc.lan' })).toThrow('FIRECRAWL_BASE_URL must not contain credentials');
    expect(() => readSourceSettings({ ARXIV_BASE_URL: 'http://a.lan/?x=1' })).toThrow('ARXIV_BASE_URL must be a base URL without query or fragment');
    expect(() => readSourceSettings({ S3_FORCE_PATH_STYLE: 'maybe' })).toThrow('S3_FORCE_PATH_STYLE must be true or false, got "maybe"');
  });
});
