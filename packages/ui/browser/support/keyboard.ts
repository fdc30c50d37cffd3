/** Keyboard-only driving: Tab (or Shift+Tab) until the focused element matches, as a person would. */
import type { Page } from 'playwright-core';

interface Focused {
  id: string;
  text: string;
  tag: string;
  name: string | null;
}

export async function focused(page: Page): Promise<Focused> {
  return page.evaluate(() => {
    const el = (globalThis as unknown as { document: { activeElement: { id: string; textContent: string | null; tagName: string; getAttribute(n: string): string | null } | null } }).document
      .activeElement;
    return { id: el?.id ?? '', text: (el?.textContent ?? '').trim(), tag: el?.tagName ?? '', name: el?.getAttribute('name') ?? null };
  });
}

export async function tabTo(page: Page, matches: (el: Focused) => boolean, limit = 60): Promise<void> {
  for (let i = 0; i < limit; i++) {
    if (matches(await focused(page))) return;
    await page.keyboard.press('Tab');
  }
  throw new Error(`no focusable element matched after ${limit} Tabs (at ${JSON.stringify(await focused(page))})`);
}
