/**
 * @module settings/sources
 * The environment variables the source readers read, parsed once when the readers are built
 * (`defaultReaders(env)`), so a malformed value fails at startup and a missing key fails the
 * one upload that needs it, with a message naming the variable. Base URLs are settings so
 * tests and self-hosted services (SearXNG, Firecrawl, MinIO...) can point elsewhere; keys and
 * secrets live here only and are never put in a response, a log line or an error message.
 */
import { ConfigurationError } from '../errors.js';

export type SourceEnvironment = Record<string, string | undefined>;

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

function text(env: SourceEnvironment, name: string): string | undefined {
  const value = env[name]?.trim();
  return value ? value : undefined;
}

function int(env: SourceEnvironment, name: string, fallback: number, min: number, max: number): number {
  const raw = text(env, name);
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    throw new ConfigurationError(`${name} must be a whole number from ${min} to ${max}, got "${raw}"`);
  }
  return Number(raw);
}

function bool(env: SourceEnvironment, name: string, fallback: boolean): boolean {
  const raw = text(env, name)?.toLowerCase();
  if (raw === undefined) return fallback;
  if (['1', 'true', 'yes', 'on'].includes(raw)) return true;
  if (['0', 'false', 'no', 'off'].includes(raw)) return false;
  throw new ConfigurationError(`${name} must be true or false, got "${raw}"`);
}

/** An http(s) base URL without credentials, query or trailing slash. */
function baseUrl(env: SourceEnvironment, name: string, fallback: string): string;
function baseUrl(env: SourceEnvironment, name: string, fallback?: undefined): string | undefined;
function baseUrl(env: SourceEnvironment, name: string, fallback?: string): string | undefined {
  const raw = text(env, name);
  if (raw === undefined) return fallback;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigurationError(`${name} must be an http(s) URL, got "${raw}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ConfigurationError(`${name} must be an http(s) URL, got "${raw}"`);
  // A password in a URL ends up in logs and error messages; keys have their own variables.
  if (url.username || url.password) throw new ConfigurationError(`${name} must not contain credentials; use the key variable instead`);
  if (url.search || url.hash) throw new ConfigurationError(`${name} must be a base URL without query or fragment`);
  return url.href.replace(/\/+$/, '');
}

export function readSourceSettings(env: SourceEnvironment = process.env): SourceSettings {
  const provider = text(env, 'WEB_SEARCH_PROVIDER')?.toLowerCase();
  if (provider !== undefined && provider !== 'searxng' && provider !== 'tavily') {
    throw new ConfigurationError(`WEB_SEARCH_PROVIDER must be searxng or tavily, got "${provider}"`);
  }
  const searxngBaseUrl = baseUrl(env, 'SEARXNG_BASE_URL');
  const tavilyApiKey = text(env, 'TAVILY_API_KEY');
  const firecrawlBase = baseUrl(env, 'FIRECRAWL_BASE_URL');
  return {
    website: {
      maxDepth: int(env, 'WEBSITE_MAX_DEPTH', 3, 0, 10),
      maxPages: int(env, 'WEBSITE_MAX_PAGES', 10, 1, 1000),
      delayMs: int(env, 'WEBSITE_DELAY_MS', 1000, 0, 60_000),
    },
    firecrawl: {
      apiKey: text(env, 'FIRECRAWL_API_KEY'),
      baseUrl: firecrawlBase ?? 'https://api.firecrawl.dev',
      customBaseUrl: firecrawlBase !== undefined,
      pollIntervalMs: int(env, 'FIRECRAWL_POLL_INTERVAL_MS', 2000, 10, 60_000),
      crawlTimeoutMs: int(env, 'FIRECRAWL_CRAWL_TIMEOUT_SECONDS', 300, 1, 3600) * 1000,
      crawlLimit: int(env, 'FIRECRAWL_CRAWL_LIMIT', 10, 1, 1000),
    },
    video: {
      baseUrl: baseUrl(env, 'YOUTUBE_BASE_URL', 'https://www.youtube.com'),
      languages: (text(env, 'VIDEO_CAPTION_LANGUAGES') ?? 'en')
        .split(',')
        .map((l) => l.trim())
        .filter(Boolean),
    },
    webSearch: {
      provider: (provider as SearchProviderId | undefined) ?? (searxngBaseUrl ? 'searxng' : tavilyApiKey ? 'tavily' : undefined),
      searxngBaseUrl,
      tavilyApiKey,
      tavilyBaseUrl: baseUrl(env, 'TAVILY_BASE_URL', 'https://api.tavily.com'),
      maxResults: int(env, 'WEB_SEARCH_MAX_RESULTS', 5, 1, 20),
    },
    arxiv: {
      baseUrl: baseUrl(env, 'ARXIV_BASE_URL', 'https://export.arxiv.org'),
      pdfBaseUrl: baseUrl(env, 'ARXIV_PDF_BASE_URL', 'https://arxiv.org'),
      maxResults: int(env, 'ARXIV_MAX_RESULTS', 5, 1, 50),
    },
    s3: {
      endpoint: baseUrl(env, 'S3_ENDPOINT'),
      region: text(env, 'S3_REGION') ?? text(env, 'AWS_REGION') ?? 'us-east-1',
      accessKeyId: text(env, 'S3_ACCESS_KEY_ID') ?? text(env, 'AWS_ACCESS_KEY_ID'),
      secretAccessKey: text(env, 'S3_SECRET_ACCESS_KEY') ?? text(env, 'AWS_SECRET_ACCESS_KEY'),
      sessionToken: text(env, 'S3_SESSION_TOKEN') ?? text(env, 'AWS_SESSION_TOKEN'),
      forcePathStyle: bool(env, 'S3_FORCE_PATH_STYLE', true),
      maxObjects: int(env, 'S3_MAX_OBJECTS', 100, 1, 1000),
    },
  };
}
