/**
 * The Knowledge page on a base with an embedder and a remote content source, in a real browser:
 * the reindex status (idle, then a started reindex running to completed with every chunk done)
 * and a collection (a folder of the loopback S3 source, one record with a child per file)
 * expanding into its children, a bad file failing only its own child with the reason; the
 * source browsed folder by folder from the panel, and a file and a whole folder ingested. The
 * embeddings service and the bucket are loopback fakes from the runtime's own tests
 * (fake-embeddings.ts, fake-s3.ts): nothing leaves the machine. On SQLite and PostgreSQL, as
 * knowledge.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { S3Source } from '@svc/runtime';
import { testDatabaseKinds } from '../../runtime/test/support/databases.js';
import { startFakeEmbeddings, type FakeEmbeddings } from '../../runtime/test/support/fake-embeddings.js';
import { S3_KEY, startFakeS3, type FakeS3 } from '../../runtime/test/support/fake-s3.js';
import { chromiumFound, launch, screenshot, seriousViolations, type Browser } from './support/browser.js';
import { startPanelRuntime, type PanelRuntime } from './support/runtime.js';
import { requireChromiumOnCi, skipReason } from './support/suite.js';

requireChromiumOnCi();

const BUCKET = 'field-notes';
const RIVER = {
  'river/alpha.md': { body: '# Alpha\n\nThe alpha gauge reads otterbank levels every hour.\n', type: 'text/markdown' },
  'river/beta.md': { body: '# Beta\n\nBeta station counts kingfisher nests along the bend.\n', type: 'text/markdown' },
  'river/broken.json': { body: '{"levels": [1, 2', type: 'application/json' },
  'lake/heron.md': { body: '# Heron\n\nA grey heron fishes the shallows at dawn.\n', type: 'text/markdown' },
  'lake/reeds.md': { body: '# Reeds\n\nThe reed bed shelters warblers in spring.\n', type: 'text/markdown' },
  'readme.md': { body: '# Field notes\n\nWhat the rangers wrote down.\n', type: 'text/markdown' },
};

for (const kind of testDatabaseKinds) {
  describe.skipIf(!chromiumFound || !kind.available)(`reindexing, collections and remote sources on the Knowledge page on ${kind.kind}${skipReason}`, () => {
    let embeddings: FakeEmbeddings;
    let s3: FakeS3;
    let rt: PanelRuntime;
    let browser: Browser;
    let page: Page;

    beforeAll(async () => {
      [embeddings, s3, browser] = await Promise.all([startFakeEmbeddings(), startFakeS3(BUCKET, RIVER), launch()]);
      const credentials = { accessKeyId: S3_KEY, secretAccessKey: S3_KEY };
      rt = await startPanelRuntime({
        database: kind,
        embeddingsUrl: embeddings.url,
        contentSources: [new S3Source({ id: 'field', name: 'Field notes bucket', bucket: BUCKET, endpoint: s3.endpoint, credentials })],
      });
      page = await browser.page();
      await page.goto(`${rt.url}/ui/knowledge`);
    });
    afterAll(async () => {
      await browser?.close();
      await rt?.stop();
      await s3?.close();
      await embeddings?.close();
    });

    const record = (name: string) => page.getByTestId('record').filter({ hasText: name });

    it('shows the reindex status, and a started reindex running to completed with every chunk done', async () => {
      await expect.poll(() => page.getByTestId('reindex-state').textContent()).toBe('idle');
      await page.getByLabel('Text name').fill('weir-notes');
      await page.getByLabel('Text', { exact: true }).fill('The weir keeper oils the sluice gate every Sunday.');
      await page.getByRole('button', { name: 'Add text' }).click();
      await expect.poll(() => record('weir-notes').getByTestId('record-status').textContent(), { timeout: 15_000 }).toBe('completed');

      const before = embeddings.requests.length;
      await page.getByRole('button', { name: 'Reindex', exact: true }).click();
      await expect.poll(() => page.getByTestId('reindex-state').textContent(), { timeout: 15_000 }).toBe('completed');
      expect(await page.getByTestId('reindex-progress').textContent()).toMatch(/^(\d+) of \1 chunks · with openai:fake-embed$/);
      expect(embeddings.requests.length).toBeGreaterThan(before);
      expect(await page.getByRole('button', { name: 'Reindex', exact: true }).isEnabled()).toBe(true);
    });

    it("expands a remote folder's record into its children, a bad file failing only its own", async () => {
      const res = await fetch(`${rt.url}/knowledge/remote-content`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ config_id: 'field', path: 'river/' }),
      });
      expect(res.status).toBe(202);
      await page.reload();
      const folder = record('river/');
      const summary = folder.getByRole('button', { name: /completed, \d+ processing, \d+ failed$/ });
      await expect.poll(() => summary.textContent(), { timeout: 15_000 }).toBe('2 completed, 0 processing, 1 failed');
      await summary.click();
      expect(await summary.getAttribute('aria-expanded')).toBe('true');
      const children = folder.getByRole('region', { name: 'Pages and files of this collection' }).getByTestId('record');
      await expect.poll(() => children.count()).toBe(3);
      const statuses = await children.evaluateAll((rows) =>
        rows.map((row) => `${row.querySelector('.name')?.textContent} ${row.querySelector('[data-testid="record-status"]')?.textContent}`).sort(),
      );
      expect(statuses).toEqual(['river/alpha.md completed', 'river/beta.md completed', 'river/broken.json failed']);
      expect(await children.filter({ hasText: 'broken.json' }).getByTestId('record-reason').textContent()).toMatch(/^Failed: .*broken\.json/);
      expect(await seriousViolations(page)).toEqual([]);
      await screenshot(page, `knowledge-collection-${kind.kind}`);
    });

    it('browses the source folder by folder, and ingests a file and a whole folder from the panel', async () => {
      const sources = page.getByRole('region', { name: 'Remote sources' });
      const listing = sources.getByTestId('source-listing');
      const names = () => listing.locator('tbody tr td:first-child').allTextContents();
      await expect.poll(names).toEqual(['lake/', 'river/', 'readme.md']);
      expect(await sources.getByText('Field notes bucket (s3)').count()).toBe(1);

      await sources.getByRole('button', { name: 'Ingest readme.md' }).click();
      await expect.poll(() => sources.getByRole('status').textContent()).toBe('Accepted readme.md: processing');
      await expect.poll(() => record('readme.md').getByTestId('record-status').textContent(), { timeout: 15_000 }).toBe('completed');

      await sources.getByRole('button', { name: 'Open folder lake' }).click();
      await expect.poll(() => sources.getByTestId('source-prefix').textContent()).toBe('/lake/');
      await expect.poll(names).toEqual(['heron.md', 'reeds.md']);
      expect(await listing.getByTestId('source-file').first().locator('td').nth(1).textContent()).toMatch(/^\d+ B$/);
      expect(await seriousViolations(page)).toEqual([]);
      await screenshot(page, `knowledge-sources-${kind.kind}`);
      await sources.getByRole('button', { name: 'Ingest this folder' }).click();
      await expect.poll(() => sources.getByRole('status').textContent()).toBe('Accepted lake/: processing');
      const lake = record('lake/').getByRole('button', { name: /completed, \d+ processing, \d+ failed$/ });
      await expect.poll(() => lake.textContent(), { timeout: 15_000 }).toBe('2 completed, 0 processing, 0 failed');

      await sources.getByRole('button', { name: 'Up' }).click();
      await expect.poll(names).toEqual(['lake/', 'river/', 'readme.md']);
      // What was ingested is searchable.
      await page.getByLabel('Query').fill('heron');
      await page.getByLabel('Search type').selectOption('keyword');
      await page.getByRole('button', { name: 'Search' }).click();
      await expect.poll(() => page.getByTestId('hit').filter({ hasText: 'grey heron' }).count()).toBeGreaterThan(0);
    });

    it('loaded nothing from off the machine and met no CSP refusal', () => {
      expect(browser.offMachine).toEqual([]);
      expect(browser.cspViolations).toEqual([]);
    });
  });
}
