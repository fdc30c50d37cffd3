/**
 * The MCP servers page in a real browser: an agent using the real server-everything over stdio
 * (connected after a run, its tools listed, one asking for confirmation), a server whose command
 * cannot start (failed, with its error) and an HTTP server whose URL query, headers and token
 * never reach the page (refused: a private host). Reached from the menu; Refresh shows the
 * servers connected by a run; axe finds nothing serious.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { Agent, mcpServer } from '@svc/runtime';
import { everythingStdio } from '../../runtime/test/support/mcp-servers.js';
import { chromiumFound, launch, screenshot, seriousViolations, type Browser } from './support/browser.js';
import { SECURITY_KEY, startPanelRuntime, type PanelRuntime } from './support/runtime.js';
import { requireChromiumOnCi, skipReason } from './support/suite.js';

requireChromiumOnCi();

const SECRET = 'mcp-secret-token-5b1f';

describe.skipIf(!chromiumFound)(`the MCP servers page${skipReason}`, () => {
  let rt: PanelRuntime;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    [rt, browser] = await Promise.all([
      startPanelRuntime({
        securityKey: SECURITY_KEY,
        moreAgents: (model) => [
          new Agent({
            id: 'toolsmith',
            model: model(),
            tools: [
              mcpServer({ id: 'everything', ...everythingStdio(), include: ['echo', 'get-sum'], requiresConfirmation: ['get-sum'] }),
              mcpServer({ id: 'missing', command: 'no-such-mcp-server-command', args: [`--token=${SECRET}`] }),
              mcpServer({ id: 'remote', url: `https://127.0.0.1:9/mcp?key=${SECRET}`, headers: { authorization: `Bearer ${SECRET}` } }),
            ],
          }),
        ],
      }),
      launch(),
    ]);
    page = await browser.page({ credential: SECURITY_KEY });
  }, 90_000);
  afterAll(async () => {
    await browser?.close();
    await rt?.stop();
  });

  const row = (id: string) => page.getByTestId('mcp-server').filter({ has: page.getByRole('cell', { name: id, exact: true }) });
  const cells = async (id: string) => (await row(id).getByRole('cell').allTextContents()).map((t) => t.trim());

  it('lists each server with who uses it, its transport, status, tools and last error, reached from the menu', async () => {
    await page.goto(`${rt.url}/ui/chat`);
    await page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: 'MCP servers' }).click();
    await expect.poll(() => page.getByTestId('mcp-server').count()).toBe(3);
    // Servers connect on first use: none has been used yet.
    expect((await cells('everything')).slice(3)).toEqual(['idle', 'not listed yet', 'none']);
    rt.fake.script({ kind: 'text', text: 'Ready.' });
    const res = await fetch(`${rt.url}/agents/toolsmith/runs`, {
      method: 'POST',
      headers: { authorization: `Bearer ${SECURITY_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ message: 'hello', stream: false }),
    });
    expect(res.status).toBe(200);
    await page.getByRole('button', { name: 'Refresh' }).click();
    await expect.poll(async () => (await cells('everything'))[3]).toBe('connected');
    expect(await cells('everything')).toEqual([
      'everything',
      'toolsmith (agent)',
      expect.stringMatching(/^stdio.*node/),
      'connected',
      expect.stringMatching(/echo.*get-sum \(asks for confirmation\)|get-sum \(asks for confirmation\).*echo/),
      'none',
    ]);
    expect(await cells('missing')).toEqual([
      'missing',
      'toolsmith (agent)',
      'stdiono-such-mcp-server-command',
      'failed',
      'not listed yet',
      'MCP server "missing" failed: cannot start no-such-mcp-server-command: spawn no-such-mcp-server-command ENOENT',
    ]);
    const remote = await cells('remote');
    expect(remote.slice(0, 3)).toEqual(['remote', 'toolsmith (agent)', 'streamable-httphttps://127.0.0.1:9/mcp']);
    expect(remote[3]).toBe('failed');
    expect(await page.content()).not.toContain(SECRET);
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, 'mcp-servers');
  });
});
