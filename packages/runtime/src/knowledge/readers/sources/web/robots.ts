/**
 * @module knowledge/readers/sources/web/robots
 * robots.txt for the website reader, by RFC 9309: rules are parsed by robots-parser (groups,
 * `*` and `$` patterns, longest match wins, Allow wins a tie) for our user-agent token. Fetching:
 * a 2xx answer is parsed; a 4xx means no rules ("unavailable": crawl freely); a 5xx means the
 * file is unreachable, so everything is disallowed. Of a robots.txt larger than 512 KiB only the
 * first 512 KiB are read and parsed (the RFC asks parsers to read at least 500 KiB; its rules
 * still apply), with a note. A line the cut runs through is dropped, not parsed: `Allow: /p`
 * cut from `Allow: /press/` would open more than the site allowed, `Disallow: /p` would close
 * more, and a cut `User-agent:` line could start a group for another crawler.
 */
import robotsParserModule from 'robots-parser';
import { RuntimeError } from '../../../../errors.js';
import type { SourceContext } from '../source-reader.js';

type ParseRobots = typeof robotsParserModule.default;
// The package's types declare an ES default export; Node hands ESM the CommonJS function itself.
const loaded = robotsParserModule as unknown as ParseRobots | { default: ParseRobots };
const robotsParser: ParseRobots = typeof loaded === 'function' ? loaded : loaded.default;

/** The product token sites name in `User-agent:` lines to address this crawler. */
export const ROBOTS_AGENT = 'svc-runtime-knowledge';

const MAX_ROBOTS_BYTES = 512 * 1024;

export interface RobotsRules {
  isAllowed(url: string): boolean;
  /** `Crawl-delay` for our group, in ms, when the file sets one. */
  crawlDelayMs: number | undefined;
  /** Why the rules are what they are, when that is not the file itself (a 5xx, too large). */
  note: string | undefined;
}

export function parseRobots(robotsUrl: string, text: string): RobotsRules {
  const robots = robotsParser(robotsUrl, text);
  const delay = robots.getCrawlDelay(ROBOTS_AGENT);
  return {
    // undefined means the URL is on another origin, which these rules do not govern.
    isAllowed: (url) => robots.isAllowed(url, ROBOTS_AGENT) ?? true,
    crawlDelayMs: typeof delay === 'number' && Number.isFinite(delay) && delay > 0 ? Math.round(delay * 1000) : undefined,
    note: undefined,
  };
}

const allowAll = (note?: string): RobotsRules => ({ isAllowed: () => true, crawlDelayMs: undefined, note });
const disallowAll = (note: string): RobotsRules => ({ isAllowed: () => false, crawlDelayMs: undefined, note });

/** Fetches and parses the robots.txt of `origin` under the knowledge base's fetch rules. */
export async function loadRobots(origin: URL, context: SourceContext): Promise<RobotsRules> {
  const robotsUrl = new URL('/robots.txt', origin).href;
  let fetched;
  try {
    fetched = await context.fetch(robotsUrl, { maxBytes: MAX_ROBOTS_BYTES, allowHttpErrors: true, truncate: true });
  } catch (error) {
    // Only from a fetch that does not honour `truncate` (the context's own does).
    if (RuntimeError.isInstance(error) && error.code === 'PAYLOAD_TOO_LARGE') return allowAll(`${robotsUrl} is larger than 512 KiB and was ignored`);
    // Unreachable host, refused address, timeout: the pages would fail the same way; say why.
    throw error;
  }
  if (fetched.status >= 500) return disallowAll(`${robotsUrl} answered HTTP ${fetched.status}, so the site is treated as disallowing all crawling (RFC 9309)`);
  if (fetched.status >= 400) return allowAll();
  if (fetched.status < 200 || fetched.status > 299) return allowAll();
  // The rules govern the origin asked about, even when its robots.txt redirected elsewhere.
  if (!fetched.truncated) return parseRobots(robotsUrl, Buffer.from(fetched.body).toString('utf8'));
  const whole = completeLines(fetched.body);
  const rules = parseRobots(robotsUrl, Buffer.from(whole).toString('utf8'));
  return { ...rules, note: `${robotsUrl} is larger than 512 KiB; its first ${whole.byteLength} bytes (the lines before the cut) were parsed (RFC 9309)` };
}

/** The body up to and including its last line end (CR or LF), so no line the cut runs through is parsed. */
export function completeLines(body: Uint8Array): Uint8Array {
  const end = Math.max(body.lastIndexOf(0x0a), body.lastIndexOf(0x0d));
  return body.subarray(0, end + 1);
}
