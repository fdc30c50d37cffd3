/**
 * The panel under tenancy (issue 25), in a real browser: on a runtime with `tenant_claim:
 * org_id`, alice of acme signs in with her JWT and sees her own sessions, runs and documents,
 * and none of alice of globex (the same `sub` in another tenant) nor of bob (another user of
 * her tenant). Their rows are made through the API with their own tokens first.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { sign, signingKey, type SigningKey } from '../../runtime/test/support/jwt.js';
import { chromiumFound, launch, screenshot, seriousViolations, type Browser } from './support/browser.js';
import { startPanelRuntime, type PanelRuntime } from './support/runtime.js';
import { requireChromiumOnCi, skipReason } from './support/suite.js';

requireChromiumOnCi();

const AUDIENCE = 'panel-test';
const SCOPES = ['agents:read', 'agents:run', 'sessions:read', 'sessions:write', 'knowledge:read', 'knowledge:write', 'traces:read', 'metrics:read'];
const CALLERS = { aliceAcme: ['alice', 'acme'], aliceGlobex: ['alice', 'globex'], bobAcme: ['bob', 'acme'] } as const;
type Caller = keyof typeof CALLERS;

describe.skipIf(!chromiumFound)(`the panel under tenancy${skipReason}`, () => {
  let rt: PanelRuntime;
  let browser: Browser;
  let idp: SigningKey;
  const tokens = {} as Record<Caller, string>;

  async function api(who: Caller, method: string, path: string, body: unknown): Promise<Record<string, unknown>> {
    const res = await fetch(`${rt.url}${path}`, { method, headers: { 'content-type': 'application/json', authorization: `Bearer ${tokens[who]}` }, body: JSON.stringify(body) });
    expect(res.status, `${who} ${method} ${path}`).toBeLessThan(300);
    return (await res.json()) as Record<string, unknown>;
  }

  /** Waits for an upload's processing to end, which must be completed. */
  async function completed(who: Caller, id: string): Promise<void> {
    for (let i = 0; i < 600; i++) {
      const res = await fetch(`${rt.url}/knowledge/content/${id}/status`, { headers: { authorization: `Bearer ${tokens[who]}` } });
      const { status } = (await res.json()) as { status: string };
      if (status !== 'processing') {
        expect(status).toBe('completed');
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    throw new Error(`upload ${id} of ${who} is still processing`);
  }

  beforeAll(async () => {
    idp = await signingKey('RS256', 'idp-tenancy');
    [rt, browser] = await Promise.all([startPanelRuntime({ jwt: { verificationKeys: [idp.publicPem], audience: AUDIENCE, tenantClaim: 'org_id' } }), launch()]);
    for (const [who, [sub, org]] of Object.entries(CALLERS) as [Caller, readonly [string, string]][]) {
      tokens[who] = await sign(idp, { claims: { sub, org_id: org, aud: AUDIENCE, scopes: SCOPES } });
      await api(who, 'POST', '/agents/echo/runs', { message: `question of ${who}`, stream: false });
      const upload = await api(who, 'POST', '/knowledge/content', { name: `notes-of-${who}`, text_content: `What ${who} wrote down.` });
      await completed(who, String(upload.id));
    }
  });
  afterAll(async () => {
    await browser?.close();
    await rt?.stop();
  });

  async function signedInAsAliceOfAcme(): Promise<Page> {
    const page = await browser.page();
    await page.goto(`${rt.url}/ui/runs`);
    await page.getByLabel('Credential').fill(tokens.aliceAcme);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.getByText('Signed in as alice').count()).toBe(1);
    return page;
  }

  it("alice of acme sees her sessions and runs, none of alice of globex's or bob's", async () => {
    const page = await signedInAsAliceOfAcme();
    const sessions = page.getByTestId('runs-session');
    await expect.poll(() => sessions.allTextContents().then((t) => t.join('\n')), { timeout: 10_000 }).toContain('question of aliceAcme');
    expect(await sessions.count()).toBe(1);
    const text = await page.locator('main').textContent();
    expect(text).not.toContain('aliceGlobex');
    expect(text).not.toContain('bobAcme');
    await sessions.first().getByRole('button').first().click();
    await expect.poll(() => page.getByTestId('run').count()).toBe(1);
    expect(await page.getByTestId('run').textContent()).toContain('question of aliceAcme');
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, 'tenancy-runs');
    await page.close();
  });

  it("alice of acme sees her documents, none of alice of globex's or bob's", async () => {
    const page = await signedInAsAliceOfAcme();
    await page.goto(`${rt.url}/ui/knowledge`);
    const records = page.getByTestId('record');
    await expect.poll(() => records.allTextContents().then((t) => t.join('\n')), { timeout: 10_000 }).toContain('notes-of-aliceAcme');
    expect(await records.count()).toBe(1);
    const text = await page.locator('main').textContent();
    expect(text).not.toContain('notes-of-aliceGlobex');
    expect(text).not.toContain('notes-of-bobAcme');
    await screenshot(page, 'tenancy-knowledge');
    await page.close();
  });

  it('loaded nothing from off the machine and met no CSP refusal', () => {
    expect(browser.offMachine).toEqual([]);
    expect(browser.cspViolations).toEqual([]);
  });
});
