/**
 * The Knowledge page in a real browser: the base's readers, chunkers and search types; files
 * uploaded by the picker (several, each with its progress) and by drag and drop, a text, a URL
 * the runtime refuses; records going from processing to completed, or to failed with the reason;
 * a search showing scores; a delete behind a confirmation; document text that carries <script>
 * and onerror= shown as text, never run. On SQLite and on PostgreSQL (a fresh schema; with
 * REQUIRE_POSTGRES=1, as .ci/run sets, a missing server fails rather than skips).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { chromiumFound, launch, screenshot, seriousViolations, type Browser } from './support/browser.js';
import { testDatabaseKinds } from '../../runtime/test/support/databases.js';
import { startPanelRuntime, type PanelRuntime } from './support/runtime.js';
import { requireChromiumOnCi, skipReason } from './support/suite.js';

requireChromiumOnCi();

const HOSTILE = 'Hostile notes about marigolds. <script>globalThis.__xss = 1</script> <img src=x onerror="globalThis.__xss = 2"> [click](javascript:globalThis.__xss=3)';

for (const kind of testDatabaseKinds) {
  describe.skipIf(!chromiumFound || !kind.available)(`the Knowledge page on ${kind.kind}${skipReason}`, () => {
    let rt: PanelRuntime;
    let browser: Browser;
    let page: Page;
    const dialogs: string[] = [];

    beforeAll(async () => {
      [rt, browser] = await Promise.all([startPanelRuntime({ database: kind }), launch()]);
      page = await browser.page();
      page.on('dialog', (dialog) => {
        dialogs.push(dialog.message());
        void dialog.dismiss();
      });
      await page.goto(`${rt.url}/ui/knowledge`);
    });
    afterAll(async () => {
      await browser?.close();
      await rt?.stop();
    });

    const record = (name: string) => page.getByTestId('record').filter({ hasText: name });

    it("shows the base's search types, readers and chunkers", async () => {
      await expect.poll(() => page.getByRole('heading', { name: 'Knowledge', exact: true }).count()).toBe(1);
      await expect.poll(() => page.getByTestId('search-types').textContent()).toBe('keyword');
      await page.getByText('Readers and their chunkers').click();
      await expect.poll(() => page.getByRole('cell', { name: 'pdf', exact: true }).count()).toBe(1);
    });

    it('uploads several picked files, each with its progress, and shows why one failed', async () => {
      await page.getByLabel('Files to upload').setInputFiles([
        { name: 'garden-guide.md', mimeType: 'text/markdown', buffer: Buffer.from('# Garden guide\n\nBrew comfrey tea for the tomatoes.\n') },
        { name: 'broken.pdf', mimeType: 'application/pdf', buffer: Buffer.from('this is not a PDF at all') },
      ]);
      const uploads = page.getByTestId('upload');
      await expect.poll(() => uploads.count()).toBe(2);
      await expect.poll(() => uploads.filter({ hasText: 'accepted' }).count()).toBe(2);
      expect(await page.locator('progress').evaluateAll((bars) => bars.map((bar) => (bar as unknown as { value: number }).value))).toEqual([1, 1]);
      await expect.poll(() => record('garden-guide.md').getByTestId('record-status').textContent(), { timeout: 15_000 }).toBe('completed');
      await expect.poll(() => record('broken.pdf').getByTestId('record-status').textContent(), { timeout: 15_000 }).toBe('failed');
      expect(await record('broken.pdf').getByTestId('record-reason').textContent()).toMatch(/^Failed: .+/);
    });

    it('uploads a dropped file', async () => {
      const transfer = await page.evaluateHandle(() => {
        const g = globalThis as unknown as { DataTransfer: new () => { items: { add(file: unknown): void } }; File: new (parts: string[], name: string, options: object) => unknown };
        const data = new g.DataTransfer();
        data.items.add(new g.File(['Dropped notes: the seed swap is on Saturday.'], 'dropped.txt', { type: 'text/plain' }));
        return data;
      });
      await page.getByTestId('dropzone').dispatchEvent('drop', { dataTransfer: transfer });
      await expect.poll(() => record('dropped.txt').getByTestId('record-status').textContent(), { timeout: 15_000 }).toBe('completed');
    });

    it('adds a text, and says why a URL is refused', async () => {
      await page.getByLabel('Text name').fill('hostile-notes');
      await page.getByLabel('Text', { exact: true }).fill(HOSTILE);
      await page.getByRole('button', { name: 'Add text' }).click();
      await expect.poll(() => record('hostile-notes').getByTestId('record-status').textContent(), { timeout: 15_000 }).toBe('completed');

      // A loopback address is refused by the runtime's SSRF guard (and so never fetched).
      await page.getByLabel('URL').fill('http://127.0.0.1:9/private');
      await page.getByRole('button', { name: 'Add URL' }).click();
      const problem = async () => {
        const alert = (await page.getByRole('alert').allTextContents()).join(' ');
        const failed = (await record('127.0.0.1').getByTestId('record-reason').allTextContents()).join(' ');
        return `${alert} ${failed}`.trim();
      };
      await expect.poll(problem, { timeout: 15_000 }).not.toBe('');
    });

    it('searches with a type and a limit and shows the scores', async () => {
      await page.getByLabel('Query').fill('comfrey tea');
      await page.getByLabel('Search type').selectOption('keyword');
      await page.getByLabel('Limit').fill('3');
      await page.getByRole('button', { name: 'Search' }).click();
      const hits = page.getByTestId('hit');
      await expect.poll(() => hits.count()).toBeGreaterThan(0);
      expect(await hits.first().textContent()).toContain('comfrey tea');
      expect(await hits.first().getByTestId('hit-score').textContent()).toMatch(/^score \d+\.\d{3}$/);
      expect(await seriousViolations(page)).toEqual([]);
      await screenshot(page, `knowledge-${kind.kind}`);
    });

    it('shows a document carrying <script> and onerror= as text, running nothing', async () => {
      await page.getByLabel('Query').fill('marigolds');
      await page.getByRole('button', { name: 'Search' }).click();
      const hit = page.getByTestId('hit').filter({ hasText: 'marigolds' });
      await expect.poll(() => hit.count()).toBe(1);
      expect(await hit.textContent()).toContain('<script>globalThis.__xss = 1</script>');
      expect(await page.locator('.hits img, .hits script, .hits a[href^="javascript"]').count()).toBe(0);
      expect(await page.evaluate(() => (globalThis as unknown as { __xss?: number }).__xss)).toBeUndefined();
      expect(dialogs).toEqual([]);
    });

    it('deletes a record only after the confirmation', async () => {
      await record('dropped.txt').getByRole('button', { name: 'Delete dropped.txt' }).click();
      const dialog = page.getByRole('dialog', { name: 'Delete this content?' });
      await expect.poll(() => dialog.isVisible()).toBe(true);
      expect(await seriousViolations(page)).toEqual([]);
      await dialog.getByRole('button', { name: 'Cancel' }).click();
      expect(await record('dropped.txt').count()).toBe(1);
      await record('dropped.txt').getByRole('button', { name: 'Delete dropped.txt' }).click();
      await dialog.getByRole('button', { name: 'Delete' }).click();
      await expect.poll(() => record('dropped.txt').count()).toBe(0);
    });

    it('loaded nothing from off the machine and met no CSP refusal', () => {
      expect(browser.offMachine).toEqual([]);
      expect(browser.cspViolations).toEqual([]);
    });
  });
}
