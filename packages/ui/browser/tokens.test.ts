/**
 * The Tokens page in a real browser, signed in with the security key: accounts listed (revoked
 * ones too), a token minted and shown once with a copy button, a privileged scope refused without
 * consent (the runtime's reason shown), and a revocation behind a confirmation that stops the
 * token at once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { chromiumFound, launch, screenshot, seriousViolations, type Browser } from './support/browser.js';
import { SECURITY_KEY, startPanelRuntime, type PanelRuntime } from './support/runtime.js';
import { requireChromiumOnCi, skipReason } from './support/suite.js';

requireChromiumOnCi();

describe.skipIf(!chromiumFound)(`the Tokens page${skipReason}`, () => {
  let rt: PanelRuntime;
  let browser: Browser;
  let page: Page;
  let token: string;

  beforeAll(async () => {
    [rt, browser] = await Promise.all([startPanelRuntime({ securityKey: SECURITY_KEY }), launch()]);
    await browser.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: rt.url });
    page = await browser.page({ credential: SECURITY_KEY });
  });
  afterAll(async () => {
    await browser?.close();
    await rt?.stop();
  });

  const whoami = async (credential: string) => (await fetch(`${rt.url}/auth/whoami`, { headers: { authorization: `Bearer ${credential}` } })).status;
  const row = (name: string) => page.getByTestId('account').filter({ hasText: name });

  it('mints a token, shown once with a copy button, that the runtime accepts', async () => {
    await page.goto(`${rt.url}/ui/tokens`);
    await page.getByLabel('Name').fill('ci-bot');
    await page.getByRole('button', { name: 'Mint' }).click();
    const shown = page.getByTestId('minted-token');
    await expect.poll(() => shown.count()).toBe(1);
    token = (await shown.textContent()) ?? '';
    expect(token).toMatch(/^svc_pat_[A-Za-z0-9]+$/);
    await page.getByRole('button', { name: 'Copy the token for ci-bot' }).click();
    await expect.poll(() => page.getByText('Copied', { exact: true }).count()).toBe(1);
    expect(await page.evaluate(() => (globalThis as unknown as { navigator: { clipboard: { readText(): Promise<string> } } }).navigator.clipboard.readText())).toBe(token);
    expect(await whoami(token)).toBe(200);
    await expect.poll(() => row('ci-bot').count()).toBe(1);
    expect(await row('ci-bot').textContent()).toContain('agents:run, teams:run, workflows:run, sessions:read, config:read');
    expect(await row('ci-bot').textContent()).not.toContain(token);
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, 'tokens');
    await page.getByRole('button', { name: 'I have stored it' }).click();
    expect(await shown.count()).toBe(0);
  });

  it('says why a privileged scope is refused without consent', async () => {
    await page.getByLabel('Name').fill('writer');
    await page.getByLabel('Scopes (one per line)').fill('knowledge:write');
    await page.getByRole('button', { name: 'Mint' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toMatch(/privileged/i);
  });

  it('revokes only after the confirmation, and the token stops at once', async () => {
    await row('ci-bot').getByRole('button', { name: 'Revoke ci-bot' }).click();
    const dialog = page.getByRole('dialog', { name: 'Revoke ci-bot?' });
    await expect.poll(() => dialog.isVisible()).toBe(true);
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    expect(await whoami(token)).toBe(200);
    await row('ci-bot').getByRole('button', { name: 'Revoke ci-bot' }).click();
    await dialog.getByRole('button', { name: 'Revoke' }).click();
    await expect.poll(() => row('ci-bot').textContent()).toContain('revoked');
    expect(await whoami(token)).toBe(401);
  });

  it('loaded nothing from off the machine and met no CSP refusal', () => {
    expect(browser.offMachine).toEqual([]);
    expect(browser.cspViolations).toEqual([]);
  });
});
