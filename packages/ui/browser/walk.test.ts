/**
 * The panel issue's "done when", walked as a user does it in one go: the quickstart started the
 * way `npm start` starts it (a subprocess, no build of its own, a scratch directory, a model
 * configured through OPENAI_API_KEY and OPENAI_BASE_URL pointed at the loopback fake model), then
 * in the browser: the sample corpus uploaded on the Knowledge page, a question searched in other
 * words than the passage's, the librarian asked in the chat (its answer citing the passage its
 * search found), and the run's trace opened on the Runs page.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { SAMPLES, SAMPLES_DIR, writeGeneratedSamples } from '../../../examples/quickstart/src/samples.js';
import { freePort, start, waitFor, type Proc } from '../../../examples/quickstart/test/process.js';
import { startFakeLlm, type FakeLlm } from '../../runtime/test/support/fake-llm.js';
import { chromiumFound, launch, screenshot, seriousViolations, type Browser } from './support/browser.js';
import { requireChromiumOnCi, skipReason } from './support/suite.js';

requireChromiumOnCi();

describe.skipIf(!chromiumFound)(`the quickstart walked in the panel${skipReason}`, () => {
  let cwd: string;
  let generated: string;
  let fake: FakeLlm;
  let proc: Proc;
  let url: string;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    cwd = mkdtempSync(join(tmpdir(), 'svc-ui-walk-'));
    generated = join(cwd, 'generated');
    [fake, browser] = await Promise.all([startFakeLlm({ toolArguments: { search_knowledge_base: { query: 'how do I collect rain water' } } }), launch(), writeGeneratedSamples(generated)]);
    const port = await freePort();
    proc = start({ PORT: String(port), OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: `${fake.url}/v1`, OPENAI_MODEL: 'fake-model' }, cwd);
    await waitFor(() => proc.stdout.includes('/ui'), proc, 60_000);
    url = `http://127.0.0.1:${port}`;
    page = await browser.page();
  }, 90_000);

  afterAll(async () => {
    await browser?.close();
    if (proc && proc.child.exitCode === null) {
      proc.child.kill('SIGTERM');
      await proc.exited;
    }
    await fake?.close();
    rmSync(cwd, { recursive: true, force: true });
  });

  it('uploads the sample corpus on the Knowledge page and every file completes', async () => {
    await page.goto(`${url}/ui/knowledge`);
    await page.getByLabel('Knowledge base').selectOption('library');
    await expect.poll(() => page.getByTestId('search-types').textContent()).toContain('hybrid');
    await page.getByLabel('Files to upload').setInputFiles(SAMPLES.map((s) => join(s.generated ? generated : SAMPLES_DIR, s.file)));
    const record = (name: string) => page.getByTestId('record').filter({ hasText: name });
    for (const sample of SAMPLES) {
      await expect.poll(() => record(sample.file).getByTestId('record-status').textContent(), { timeout: 60_000 }).toBe('completed');
    }
  }, 120_000);

  it('searches the corpus in other words than the passage and finds the rainwater cistern', async () => {
    await page.getByLabel('Query').fill('how do I collect rain water');
    await page.getByLabel('Search type').selectOption('hybrid');
    await page.getByLabel('Limit').fill('3');
    await page.getByRole('button', { name: 'Search' }).click();
    const hits = page.getByTestId('hit');
    await expect.poll(() => hits.count()).toBeGreaterThan(0);
    expect((await hits.allTextContents()).join(' ')).toContain('rainwater cistern');
    await screenshot(page, 'walk-knowledge');
  });

  it('asks the librarian, whose answer cites the passage its search found', async () => {
    await page.goto(`${url}/ui/chat`);
    await page.getByLabel('Talk to').selectOption({ label: 'Librarian' });
    await page.getByLabel('Message').fill('How do we collect rain water?');
    await page.getByRole('button', { name: 'Send' }).click();
    const answer = page.getByTestId('message-assistant').last();
    await expect.poll(() => answer.textContent(), { timeout: 20_000 }).toContain('You said: How do we collect rain water?');
    const sources = answer.getByTestId('source');
    await expect.poll(() => sources.count()).toBeGreaterThan(0);
    // A hit is named by its record's name without the extension, as the model sees it.
    expect((await sources.allTextContents()).some((text) => text.startsWith('annual-report'))).toBe(true);
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, 'walk-chat');
  });

  it("opens the run's trace: the run over its model calls and the knowledge search", async () => {
    await page.goto(`${url}/ui/runs`);
    await page.getByTestId('runs-session').first().getByRole('button').first().click();
    await page.getByTestId('run').getByRole('button', { name: 'How do we collect rain water?' }).click();
    const span = (kind: string) => page.locator(`[data-testid="span"][data-kind="${kind}"]`);
    await expect.poll(() => span('run').count(), { timeout: 10_000 }).toBe(1);
    await expect.poll(() => span('model').count()).toBe(2);
    expect(await span('tool').textContent()).toContain('search_knowledge_base');
    expect(await span('knowledge').count()).toBe(1);
    await screenshot(page, 'walk-trace');
  });

  it('loaded nothing from off the machine and met no CSP refusal', () => {
    expect(browser.offMachine).toEqual([]);
    expect(browser.cspViolations).toEqual([]);
  });
});
