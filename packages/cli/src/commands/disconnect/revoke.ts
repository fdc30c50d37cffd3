/**
 * `svc disconnect --revoke`: which of the clients' service accounts to revoke, and which to
 * leave because they may be another user's.
 */
import { hostname, userInfo } from 'node:os';
import type { Account } from '../../accounts/account.js';
import { currentUser, perUserAccountName } from '../../accounts/name.js';
import { FOREIGN, foreignWarning, holdersOf, type HeldToken } from '../../accounts/ownership.js';
import type { ClientAdapter } from '../../clients/registry.js';
import type { Context } from '../../context.js';
import { errorText } from '../../errors.js';
import type { ServiceAccountsClient } from '../../http/service-accounts.js';
import { askConfirm } from '../../output/prompt.js';

export interface Revocation {
  account: string;
  status: 'revoked' | 'not-found' | 'failed';
  error: string | null;
}

/** The options revocation follows: the shared account's name (--name), and --force. */
export interface RevokeOptions {
  name?: string;
  force?: boolean;
}

/** The URL `disconnect` points users at when a revocation has to wait for the runtime. */
export function revokeLater(name: string, url: string | undefined): string {
  return `svc tokens revoke ${name}${url ? ` --url ${url}` : ''}`;
}

/**
 * Which service accounts to revoke, and which to leave: an account is revoked when its token is
 * in this user's client configs (read before anything was removed), or with --force. A client's
 * accounts are looked up under its id and its per-user name (what connect mints when another
 * user holds the id).
 */
export async function revokeAccounts(ctx: Context, opts: RevokeOptions, api: ServiceAccountsClient, clients: readonly ClientAdapter[], held: readonly HeldToken[]): Promise<Revocation[]> {
  const user = currentUser(ctx.env, () => userInfo().username);
  const groups: { primary: string; names: string[] }[] =
    opts.name !== undefined
      ? [{ primary: opts.name, names: [opts.name] }]
      : clients
          .map((c) => c.id)
          .sort()
          .map((id) => ({ primary: id, names: [id, perUserAccountName(id, user, hostname())] }));
  const revocations: Revocation[] = [];
  for (const group of groups) {
    try {
      const found: { account: Account; mine: boolean }[] = [];
      for (const name of group.names) {
        const account = await api.findActive(name);
        if (account) found.push({ account, mine: holdersOf(account, held).length > 0 });
      }
      if (found.length === 0) {
        revocations.push({ account: group.primary, status: 'not-found', error: null });
        continue;
      }
      const mine = found.filter((f) => f.mine);
      // Another user's account under the client id is simply not this user's to revoke when
      // they have their own; alone, it is reported, and revoked only with --force.
      const targets = mine.length > 0 ? mine : found;
      for (const { account, mine: isMine } of targets) {
        if (!isMine && !(await forceForeign(ctx, opts, account.name))) {
          revocations.push({
            account: account.name,
            status: 'failed',
            error: `Not revoked: ${FOREIGN}. If it is yours, re-run with --force or use: ${revokeLater(account.name, undefined)}`,
          });
          continue;
        }
        await api.revoke(account.id);
        revocations.push({ account: account.name, status: 'revoked', error: null });
      }
    } catch (error) {
      revocations.push({ account: group.primary, status: 'failed', error: errorText(error) });
    }
  }
  return revocations;
}

/** Revoking an account that may be someone else's: only with --force, said first, asked on a terminal. */
async function forceForeign(ctx: Context, opts: RevokeOptions, name: string): Promise<boolean> {
  if (opts.force !== true) return false;
  const warning = foreignWarning(name);
  if (ctx.interactive) return askConfirm(`${warning} Revoke it anyway?`, false);
  ctx.out.warn(ctx.out.errStyle.yellow(warning));
  return true;
}
