/**
 * What every browser test file shares: CI must not pass by skipping (a missing chromium fails
 * there; elsewhere the suite is skipped with the reason), and a helper to mint tokens.
 */
import { expect, it } from 'vitest';
import { CHROMIUM, chromiumFound } from './browser.js';

export const skipReason = chromiumFound ? '' : ` (skipped: no chromium at ${CHROMIUM}; apt-get install chromium, or set CHROMIUM_PATH)`;

export function requireChromiumOnCi(): void {
  it.runIf(process.env.CI === 'true')('finds chromium on CI (.ci/run installs it)', () => {
    expect(chromiumFound, `no chromium at ${CHROMIUM}`).toBe(true);
  });
}

/** Mints a service-account token through the API with the admin credential. */
export async function mint(url: string, admin: string, name: string, scopes: string[]): Promise<string> {
  const res = await fetch(`${url}/service-accounts`, {
    method: 'POST',
    headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name, scopes: scopes.map((scope) => ({ scope, effect: 'allow' })), allow_privileged_scopes: true }),
  });
  const body = (await res.json()) as { token?: string; detail?: string };
  if (!body.token) throw new Error(`minting ${name}: ${res.status} ${body.detail}`);
  return body.token;
}
