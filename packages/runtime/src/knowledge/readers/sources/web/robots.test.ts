import { describe, expect, it } from 'vitest';
import { RuntimeError } from '../../../../errors.js';
import type { FetchedResource } from '../../../../net/safe-fetch.js';
import type { SourceContext } from '../source-reader.js';
import { loadRobots, parseRobots, ROBOTS_AGENT } from './robots.js';

const ROBOTS = `# comments are ignored
User-agent: *
Disallow: /private/
Allow: /private/open-day
Disallow: /*.json$
Crawl-delay: 2

User-agent: ${ROBOTS_AGENT}
Disallow: /drafts/
Allow: /
Crawl-delay: 0.5

User-agent: greedybot
Disallow: /
`;

describe('parseRobots', () => {
  it('applies the group that names our agent, longest match winning', () => {
    const rules = parseRobots('https://g.example/robots.txt', ROBOTS);
    expect(rules.isAllowed('https://g.example/')).toBe(true);
    expect(rules.isAllowed('https://g.example/drafts/plan')).toBe(false);
    // Our group has no /private/ rule, so the * group does not apply to us.
    expect(rules.isAllowed('https://g.example/private/ledger')).toBe(true);
    expect(rules.crawlDelayMs).toBe(500);
  });

  it('falls back to the * group, with Allow beating a shorter Disallow and $ anchoring', () => {
    const rules = parseRobots('https://g.example/robots.txt', 'User-agent: *\nDisallow: /private/\nAllow: /private/open-day\nDisallow: /*.json$\n');
    expect(rules.isAllowed('https://g.example/private/ledger')).toBe(false);
    expect(rules.isAllowed('https://g.example/private/open-day')).toBe(true);
    expect(rules.isAllowed('https://g.example/data.json')).toBe(false);
    expect(rules.isAllowed('https://g.example/data.json?x=1')).toBe(true);
    expect(rules.crawlDelayMs).toBeUndefined();
  });

  it('Disallow: / closes the whole site', () => {
    const rules = parseRobots('https://g.example/robots.txt', 'User-agent: *\nDisallow: /\n');
    expect(rules.isAllowed('https://g.example/')).toBe(false);
    expect(rules.isAllowed('https://g.example/anything')).toBe(false);
  });
});

function contextAnswering(answer: Partial<FetchedResource> | Error): SourceContext {
  const fetch = async (url: string): Promise<FetchedResource> => {
    if (answer instanceof Error) throw answer;
    return { url, status: 200, mimeType: 'text/plain', body: new Uint8Array(), headers: {}, remoteAddress: '127.0.0.1', ...answer };
  };
  return { fetch, fetchService: fetch, checkUrl: async (u) => new URL(u), readers: undefined as never, maxBytes: 1000, signal: undefined };
}

describe('loadRobots', () => {
  const origin = new URL('https://g.example/start');

  it('parses a 2xx answer', async () => {
    const rules = await loadRobots(origin, contextAnswering({ body: new TextEncoder().encode('User-agent: *\nDisallow: /x\n') }));
    expect(rules.isAllowed('https://g.example/x')).toBe(false);
    expect(rules.isAllowed('https://g.example/y')).toBe(true);
  });

  it('treats a 4xx as no rules and a 5xx as disallowing everything (RFC 9309)', async () => {
    expect((await loadRobots(origin, contextAnswering({ status: 404 }))).isAllowed('https://g.example/any')).toBe(true);
    const unreachable = await loadRobots(origin, contextAnswering({ status: 503 }));
    expect(unreachable.isAllowed('https://g.example/')).toBe(false);
    expect(unreachable.note).toBe('https://g.example/robots.txt answered HTTP 503, so the site is treated as disallowing all crawling (RFC 9309)');
  });

  it('ignores an oversized file with a note, and passes other failures on', async () => {
    const big = await loadRobots(origin, contextAnswering(new RuntimeError('PAYLOAD_TOO_LARGE', 'too big')));
    expect(big.isAllowed('https://g.example/')).toBe(true);
    expect(big.note).toContain('larger than 512 KiB');
    await expect(loadRobots(origin, contextAnswering(new RuntimeError('BAD_REQUEST', 'Cannot fetch https://g.example/robots.txt (ECONNREFUSED)')))).rejects.toThrow('ECONNREFUSED');
  });
});
