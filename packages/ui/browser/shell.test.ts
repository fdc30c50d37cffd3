/**
 * The panel's frame in a real browser: served at /ui (and any path under it) with its security
 * headers, every request on loopback, no CSP violation; sign-in as each auth mode allows (none on
 * an open runtime; the security key or a svc_pat_ token pasted once, kept in sessionStorage);
 * pages a token's scopes do not cover are not offered; the Connect page.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumFound, launch, screenshot, seriousViolations, type Browser } from './support/browser.js';
import { SECURITY_KEY, startPanelRuntime, type PanelRuntime } from './support/runtime.js';
import { mint, requireChromiumOnCi, skipReason } from './support/suite.js';

requireChromiumOnCi();

/** The part of the page's Web Storage these tests read (this Node project has no DOM types). */
interface WebStorage {
  getItem(key: string): string | null;
  length: number;
}

describe.skipIf(!chromiumFound)(`the panel's frame${skipReason}`, () => {
  let open: PanelRuntime;
  let secured: PanelRuntime;
  let browser: Browser;

  beforeAll(async () => {
    [open, secured, browser] = await Promise.all([startPanelRuntime(), startPanelRuntime({ securityKey: SECURITY_KEY }), launch()]);
  });
  afterAll(async () => {
    await browser?.close();
    await open?.stop();
    await secured?.stop();
  });

  it('serves /ui and its sub-paths with the security headers, while GET / stays JSON', async () => {
    for (const path of ['/ui', '/ui/', '/ui/knowledge', '/ui/chat/anything']) {
      const res = await fetch(`${open.url}${path}`);
      expect(res.status, path).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
      const csp = res.headers.get('content-security-policy') ?? '';
      expect(csp).toContain("default-src 'self'");
      expect(csp).toContain("script-src 'self'");
      expect(csp).toContain("style-src 'self'");
      expect(csp).not.toContain('unsafe-inline');
      expect(csp).toContain("frame-ancestors 'none'");
      expect(res.headers.get('referrer-policy')).toBe('no-referrer');
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      const html = await res.text();
      // No inline script: every <script> has a src on this origin.
      expect(html.match(/<script(?![^>]*\ssrc="\/ui\/assets\/)[^>]*>/g)).toBeNull();
    }
    expect((await fetch(`${open.url}/ui/assets/missing.js`)).status).toBe(404);
    const home = await fetch(`${open.url}/`);
    expect(home.headers.get('content-type')).toContain('application/json');
    expect(await home.json()).toMatchObject({ name: 'Panel Test' });
  });

  it('opens with no sign-in on an open runtime, every page offered', async () => {
    const page = await browser.page();
    await page.goto(`${open.url}/ui/connect`);
    await expect.poll(() => page.getByRole('heading', { name: 'Connect', exact: true }).count()).toBe(1);
    await expect.poll(() => page.getByText('Open runtime (no sign-in)').count()).toBe(1);
    const nav = page.getByRole('navigation', { name: 'Pages' });
    expect(await nav.getByRole('link').allTextContents()).toEqual(['Chat', 'Knowledge', 'Runs & traces', 'Memories', 'Tokens', 'MCP servers', 'Connect']);
    expect(await page.getByTestId('mcp-url').textContent()).toBe(`${open.url}/mcp`);
    expect(await page.getByTestId('connect-command').textContent()).toBe(`npx svc connect --url ${open.url}`);
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, 'connect');
    await page.close();
  });

  it('asks for a credential, says why one is refused, and keeps a good one in sessionStorage only', async () => {
    const page = await browser.page();
    const urls: string[] = [];
    page.on('request', (request) => urls.push(request.url()));
    await page.goto(`${secured.url}/ui`);
    await expect.poll(() => page.getByRole('heading', { name: 'Sign in to Panel Test' }).count()).toBe(1);
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, 'sign-in');

    await page.getByLabel('Credential').fill('not-the-key');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('Invalid authentication token');

    await page.getByLabel('Credential').fill(SECURITY_KEY);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.getByText('Signed in with the security key').count()).toBe(1);
    const stored = await page.evaluate(() => ({
      session: (globalThis as unknown as { sessionStorage: WebStorage }).sessionStorage.getItem('svc.credential'),
      local: (globalThis as unknown as { localStorage: WebStorage }).localStorage.length,
      cookie: (globalThis as unknown as { document: { cookie: string } }).document.cookie,
    }));
    expect(stored).toEqual({ session: SECURITY_KEY, local: 0, cookie: '' });

    // A reload stays signed in (same tab); signing out forgets the credential.
    await page.reload();
    await expect.poll(() => page.getByText('Signed in with the security key').count()).toBe(1);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await expect.poll(() => page.getByRole('heading', { name: 'Sign in to Panel Test' }).count()).toBe(1);
    expect(await page.evaluate(() => (globalThis as unknown as { sessionStorage: WebStorage }).sessionStorage.length)).toBe(0);
    expect(urls.filter((url) => url.includes(SECURITY_KEY))).toEqual([]);
    await page.close();
  });

  it('offers only the pages a svc_pat_ token can use, and signs out with the reason when it is revoked', async () => {
    const token = await mint(secured.url, SECURITY_KEY, 'chat-only', ['agents:read', 'agents:run']);
    const page = await browser.page();
    await page.goto(`${secured.url}/ui/connect`);
    await page.getByLabel('Credential').fill(token);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.getByText('Signed in as sa:chat-only').count()).toBe(1);
    const nav = page.getByRole('navigation', { name: 'Pages' });
    expect(await nav.getByRole('link').allTextContents()).toEqual(['Chat', 'Connect']);

    const list = (await (await fetch(`${secured.url}/service-accounts`, { headers: { authorization: `Bearer ${SECURITY_KEY}` } })).json()) as {
      data: { id: string; name: string }[];
    };
    const id = list.data.find((a) => a.name === 'chat-only')!.id;
    await fetch(`${secured.url}/service-accounts/${id}`, { method: 'DELETE', headers: { authorization: `Bearer ${SECURITY_KEY}` } });
    await page.reload();
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('Invalid or expired service account token');
    await page.close();
  });

  it('loaded nothing from off the machine and met no CSP refusal', () => {
    expect(browser.offMachine).toEqual([]);
    expect(browser.cspViolations).toEqual([]);
  });
});
