/**
 * `svc disconnect --revoke`: which service accounts the disconnected clients used, and which of
 * them to revoke. The accounts are found the way connect used them, not guessed from names:
 * - the accounts behind the tokens of the entries this run removed (a shared --name account
 *   included, whatever its name);
 * - the accounts this machine minted for these clients on this runtime (the local record), so
 *   an account whose entry an earlier plain disconnect removed is still found;
 * - --name, and else the client's id and per-user name, when nothing above turned up.
 * An account is this user's when its token was in their configs or the record says it was
 * minted here; another one is revoked only with --force. One whose token another entry that
 * this run left in place still uses (a shared account of a client not disconnected) is kept.
 */
import { hostname, userInfo } from 'node:os';
import type { Account } from '../../accounts/account.js';
import { currentUser, perUserAccountName } from '../../accounts/name.js';
import { FOREIGN, foreignWarning, holdersOf, whereHeld, type HeldToken } from '../../accounts/ownership.js';
import type { MintRecord, RecordedAccount } from '../../accounts/record.js';
import type { ClientId } from '../../clients/registry.js';
import type { Context } from '../../context.js';
import { errorText } from '../../errors.js';
import type { ServiceAccountsClient } from '../../http/service-accounts.js';
import { shortenHome } from '../../output/home-path.js';
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

/** What the configs held before and after the removals, and what the record says. */
export interface RevokeInput {
  runtimeUrl: string;
  clients: readonly ClientId[];
  heldBefore: readonly HeldToken[];
  heldAfter: readonly HeldToken[];
  record: MintRecord;
}

/** The URL `disconnect` points users at when a revocation has to wait for the runtime. */
export function revokeLater(name: string, url: string | undefined): string {
  return `svc tokens revoke ${name}${url ? ` --url ${url}` : ''}`;
}

const key = (h: HeldToken): string => `${h.client}\u0000${h.location}\u0000${h.name}\u0000${h.token}`;

/** The account names to report when the runtime is unreachable: recorded ones, --name, else the client ids. */
export function offlineNames(opts: RevokeOptions, clients: readonly ClientId[], recorded: readonly RecordedAccount[]): string[] {
  const names = new Set<string>();
  if (opts.name !== undefined) names.add(opts.name);
  for (const id of clients) {
    const mine = recorded.filter((a) => a.clients.includes(id));
    if (mine.length > 0) for (const a of mine) names.add(a.name);
    else if (opts.name === undefined) names.add(id);
  }
  return [...names].sort();
}

export async function revokeAccounts(ctx: Context, opts: RevokeOptions, api: ServiceAccountsClient, input: RevokeInput): Promise<Revocation[]> {
  const { clients, heldBefore, heldAfter, record, runtimeUrl } = input;
  let active: Account[];
  try {
    active = await api.list({ activeOnly: true });
  } catch (error) {
    const names = opts.name !== undefined ? [opts.name] : [...clients].sort();
    return names.map((account) => ({ account, status: 'failed', error: errorText(error) }));
  }
  const recorded = record.forRuntime(runtimeUrl);
  const isRecorded = (a: Account): boolean => record.owns(runtimeUrl, a);
  const left = new Set(heldAfter.map(key));
  const removed = heldBefore.filter((h) => !left.has(key(h)));

  // Each group is what to report under one name when nothing is found for it.
  const groups: { primary: string; accounts: Account[] }[] = [];
  const user = currentUser(ctx.env, () => userInfo().username);
  if (opts.name !== undefined) groups.push({ primary: opts.name, accounts: active.filter((a) => a.name === opts.name) });
  for (const id of clients) {
    const used = active.filter((a) => holdersOf(a, removed.filter((h) => h.client === id)).length > 0 || recorded.some((r) => r.id === a.id && r.clients.includes(id)));
    if (used.length > 0 || opts.name === undefined) groups.push({ primary: id, accounts: used });
  }
  for (const group of groups) {
    if (group.accounts.length > 0 || opts.name !== undefined) continue;
    // Nothing known: the names connect would have used for this client.
    const named = active.filter((a) => a.name === group.primary || a.name === perUserAccountName(group.primary, user, hostname()));
    const mine = named.filter((a) => holdersOf(a, heldBefore).length > 0 || isRecorded(a));
    // Another user's account under the client id is not this user's to revoke when they have
    // their own; alone, it is reported, and revoked only with --force.
    group.accounts = mine.length > 0 ? mine : named;
  }

  const revocations: Revocation[] = [];
  const done = new Set<string>();
  for (const group of groups) {
    if (group.accounts.length === 0 && !groups.some((g) => g !== group && g.primary === group.primary && g.accounts.length > 0)) {
      if (!revocations.some((r) => r.account === group.primary)) revocations.push({ account: group.primary, status: 'not-found', error: null });
      continue;
    }
    for (const account of group.accounts) {
      if (done.has(account.id)) continue;
      done.add(account.id);
      revocations.push(await revokeOne(ctx, opts, api, input, account));
    }
  }
  return revocations.sort((a, b) => (a.account < b.account ? -1 : a.account > b.account ? 1 : 0));
}

async function revokeOne(ctx: Context, opts: RevokeOptions, api: ServiceAccountsClient, input: RevokeInput, account: Account): Promise<Revocation> {
  const mine = holdersOf(account, input.heldBefore).length > 0 || input.record.owns(input.runtimeUrl, account);
  try {
    if (!mine && !(await forceForeign(ctx, opts, account.name))) {
      return { account: account.name, status: 'failed', error: `Not revoked: ${FOREIGN}. If it is yours, re-run with --force or use: ${revokeLater(account.name, undefined)}` };
    }
    const still = mine ? holdersOf(account, input.heldAfter) : [];
    if (still.length > 0) {
      return {
        account: account.name,
        status: 'failed',
        error: `Not revoked: ${whereHeld(still, shortenHome)} still use${still.length === 1 ? 's' : ''} its token. Disconnect ${still.length === 1 ? 'that client' : 'those clients'} too, or revoke it anyway with: ${revokeLater(account.name, undefined)}`,
      };
    }
    await api.revoke(account.id);
    try {
      input.record.forget(input.runtimeUrl, [account.id]);
    } catch (error) {
      ctx.out.warn(`Could not update ${shortenHome(input.record.path)} (${errorText(error)}).`);
    }
    return { account: account.name, status: 'revoked', error: null };
  } catch (error) {
    return { account: account.name, status: 'failed', error: errorText(error) };
  }
}

/** Revoking an account that may be someone else's: only with --force, said first, asked on a terminal. */
async function forceForeign(ctx: Context, opts: RevokeOptions, name: string): Promise<boolean> {
  if (opts.force !== true) return false;
  const warning = foreignWarning(name);
  if (ctx.interactive) return askConfirm(`${warning} Revoke it anyway?`, false);
  ctx.out.warn(ctx.out.errStyle.yellow(warning));
  return true;
}
