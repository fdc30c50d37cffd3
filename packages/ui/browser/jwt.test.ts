/**
 * Sign-in on a runtime in JWT mode, in a real browser: a token signed by the identity provider's
 * key (generated per run, packages/runtime/test/support/jwt.ts) pasted into the sign-in form
 * signs in as its subject; the scopes in its claims decide which pages are offered, and a page
 * they do not cover answers with the runtime's refusal; an expired token, one signed by another
 * key and one whose payload was edited are refused with the runtime's reason on the form.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { sign, signingKey, type SigningKey } from '../../runtime/test/support/jwt.js';
import { chromiumFound, launch, screenshot, seriousViolations, type Browser } from './support/browser.js';
import { startPanelRuntime, type PanelRuntime } from './support/runtime.js';
import { requireChromiumOnCi, skipReason } from './support/suite.js';

requireChromiumOnCi();

const AUDIENCE = 'panel-test';

/** The same signature over a payload granting more: what a forger would paste. */
function tampered(token: string, claims: Record<string, unknown>): string {
  const [header, payload, signature] = token.split('.') as [string, string, string];
  const edited = { ...JSON.parse(Buffer.from(payload, 'base64url').toString()), ...claims };
  return `${header}.${Buffer.from(JSON.stringify(edited)).toString('base64url')}.${signature}`;
}

async function signInWith(page: Page, token: string): Promise<void> {
  await page.getByLabel('Credential').fill(token);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

describe.skipIf(!chromiumFound)(`JWT sign-in${skipReason}`, () => {
  let rt: PanelRuntime;
  let browser: Browser;
  let idp: SigningKey;
  let stranger: SigningKey;

  beforeAll(async () => {
    [idp, stranger] = await Promise.all([signingKey('RS256', 'idp-1'), signingKey('RS256', 'other-1')]);
    [rt, browser] = await Promise.all([startPanelRuntime({ jwt: { verificationKeys: [idp.publicPem], audience: AUDIENCE } }), launch()]);
  });
  afterAll(async () => {
    await browser?.close();
    await rt?.stop();
  });

  it('signs in with a pasted token and offers only the pages its scopes cover', async () => {
    const token = await sign(idp, { claims: { sub: 'alice', aud: AUDIENCE, scopes: ['knowledge:read', 'agents:read'] } });
    const page = await browser.page();
    await page.goto(`${rt.url}/ui/knowledge`);
    await expect.poll(() => page.getByRole('heading', { name: 'Sign in to Panel Test' }).count()).toBe(1);
    expect(await page.getByText('a JWT from your identity provider').count()).toBe(1);
    await signInWith(page, token);
    await expect.poll(() => page.getByText('Signed in as alice').count()).toBe(1);
    const nav = page.getByRole('navigation', { name: 'Pages' });
    expect(await nav.getByRole('link').allTextContents()).toEqual(['Chat', 'Knowledge', 'Connect']);
    await expect.poll(() => page.getByRole('heading', { name: 'Knowledge', exact: true }).count()).toBe(1);
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, 'jwt-signed-in');

    // A page the claims do not cover, opened by its address: the runtime's 403, said on the page.
    await page.goto(`${rt.url}/ui/tokens`);
    await expect.poll(() => page.getByRole('alert').allTextContents().then((t) => t.join(' ')), { timeout: 10_000 }).toContain(
      'Required scope(s): service_accounts:read',
    );
    await page.close();
  });

  it('refuses an expired token, saying it has expired', async () => {
    const page = await browser.page();
    await page.goto(`${rt.url}/ui`);
    await signInWith(page, await sign(idp, { claims: { aud: AUDIENCE, scopes: ['agents:read'] }, expiresIn: -120 }));
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('Token has expired');
    expect(await page.getByRole('heading', { name: 'Sign in to Panel Test' }).count()).toBe(1);
    expect(await page.evaluate(() => (globalThis as unknown as { sessionStorage: { length: number } }).sessionStorage.length)).toBe(0);
    await page.close();
  });

  it('refuses a token signed by another key, and one whose claims were edited', async () => {
    const page = await browser.page();
    await page.goto(`${rt.url}/ui`);
    await signInWith(page, await sign(stranger, { claims: { aud: AUDIENCE, scopes: ['agents:read'] }, kid: 'idp-1' }));
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('Invalid token: signature verification failed');

    // A fresh form (the alert gone), so the second refusal is provably its own.
    await page.reload();
    await expect.poll(() => page.getByRole('heading', { name: 'Sign in to Panel Test' }).count()).toBe(1);
    expect(await page.getByRole('alert').count()).toBe(0);
    const honest = await sign(idp, { claims: { aud: AUDIENCE, scopes: ['agents:read'] } });
    await signInWith(page, tampered(honest, { scopes: ['agent_os:admin'] }));
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('Invalid token: signature verification failed');
    expect(await page.getByRole('heading', { name: 'Sign in to Panel Test' }).count()).toBe(1);
    await page.close();
  });

  it('loaded nothing from off the machine and met no CSP refusal', () => {
    expect(browser.offMachine).toEqual([]);
    expect(browser.cspViolations).toEqual([]);
  });
});
