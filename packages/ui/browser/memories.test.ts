/**
 * The Memories page in a real browser: with the security key every user's memories are listed
 * and filtered by user; one is added through the form and one deleted behind a confirmation.
 * Signed in with a service-account token, the page shows only that account's own memories.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { chromiumFound, launch, screenshot, seriousViolations, type Browser } from './support/browser.js';
import { SECURITY_KEY, startPanelRuntime, type PanelRuntime } from './support/runtime.js';
import { mint, requireChromiumOnCi, skipReason } from './support/suite.js';

requireChromiumOnCi();

describe.skipIf(!chromiumFound)(`the Memories page${skipReason}`, () => {
  let rt: PanelRuntime;
  let browser: Browser;
  let page: Page;

  const remember = async (credential: string, body: Record<string, unknown>) => {
    const res = await fetch(`${rt.url}/memories`, { method: 'POST', headers: { authorization: `Bearer ${credential}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    expect(res.status).toBe(201);
  };
  const rows = () => page.getByTestId('memory');

  beforeAll(async () => {
    [rt, browser] = await Promise.all([startPanelRuntime({ securityKey: SECURITY_KEY }), launch()]);
    await remember(SECURITY_KEY, { memory: 'Ada keeps bees', user_id: 'ada', topics: ['hobbies'] });
    await remember(SECURITY_KEY, { memory: 'Ada lives in Lyon', user_id: 'ada', topics: ['home'] });
    await remember(SECURITY_KEY, { memory: 'Ben rows on Sundays', user_id: 'ben' });
    page = await browser.page({ credential: SECURITY_KEY });
  });
  afterAll(async () => {
    await browser?.close();
    await rt?.stop();
  });

  it("lists every user's memories for the key, and filters by user", async () => {
    await page.goto(`${rt.url}/ui/memories`);
    await expect.poll(() => rows().count()).toBe(3);
    await page.getByLabel('User', { exact: true }).fill('ada');
    await page.getByRole('button', { name: 'Show' }).click();
    await expect.poll(() => rows().count()).toBe(2);
    expect(await rows().allTextContents()).toEqual([expect.stringContaining('Ada lives in Lyon'), expect.stringContaining('Ada keeps bees')]);
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, 'memories');
  });

  it('adds a memory through the form and deletes one behind a confirmation', async () => {
    await page.getByLabel('Memory', { exact: true }).fill('Ada prefers green tea');
    await page.getByLabel('Topics (comma-separated)').fill('drinks, food');
    await page.getByRole('button', { name: 'Add' }).click();
    await expect.poll(() => rows().count()).toBe(3);
    expect(await rows().first().textContent()).toContain('drinks, food');
    await page.getByRole('button', { name: 'Delete the memory “Ada keeps bees”' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
    await expect.poll(() => rows().count()).toBe(2);
    const left = await fetch(`${rt.url}/memories?user_id=ada`, { headers: { authorization: `Bearer ${SECURITY_KEY}` } });
    expect(((await left.json()) as { data: { memory: string }[] }).data.map((m) => m.memory)).toEqual(['Ada prefers green tea', 'Ada lives in Lyon']);
  });

  it('shows a service account only its own memories', async () => {
    const token = await mint(rt.url, SECURITY_KEY, 'bot', ['memories:read', 'memories:write']);
    await remember(token, { memory: 'The bot runs nightly' });
    const own = await browser.page({ credential: token });
    await own.goto(`${rt.url}/ui/memories`);
    await expect.poll(() => own.getByTestId('memory').count()).toBe(1);
    expect(await own.getByTestId('memory').textContent()).toContain('sa:bot');
    // Without memories:delete there is no delete control.
    expect(await own.getByRole('button', { name: /Delete the memory/ }).count()).toBe(0);
    await own.close();
  });
});
