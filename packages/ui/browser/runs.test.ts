/**
 * The Runs page in a real browser: usage per day from GET /metrics (chart and table), a session's
 * runs, a run's stored events and its trace tree (the run span over its model and tool calls).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { chromiumFound, launch, screenshot, seriousViolations, type Browser } from './support/browser.js';
import { startPanelRuntime, type PanelRuntime } from './support/runtime.js';
import { requireChromiumOnCi, skipReason } from './support/suite.js';

requireChromiumOnCi();

describe.skipIf(!chromiumFound)(`the Runs page${skipReason}`, () => {
  let rt: PanelRuntime;
  let browser: Browser;
  let page: Page;
  let runId: string;

  beforeAll(async () => {
    [rt, browser] = await Promise.all([startPanelRuntime(), launch()]);
    const res = await fetch(`${rt.url}/agents/helper/runs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ message: 'Weather in Paris?', stream: false }),
    });
    runId = ((await res.json()) as { run_id: string }).run_id;
    page = await browser.page();
  });
  afterAll(async () => {
    await browser?.close();
    await rt?.stop();
  });

  it("charts today's usage and lists it in a table", async () => {
    // The trace is written at most a fraction of a second after the run ends.
    await expect.poll(async () => ((await (await fetch(`${rt.url}/traces/${runId}`)).json()) as { status?: string }).status, { timeout: 10_000 }).toBe('COMPLETED');
    await page.goto(`${rt.url}/ui/runs`);
    await expect.poll(() => page.getByTestId('usage-chart').count()).toBe(1);
    const today = new Date().toISOString().slice(0, 10);
    const row = page.getByTestId('usage-table').getByRole('row').filter({ hasText: today });
    // One run of two model calls (the tool call, then the answer) of 12 tokens in and 5 out each.
    expect(await row.getByRole('cell').allTextContents()).toEqual([today, '1', '0', '24', '10', expect.stringMatching(/ ms$/), 'unpriced']);
    expect(await page.getByTestId('usage-chart').locator('rect').count()).toBe(2);
  });

  it("shows a session's runs, a run's events and its trace tree", async () => {
    await page.getByTestId('runs-session').first().getByRole('button').first().click();
    await page.getByTestId('run').getByRole('button', { name: 'Weather in Paris?' }).click();
    const events = page.getByTestId('event');
    await expect.poll(async () => (await events.allTextContents()).map((t) => t.split(' ')[0])).toEqual(
      expect.arrayContaining(['RunStarted', 'ToolCallStarted', 'ToolCallCompleted', 'RunCompleted']),
    );
    const spans = page.getByTestId('span');
    await expect.poll(() => spans.count()).toBe(4);
    expect(await page.locator('[data-testid="span"][data-kind="run"]').count()).toBe(1);
    expect(await page.locator('[data-testid="span"][data-kind="model"]').count()).toBe(2);
    expect(await page.locator('[data-testid="span"][data-kind="tool"]').textContent()).toContain('get_weather');
    expect(await page.locator('[data-testid="span"][data-kind="model"]').first().textContent()).toContain('12 in / 5 out');
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, 'runs');
  });

  it('loaded nothing from off the machine and met no CSP refusal', () => {
    expect(browser.offMachine).toEqual([]);
    expect(browser.cspViolations).toEqual([]);
  });
});
