/**
 * @module settings/sources
 * The source readers' area (website, firecrawl, video, web search, arXiv, S3), parsed once when
 * the readers are built (`defaultReaders(env)`), so a malformed value fails at startup and a
 * missing key fails the one upload that needs it, with a message naming the variable. Base URLs
 * are settings so tests and self-hosted services (SearXNG, Firecrawl, MinIO...) can point
 * elsewhere; keys and secrets live here only and are never put in a response, a log line or an
 * error message.
 */
import { z } from 'zod';
import { readEnvironment, type Environment } from './environment.js';
import { flag, httpBaseUrl, list, oneOf, seconds, text, wholeNumber } from './fields.js';

export interface WebsiteSettings {
  /** Link hops followed from the start page; default 3 (agno's max_depth). */
  maxDepth: number;
  /** Pages read at most; default 10 (agno's max_links). */
  maxPages: number;
  /** Pause between two requests to the site, in ms; default 1000. */
  delayMs: number;
}

export interface FirecrawlSettings {
  apiKey: string | undefined;
  baseUrl: string;
  /** True when FIRECRAWL_BASE_URL was set: a self-hosted Firecrawl may need no key. */
  customBaseUrl: boolean;
  pollIntervalMs: number;
  /** How long a crawl job may run before the read gives up, in ms. */
  crawlTimeoutMs: number;
  /** Pages a crawl reads when the request names no limit. */
  crawlLimit: number;
}

export interface VideoSettings {
  baseUrl: string;
  /** Caption languages in order of preference. */
  languages: string[];
}

export type SearchProviderId = 'searxng' | 'tavily';

export interface WebSearchSettings {
  /** WEB_SEARCH_PROVIDER, or the first configured of searxng, tavily; undefined: none. */
  provider: SearchProviderId | undefined;
  searxngBaseUrl: string | undefined;
  tavilyApiKey: string | undefined;
  tavilyBaseUrl: string;
  maxResults: number;
}

export interface ArxivSettings {
  baseUrl: string;
  pdfBaseUrl: string;
  maxResults: number;
}

export interface S3Settings {
  endpoint: string | undefined;
  region: string;
  accessKeyId: string | undefined;
  secretAccessKey: string | undefined;
  sessionToken: string | undefined;
  forcePathStyle: boolean;
  maxObjects: number;
}

export interface SourceSettings {
  website: WebsiteSettings;
  firecrawl: FirecrawlSettings;
  video: VideoSettings;
  webSearch: WebSearchSettings;
  arxiv: ArxivSettings;
  s3: S3Settings;
}

const KEY_HINT = 'use the key variable instead';

// Keys in the order the hand-written reader checked them, so the first of several bad values
// is still the one reported.
export const sourceSettingsSchema = z
  .object({
    WEB_SEARCH_PROVIDER: oneOf(['searxng', 'tavily'], { lowercase: true }),
    SEARXNG_BASE_URL: httpBaseUrl(KEY_HINT),
    TAVILY_API_KEY: text(),
    FIRECRAWL_BASE_URL: httpBaseUrl(KEY_HINT),
    WEBSITE_MAX_DEPTH: wholeNumber({ min: 0, max: 10, default: 3 }),
    WEBSITE_MAX_PAGES: wholeNumber({ min: 1, max: 1000, default: 10 }),
    WEBSITE_DELAY_MS: wholeNumber({ min: 0, max: 60_000, default: 1000 }),
    FIRECRAWL_API_KEY: text(),
    FIRECRAWL_POLL_INTERVAL_MS: wholeNumber({ min: 10, max: 60_000, default: 2000 }),
    FIRECRAWL_CRAWL_TIMEOUT_SECONDS: seconds({ min: 1, max: 3600, default: 300 }),
    FIRECRAWL_CRAWL_LIMIT: wholeNumber({ min: 1, max: 1000, default: 10 }),
    YOUTUBE_BASE_URL: httpBaseUrl(KEY_HINT, 'https://www.youtube.com'),
    VIDEO_CAPTION_LANGUAGES: list(['en']),
    TAVILY_BASE_URL: httpBaseUrl(KEY_HINT, 'https://api.tavily.com'),
    WEB_SEARCH_MAX_RESULTS: wholeNumber({ min: 1, max: 20, default: 5 }),
    ARXIV_BASE_URL: httpBaseUrl(KEY_HINT, 'https://export.arxiv.org'),
    ARXIV_PDF_BASE_URL: httpBaseUrl(KEY_HINT, 'https://arxiv.org'),
    ARXIV_MAX_RESULTS: wholeNumber({ min: 1, max: 50, default: 5 }),
    S3_ENDPOINT: httpBaseUrl(KEY_HINT),
    // The S3_ names win; the AWS_ ones are what the AWS tools already export.
    S3_REGION: text(),
    AWS_REGION: text(),
    S3_ACCESS_KEY_ID: text(),
    AWS_ACCESS_KEY_ID: text(),
    S3_SECRET_ACCESS_KEY: text(),
    AWS_SECRET_ACCESS_KEY: text(),
    S3_SESSION_TOKEN: text(),
    AWS_SESSION_TOKEN: text(),
    S3_FORCE_PATH_STYLE: flag(true),
    S3_MAX_OBJECTS: wholeNumber({ min: 1, max: 1000, default: 100 }),
  })
  .transform(
    (env): SourceSettings => ({
      website: { maxDepth: env.WEBSITE_MAX_DEPTH, maxPages: env.WEBSITE_MAX_PAGES, delayMs: env.WEBSITE_DELAY_MS },
      firecrawl: {
        apiKey: env.FIRECRAWL_API_KEY,
        baseUrl: env.FIRECRAWL_BASE_URL ?? 'https://api.firecrawl.dev',
        customBaseUrl: env.FIRECRAWL_BASE_URL !== undefined,
        pollIntervalMs: env.FIRECRAWL_POLL_INTERVAL_MS,
        crawlTimeoutMs: env.FIRECRAWL_CRAWL_TIMEOUT_SECONDS,
        crawlLimit: env.FIRECRAWL_CRAWL_LIMIT,
      },
      video: { baseUrl: env.YOUTUBE_BASE_URL, languages: env.VIDEO_CAPTION_LANGUAGES },
      webSearch: {
        provider: env.WEB_SEARCH_PROVIDER ?? (env.SEARXNG_BASE_URL ? 'searxng' : env.TAVILY_API_KEY ? 'tavily' : undefined),
        searxngBaseUrl: env.SEARXNG_BASE_URL,
        tavilyApiKey: env.TAVILY_API_KEY,
        tavilyBaseUrl: env.TAVILY_BASE_URL,
        maxResults: env.WEB_SEARCH_MAX_RESULTS,
      },
      arxiv: { baseUrl: env.ARXIV_BASE_URL, pdfBaseUrl: env.ARXIV_PDF_BASE_URL, maxResults: env.ARXIV_MAX_RESULTS },
      s3: {
        endpoint: env.S3_ENDPOINT,
        region: env.S3_REGION ?? env.AWS_REGION ?? 'us-east-1',
        accessKeyId: env.S3_ACCESS_KEY_ID ?? env.AWS_ACCESS_KEY_ID,
        secretAccessKey: env.S3_SECRET_ACCESS_KEY ?? env.AWS_SECRET_ACCESS_KEY,
        sessionToken: env.S3_SESSION_TOKEN ?? env.AWS_SESSION_TOKEN,
        forcePathStyle: env.S3_FORCE_PATH_STYLE,
        maxObjects: env.S3_MAX_OBJECTS,
      },
    }),
  );

export function readSourceSettings(env: Environment = process.env): SourceSettings {
  return readEnvironment(sourceSettingsSchema, env);
}
