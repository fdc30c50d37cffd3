/**
 * The Chat page in a real browser against agents on the loopback fake model: streamed text, tool
 * calls with their arguments and results, a paused run approved and declined call by call, a
 * cancelled run, a team and a workflow, sessions listed, resumed, renamed and deleted, the whole
 * chat by keyboard alone, and an answer carrying <script> and onerror= that runs nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { chromiumFound, launch, screenshot, seriousViolations, type Browser } from './support/browser.js';
import { tabTo } from './support/keyboard.js';
import { startPanelRuntime, type PanelRuntime } from './support/runtime.js';
import { requireChromiumOnCi, skipReason } from './support/suite.js';

requireChromiumOnCi();

describe.skipIf(!chromiumFound)(`the Chat page${skipReason}`, () => {
  let rt: PanelRuntime;
  let browser: Browser;
  let page: Page;
  const dialogs: string[] = [];

  beforeAll(async () => {
    [rt, browser] = await Promise.all([startPanelRuntime(), launch()]);
    page = await browser.page();
    page.on('dialog', (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
  });
  afterAll(async () => {
    await browser?.close();
    await rt?.stop();
  });

  const answers = () => page.getByTestId('message-assistant');
  const talkTo = (label: string) => page.getByLabel('Talk to').selectOption({ label });
  const say = async (text: string) => {
    await page.getByLabel('Message').fill(text);
    await page.getByRole('button', { name: 'Send' }).click();
  };
  const newChat = () => page.getByRole('button', { name: 'New chat' }).click();

  it('streams an answer after a tool call that shows its arguments and result', async () => {
    await page.goto(`${rt.url}/ui/chat`);
    await expect.poll(() => page.getByLabel('Talk to').inputValue()).toBe('agent:helper');
    await say('What is the weather?');
    await expect.poll(() => answers().last().textContent()).toContain('You said: What is the weather?');
    const call = page.getByTestId('tool-call');
    expect(await call.getAttribute('data-state')).toBe('done');
    expect(await call.textContent()).toContain('Tool: get_weather');
    expect(await call.locator('pre').first().textContent()).toContain('"city": "Paris"');
    await call.getByText('Result').click();
    expect(await call.textContent()).toContain('Sunny in Paris');
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, 'chat');
  });

  it('approves and declines paused calls, with their arguments shown', async () => {
    await talkTo('Files');
    await say('Delete notes.txt');
    const approval = page.getByTestId('approval');
    await expect.poll(() => approval.count()).toBe(1);
    expect(await approval.getByTestId('approval-call').textContent()).toContain('"path":"notes.txt"');
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, 'chat-paused');
    await approval.getByLabel('Approve').check();
    await approval.getByRole('button', { name: 'Continue the run' }).click();
    await expect.poll(() => answers().last().textContent()).toContain('You said: Delete notes.txt');
    expect(rt.deleted).toEqual(['notes.txt']);

    // A new session: in the same one the model already has a result for the tool and would just answer.
    await newChat();
    await say('Delete it again');
    await expect.poll(() => approval.count()).toBe(1);
    await approval.getByLabel('Decline').check();
    await approval.getByRole('button', { name: 'Continue the run' }).click();
    await expect.poll(() => approval.count()).toBe(0);
    await expect.poll(() => answers().last().textContent()).toContain('You said: Delete it again');
    expect(rt.deleted).toEqual(['notes.txt']);
  });

  it("cites the passages the librarian's knowledge search found under its answer", async () => {
    const form = new FormData();
    form.set('name', 'garden-guide.md');
    form.set('text_content', '# Garden guide\n\nBrew comfrey tea for the tomatoes.\n');
    const upload = await fetch(`${rt.url}/knowledge/content?knowledge_id=library`, { method: 'POST', body: form });
    expect(upload.status).toBe(202);
    const { id } = (await upload.json()) as { id: string };
    await expect
      .poll(async () => ((await (await fetch(`${rt.url}/knowledge/content/${id}/status?knowledge_id=library`)).json()) as { status: string }).status, { timeout: 15_000 })
      .toBe('completed');

    await talkTo('Librarian');
    await newChat();
    await say('How do I feed tomatoes?');
    await expect.poll(() => answers().last().textContent()).toContain('You said: How do I feed tomatoes?');
    const sources = answers().last().getByTestId('source');
    await expect.poll(() => sources.count()).toBe(1);
    expect(await sources.first().textContent()).toContain('garden-guide');
    expect(await sources.first().textContent()).toContain('Brew comfrey tea for the tomatoes.');
    expect(await page.getByTestId('tool-call').last().textContent()).toContain('Tool: search_knowledge_base');
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, 'chat-sources');
  });

  it('cancels a run while it streams', async () => {
    await talkTo('Echo');
    await newChat();
    rt.fake.setBehaviour({ chunkDelayMs: 200, answer: () => 'one two three four five six seven eight nine ten eleven twelve' });
    try {
      await say('Count slowly');
      await expect.poll(() => answers().count()).toBe(1);
      await page.getByRole('button', { name: 'Cancel run' }).click();
      await expect.poll(() => page.getByText('The run was cancelled.').count(), { timeout: 10_000 }).toBe(1);
      expect(await answers().last().textContent()).not.toContain('twelve');
    } finally {
      rt.fake.setBehaviour({ chunkDelayMs: 0, answer: (c) => `You said: ${c.lastUserMessage}` });
    }
  });

  it('talks to a team and to a workflow', async () => {
    await talkTo('Crew');
    await say('Hello team');
    await expect.poll(() => answers().last().textContent()).toContain('You said:');
    await talkTo('Flow');
    await say('quiet words');
    await expect.poll(() => answers().last().textContent()).toContain('You said: QUIET WORDS');
  });

  it('lists sessions, resumes, renames and deletes them', async () => {
    await talkTo('Helper');
    const sessions = page.getByTestId('session');
    await expect.poll(() => sessions.count()).toBe(1);
    await sessions.first().getByRole('button').first().click();
    await expect.poll(() => page.getByTestId('message-user').first().textContent()).toContain('What is the weather?');
    // Going on in the resumed session adds a run to it rather than starting another.
    await say('And tomorrow?');
    await expect.poll(() => answers().last().textContent()).toContain('You said: And tomorrow?');
    expect(await sessions.count()).toBe(1);

    await sessions.first().getByRole('button', { name: /^Rename/ }).click();
    await page.getByLabel('New name').fill('Weather talk');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => sessions.first().getByRole('button').first().textContent()).toBe('Weather talk');

    await sessions.first().getByRole('button', { name: 'Delete Weather talk' }).click();
    await page.getByRole('dialog', { name: 'Delete this session?' }).getByRole('button', { name: 'Delete' }).click();
    await expect.poll(() => sessions.count()).toBe(0);
  });

  it('renders an answer carrying <script>, onerror= and a javascript: link as inert text', async () => {
    await talkTo('Echo');
    await newChat();
    await say('<script>globalThis.__xss = 1</script> <img src=x onerror="globalThis.__xss = 2"> [bad](javascript:globalThis.__xss=3) [good](https://example.com/)');
    await expect.poll(() => answers().count()).toBe(1);
    const answer = answers().last();
    await expect.poll(() => answer.locator('a').count()).toBeGreaterThan(0);
    expect(await answer.locator('script, img, [onerror]').count()).toBe(0);
    expect(await answer.locator('a[href^="javascript"]').count()).toBe(0);
    expect(await answer.locator('a[href="https://example.com/"]').getAttribute('rel')).toBe('noopener noreferrer');
    expect(await page.evaluate(() => (globalThis as unknown as { __xss?: number }).__xss)).toBeUndefined();
    expect(dialogs).toEqual([]);
  });

  it('works by keyboard alone: choose, write, send, approve', async () => {
    const keys = await browser.page();
    await keys.goto(`${rt.url}/ui/chat`);
    await expect.poll(() => keys.getByLabel('Talk to').inputValue()).toBe('agent:helper');
    await tabTo(keys, (el) => el.id === 'component');
    // Helper, Echo, Files: two steps down.
    await keys.keyboard.press('ArrowDown');
    await keys.keyboard.press('ArrowDown');
    await expect.poll(() => keys.getByLabel('Talk to').inputValue()).toBe('agent:files');
    await tabTo(keys, (el) => el.id === 'message');
    await keys.keyboard.type('Delete notes.txt please');
    await keys.keyboard.press('Enter');
    await expect.poll(() => keys.getByTestId('approval').count()).toBe(1);
    await tabTo(keys, (el) => el.tag === 'INPUT' && (el.name ?? '').startsWith('decision-'));
    await keys.keyboard.press('Space');
    await tabTo(keys, (el) => el.text === 'Continue the run');
    await keys.keyboard.press('Enter');
    await expect.poll(() => keys.getByTestId('message-assistant').last().textContent()).toContain('You said: Delete notes.txt please');
    expect(rt.deleted.at(-1)).toBe('notes.txt');
    await keys.close();
  });

  it('loaded nothing from off the machine and met no CSP refusal', () => {
    expect(browser.offMachine).toEqual([]);
    expect(browser.cspViolations).toEqual([]);
  });
});
