/**
 * Debian's chromium through playwright-core, as this machine allows (no downloaded browser, the
 * background-networking flags off), with every request that would leave loopback aborted and
 * recorded: a test asserts the list stays empty, so the panel provably loads nothing off the
 * machine. Also: axe-core injected into a page, and screenshots under test-artefacts/ui/.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { CHROMIUM, CHROMIUM_ARGS } from '../../../runtime/test/support/chromium.js';

export { CHROMIUM, chromiumFound } from '../../../runtime/test/support/chromium.js';

const ARTEFACTS = fileURLToPath(new URL('../../../../test-artefacts/ui/', import.meta.url));
const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

function isLoopback(url: string): boolean {
  let host: string;
  try {
    const parsed = new URL(url);
    if (parsed.protocol === 'data:' || parsed.protocol === 'blob:' || parsed.protocol === 'about:') return true;
    host = parsed.hostname;
  } catch {
    return false;
  }
  return host === 'localhost' || host === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

export interface Browser {
  context: BrowserContext;
  /** Every request aimed off loopback (all aborted). */
  offMachine: string[];
  /** Content-Security-Policy violations reported by any page. */
  cspViolations: string[];
  /** A new page; `credential` is put in its sessionStorage first, as a sign-in would. */
  page(options?: { credential?: string }): Promise<Page>;
  close(): Promise<void>;
}

interface PageGlobals {
  addEventListener(
    type: 'securitypolicyviolation',
    listener: (event: { violatedDirective: string; blockedURI: string; sourceFile: string; lineNumber: number; sample: string }) => void,
  ): void;
  __csp: string[];
}

export async function launch(): Promise<Browser> {
  const profile = mkdtempSync(join(tmpdir(), 'svc-ui-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 1280, height: 860 },
    args: [...CHROMIUM_ARGS],
  });
  const offMachine: string[] = [];
  const cspViolations: string[] = [];
  await context.route('**/*', (route) => {
    const url = route.request().url();
    if (isLoopback(url)) return route.continue();
    offMachine.push(url);
    return route.abort();
  });
  await context.exposeFunction('__reportCsp', (text: string) => cspViolations.push(text));
  await context.addInitScript(() => {
    const win = globalThis as unknown as PageGlobals & { __reportCsp(text: string): void };
    win.addEventListener('securitypolicyviolation', (e) => win.__reportCsp(`${e.violatedDirective} ${e.blockedURI} at ${e.sourceFile}:${e.lineNumber} ${e.sample}`));
  });
  return {
    context,
    offMachine,
    cspViolations,
    async page(options = {}) {
      const page = await context.newPage();
      if (options.credential !== undefined) {
        await page.addInitScript((token: string) => {
          (globalThis as unknown as { sessionStorage: { setItem(k: string, v: string): void } }).sessionStorage.setItem('svc.credential', token);
        }, options.credential);
      }
      return page;
    },
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

interface AxeResult {
  violations: { id: string; impact: string | null; help: string; nodes: { target: unknown[] }[] }[];
}

/**
 * axe-core's serious and critical violations on the page as it is now. axe is evaluated
 * through the DevTools protocol, which the page's CSP (no inline script) does not govern.
 */
export async function seriousViolations(page: Page): Promise<string[]> {
  await page.evaluate(axeSource);
  const result = await page.evaluate(
    () => (globalThis as unknown as { axe: { run(): Promise<AxeResult> } }).axe.run() as Promise<AxeResult>,
  );
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.help} at ${v.nodes.map((n) => JSON.stringify(n.target)).join(', ')}`);
}

export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(ARTEFACTS, { recursive: true });
  await page.screenshot({ path: join(ARTEFACTS, `${name}.png`), fullPage: true });
}
