/**
 * `/docs` (Swagger UI) and `/redoc` in a real browser: both render the runtime's operations and
 * make no request that leaves the machine (no CDN logo, web fonts or validator badge), with no
 * Content-Security-Policy violation. Uses Debian's chromium through playwright-core; CI installs
 * it (.ci/run) and this suite fails there without it, elsewhere it is skipped with a reason.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM, CHROMIUM_ARGS, chromiumFound } from './support/chromium.js';
import { sqliteTestDatabase } from './support/databases.js';
import { startRuntime, type StartedRuntime } from './support/runtime.js';

const found = chromiumFound;
const why = found ? '' : ` (skipped: no chromium at ${CHROMIUM}; apt-get install chromium, or set CHROMIUM_PATH)`;

// CI must not pass by skipping: there, a missing browser is a failure.
it.runIf(process.env.CI === 'true')('finds chromium on CI (.ci/run installs it)', () => {
  expect(found, `no chromium at ${CHROMIUM}`).toBe(true);
});

/** What the init script uses of a page's window. */
interface BrowserGlobals {
  cspViolations: string[];
  addEventListener(type: 'securitypolicyviolation', listener: (event: { violatedDirective: string; blockedURI: string }) => void): void;
}

describe.skipIf(!found)(`docs pages in a browser${why}`, () => {
  let rt: StartedRuntime;
  let context: BrowserContext;
  let profile: string;
  /** Every URL any page or worker of the current visit asked for, in order. */
  const requested: string[] = [];
  /**
   * The pages are opened under a non-loopback name, as in a deployment: Swagger UI skips its
   * validator badge for localhost and 127.0.0.1 only, so loopback would hide that request.
   */
  let origin: string;

  beforeAll(async () => {
    rt = await startRuntime(sqliteTestDatabase, {
      name: 'Browser Test',
      agents: [{ id: 'helper', name: 'Helper' }],
      env: { OS_SECURITY_KEY: 'browser-test-key-0123456789' },
    });
    origin = `http://runtime.test:${new URL(rt.url).port}`;
    profile = mkdtempSync(join(tmpdir(), 'svc-chromium-'));
    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: [...CHROMIUM_ARGS, '--host-resolver-rules=MAP runtime.test 127.0.0.1'],
    });
    context.on('request', (request) => requested.push(request.url()));
    // Anything leaving the runtime is recorded above and stopped here, so the test itself never
    // reaches the network even when a page misbehaves.
    await context.route('**/*', (route) => (new URL(route.request().url()).origin === origin ? route.continue() : route.abort()));
  });

  afterAll(async () => {
    await context?.close();
    if (profile) rmSync(profile, { recursive: true, force: true });
    await rt?.stop();
  });

  /**
   * Opens `path`, waits until `text` is visible and the network is idle, and reports what the
   * page asked for and which Content-Security-Policy refusals it met.
   */
  async function visit(path: string, text: string): Promise<{ offOrigin: string[]; requests: number; violations: string[] }> {
    requested.length = 0;
    const page = await context.newPage();
    try {
      // Runs in the page, whose DOM types this Node project does not load.
      await page.addInitScript(() => {
        const win = globalThis as unknown as BrowserGlobals;
        win.cspViolations = [];
        win.addEventListener('securitypolicyviolation', (e) => win.cspViolations.push(`${e.violatedDirective} ${e.blockedURI}`));
      });
      await page.goto(`${origin}${path}`);
      const visible = page.getByText(text, { exact: true }).filter({ visible: true });
      await expect.poll(() => visible.count(), { timeout: 20_000 }).toBeGreaterThan(0);
      await page.waitForLoadState('networkidle');
      const violations = await page.evaluate(() => (globalThis as unknown as BrowserGlobals).cspViolations);
      const offOrigin = requested.filter((url) => !url.startsWith('data:') && new URL(url).origin !== origin);
      return { offOrigin, requests: requested.length, violations };
    } finally {
      await page.close();
    }
  }

  it('renders Swagger UI with every request going to the runtime', async () => {
    const seen = await visit('/docs', 'Run an agent');
    expect(seen).toEqual({ offOrigin: [], requests: expect.any(Number), violations: [] });
    // The page, its three scripts, the stylesheet, the favicon and the document at least.
    expect(seen.requests).toBeGreaterThanOrEqual(6);
  });

  it('renders Redoc with every request going to the runtime', async () => {
    const seen = await visit('/redoc', 'Run an agent');
    expect(seen).toEqual({ offOrigin: [], requests: expect.any(Number), violations: [] });
    // The page, the bundle and the document at least.
    expect(seen.requests).toBeGreaterThanOrEqual(3);
  });
});
