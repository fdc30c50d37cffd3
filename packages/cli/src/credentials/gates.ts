/**
 * Rules that protect credentials and tokens in transit:
 * - a URL that came from a file (not typed by the user) must be confirmed before anything is
 *   sent to a remote host;
 * - secrets never travel over plain HTTP to a non-loopback host without --allow-http;
 * - an open runtime (no REST auth) cannot mint, so say so before asking for anything.
 */
import type { Context } from '../context.js';
import { URL_ENV } from '../discovery/candidates.js';
import { isLoopbackUrl } from '../util/loopback.js';
import type { RuntimeInfo } from '../discovery/os-info.js';
import { CliError } from '../errors.js';
import type { ServiceAccountsClient } from '../http/service-accounts.js';
import { askConfirm } from '../output/prompt.js';
import { exportedCredential } from './admin-token.js';

export async function ensureUrlTrusted(ctx: Context, info: RuntimeInfo, yes: boolean): Promise<void> {
  if (info.url_source !== 'env-file' && info.url_source !== 'client-config') return;
  if (isLoopbackUrl(info.url) || yes) return;
  const where = info.url_source === 'env-file' ? (info.url_source_file ?? '.env') : `your ${info.url_source_file ?? 'client'} MCP config`;
  if (!ctx.interactive) {
    throw new CliError('UNTRUSTED_URL', `The URL in ${where} points to a remote host (${info.url}).`, {
      hint: 'Pass --url to target it explicitly, or --yes to trust it.',
    });
  }
  const question = info.url_source === 'env-file' ? `Trust ${URL_ENV}=${info.url} (from ${where})?` : `Trust ${info.url} (from ${where})?`;
  if (!(await askConfirm(question, true))) {
    throw new CliError('ABORTED', `Aborted: did not trust the URL ${info.url}.`, { hint: 'Pass --url to choose the runtime explicitly.' });
  }
}

export function isSecureTarget(url: string, allowHttp: boolean): boolean {
  if (allowHttp || isLoopbackUrl(url)) return true;
  try {
    return new URL(url).protocol === 'https:';
  } catch {
    return false;
  }
}

export function requireSecureUrl(url: string, allowHttp: boolean, what: string): void {
  if (isSecureTarget(url, allowHttp)) return;
  throw new CliError('PLAINTEXT_HTTP', `Refusing to send ${what} to ${url} over plaintext HTTP.`, {
    hint: 'Use an https:// URL, or pass --allow-http to override on a trusted private network.',
  });
}

const MINT_HINT = 'Set OS_SECURITY_KEY (or configure JWT auth) on the server to enable minting.';

/** An open REST plane refuses anonymous mints; only a service-account token can mint there. */
export async function requireMintCapable(ctx: Context, info: RuntimeInfo, api: ServiceAccountsClient, orElse?: string): Promise<void> {
  const hint = orElse ? `${MINT_HINT} ${orElse}` : MINT_HINT;
  if (info.auth_mode !== 'none') return;
  const exported = exportedCredential(ctx.env);
  if (exported?.startsWith('svc_pat_')) return;
  if (exported) {
    throw new CliError(
      'CANNOT_MINT',
      'This runtime has no REST authentication configured, so only a service-account token (svc_pat_...) can authenticate a mint -- the exported admin credential cannot.',
      { hint: `Export a previously minted token via SVC_ADMIN_TOKEN. ${hint}` },
    );
  }
  if (await api.isOpen()) {
    throw new CliError(
      'CANNOT_MINT',
      'This runtime cannot mint tokens: its REST API has no authentication configured, and the server refuses anonymous minting.',
      { hint },
    );
  }
}
