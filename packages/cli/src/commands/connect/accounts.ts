/**
 * Which account and token each client gets in a `svc connect` run that mints: an account name
 * that is free is minted; one that exists is this user's when its token is in their client
 * configs (rotated on --rotate or when they agree) or when this machine minted it for them (the
 * local record: with its token in no config any more, it is replaced without asking), else
 * possibly another user's (left alone, or a per-user name instead, unless --rotate --force).
 * Also the shared account of --name, the token of an entry being renamed when it can stay, and
 * revoking what this run minted when it is undone. Every mint and revoke updates the record.
 */
import { hostname, userInfo } from 'node:os';
import type { Account } from '../../accounts/account.js';
import { currentUser, perUserAccountName } from '../../accounts/name.js';
import { FOREIGN, foreignWarning, holdersOf, whereHeld, type HeldToken } from '../../accounts/ownership.js';
import type { MintRecord } from '../../accounts/record.js';
import { safeRead, type ClientAdapter, type ClientEntry, type ClientId } from '../../clients/registry.js';
import type { Context } from '../../context.js';
import { CliError } from '../../errors.js';
import type { ServiceAccountsClient } from '../../http/service-accounts.js';
import { checkToken, verifyMcp } from '../../mcp/verify.js';
import { shortenHome } from '../../output/home-path.js';
import { askConfirm } from '../../output/prompt.js';
import { sameEndpoint } from '../../util/loopback.js';
import type { ConnectOptions, Plan } from './plan.js';
import { addNote } from './report.js';

/** An account and its token: minted in this run, or (reused) a token already held for it. */
type Created = { account: Account; token: string; reused?: true };
type AccountKind = 'default' | 'per-user' | 'shared';

/** The --name account's token for every client; undefined when that account was kept untouched. */
export type SharedToken = { token: string; account: Account | undefined } | undefined;

/** What a client's entry gets: a token, the account behind it, and the account minted for it. */
export interface TokenChoice {
  token: string;
  account: Account | undefined;
  /** Revoked again if this client's connect is undone. */
  minted: Account | undefined;
}

/** The conflict hint; a shared account's re-run must name it again. */
function rotateHint(name: string, kind: AccountKind): string {
  const again = kind === 'shared' ? ` --name ${name}` : '';
  return `Re-run with${again} --rotate to revoke and re-mint it, or${again} --skip-existing to leave it untouched.`;
}

export class Accounts {
  private readonly minted = new Set<string>();
  private readonly tokenChecks = new Map<string, Promise<boolean | null>>();
  /** The shared (--name) account when this run minted it. */
  sharedMinted: Account | undefined;
  /** Notes about the shared account, shown on every row that uses it. */
  readonly sharedNotes: string[] = [];

  constructor(
    private readonly ctx: Context,
    private readonly opts: ConnectOptions,
    private readonly plan: Plan,
    private readonly api: ServiceAccountsClient,
    /** The tokens this user's configs held when the run started: what makes an account theirs. */
    private readonly held: readonly HeldToken[],
    private readonly selectedIds: readonly ClientId[],
    /** What this machine minted before: makes an account ours after its entry is gone. */
    private readonly record: MintRecord,
  ) {}

  /** Keeping the record must never fail a connect: a failure is said, and ownership falls back on the configs. */
  private remember(update: () => void): void {
    try {
      update();
    } catch (error) {
      const detail = error instanceof Error ? error.message : String(error);
      this.ctx.out.warn(this.ctx.out.errStyle.yellow(`Could not update ${shortenHome(this.record.path)} (${detail}); accounts minted here may later look like another user's.`));
    }
  }

  private async create(name: string, clients: readonly string[]): Promise<Created | 'conflict'> {
    const request = { name, scopes: this.opts.scopes, expiry: this.opts.expires, privileged: this.opts.privileged === true };
    try {
      const created = await this.api.create(request);
      this.minted.add(name);
      this.remember(() => this.record.add(this.plan.info.url, created.account, clients));
      return created;
    } catch (error) {
      if (error instanceof CliError && error.code === 'CONFLICT') return 'conflict';
      throw error;
    }
  }

  private async revoke(account: Account): Promise<void> {
    await this.api.revoke(account.id);
    this.remember(() => this.record.forget(this.plan.info.url, [account.id]));
  }

  /** Revokes `account` and creates `name` again; a second conflict is an error. */
  private async recreate(name: string, kind: AccountKind, account: Account | undefined, clients: readonly string[]): Promise<Created> {
    if (account) await this.revoke(account);
    const created = await this.create(name, clients);
    if (created === 'conflict') throw new CliError('CONFLICT', `A service account named '${name}' already exists.`, { hint: rotateHint(name, kind), status: 409 });
    return created;
  }

  /**
   * The active account of that name, the tokens of this user's configs that belong to it, and
   * whether this machine minted it.
   */
  private async owner(name: string): Promise<{ account: Account | undefined; holders: HeldToken[]; recorded: boolean }> {
    let account: Account | undefined;
    try {
      account = await this.api.findActive(name);
    } catch (error) {
      // A credential that may mint but not list cannot tell whose it is: treat it as not ours.
      if (!(error instanceof CliError && error.status === 403)) throw error;
    }
    if (!account) return { account, holders: [], recorded: false };
    return { account, holders: holdersOf(account, this.held), recorded: this.record.owns(this.plan.info.url, account) };
  }

  /** Whether the runtime accepts a token at the MCP endpoint, asked once per token. */
  private checkToken(token: string): Promise<boolean | null> {
    let check = this.tokenChecks.get(token);
    if (!check) {
      check = checkToken(this.plan.mcp, token, this.ctx.env);
      this.tokenChecks.set(token, check);
    }
    return check;
  }

  /** Whether the runtime refuses every copy of the account's token we hold (expired, say). */
  private async allDead(holders: readonly HeldToken[]): Promise<boolean> {
    if (holders.length === 0) return false;
    for (const token of new Set(holders.map((h) => h.token))) if ((await this.checkToken(token)) !== false) return false;
    return true;
  }

  /**
   * The account for a client (or the shared one): the name when it is free; on a conflict, what
   * the account's owner allows. An account whose token is in this user's configs is theirs and
   * follows --rotate / --skip-existing / the prompt; one whose token is not may belong to another
   * user, so a client's default name moves to a per-user name, and nothing of theirs is revoked
   * without --force. Undefined means "kept untouched" (skipped).
   */
  private async account(name: string, kind: AccountKind, notes: string[], clientId?: ClientId): Promise<Created | undefined> {
    const clients = kind === 'shared' || !clientId ? this.selectedIds : [clientId];
    const created = await this.create(name, clients);
    if (created !== 'conflict') return created;
    let { account, holders, recorded } = await this.owner(name);
    if (!account) {
      // Revoked since the conflict: the name may be free now.
      const again = await this.create(name, clients);
      if (again !== 'conflict') return again;
      ({ account, holders, recorded } = await this.owner(name));
    }
    if (account && holders.length > 0) return this.ownConflict(name, kind, account, holders, notes, clients);
    if (account && recorded) {
      // Minted here for this user, and its token is in none of their configs any more (a
      // disconnect without --revoke): nobody here uses it, and its token cannot be recovered.
      if (this.opts.skipExisting === true) return undefined;
      addNote(notes, `Service account '${name}' was minted from here earlier and its token is in none of your client configs any more, so it was revoked and minted again.`);
      return this.recreate(name, kind, account, clients);
    }
    if (kind === 'default' && clientId) {
      if (this.opts.rotate === true && this.opts.force === true && account && (await this.confirmForeign(name, notes))) return this.recreate(name, kind, account, clients);
      const perUser = perUserAccountName(clientId, currentUser(this.ctx.env, () => userInfo().username), hostname());
      addNote(notes, `Service account '${name}' is someone else's (its token is in none of your client configs; another user of this runtime, probably), so this client gets its own account '${perUser}'.`);
      return this.account(perUser, 'per-user', notes, clientId);
    }
    return this.foreignConflict(name, kind, account, notes, clients);
  }

  private async ownConflict(name: string, kind: AccountKind, account: Account, holders: HeldToken[], notes: string[], clients: readonly ClientId[]): Promise<Created | undefined> {
    const { opts } = this;
    if (opts.skipExisting === true) return undefined;
    // Every copy of its token is refused already (expired): re-minting cuts off nobody.
    if (await this.allDead(holders)) {
      addNote(notes, `The runtime no longer accepted the token of service account '${name}', so it was revoked and minted again.`);
      return this.recreate(name, kind, account, clients);
    }
    // This run rewrites every entry of these clients that points at this runtime, whatever its name.
    const replacedHere = (h: HeldToken): boolean => h.untouched !== true && sameEndpoint(h.url, this.plan.mcp) && clients.includes(h.client);
    const elsewhere = holders.filter((h) => !replacedHere(h));
    // A shared account already held by another of this user's clients: the new ones get the same token.
    if (kind === 'shared' && opts.rotate !== true) {
      for (const h of holders) {
        if ((await this.checkToken(h.token)) !== true) continue;
        addNote(notes, `Uses service account '${name}', whose token is already in ${whereHeld([h], shortenHome)}.`);
        return { account, token: h.token, reused: true };
      }
    }
    const cutOff = elsewhere.length > 0 ? `Rotating service account '${name}' also cuts off ${whereHeld(elsewhere, shortenHome)}, which use${elsewhere.length === 1 ? 's' : ''} its token.` : undefined;
    if (opts.rotate !== true) {
      if (!this.ctx.interactive) throw new CliError('CONFLICT', `A service account named '${name}' already exists.`, { hint: rotateHint(name, kind), status: 409 });
      const question = cutOff ? `Service account '${name}' already exists. ${cutOff} Revoke and re-mint it?` : `Service account '${name}' already exists. Revoke and re-mint it?`;
      if (!(await askConfirm(question, false))) return undefined;
    } else if (cutOff && this.ctx.interactive && !(await askConfirm(`${cutOff} Rotate it anyway?`, false))) {
      return undefined;
    }
    if (cutOff) addNote(notes, cutOff);
    return this.recreate(name, kind, account, clients);
  }

  private async foreignConflict(name: string, kind: AccountKind, account: Account | undefined, notes: string[], clients: readonly ClientId[]): Promise<Created | undefined> {
    const { opts } = this;
    const why = `${FOREIGN.charAt(0).toUpperCase()}${FOREIGN.slice(1)}`;
    // Every way out names the account option a re-run needs: --name for a shared account.
    const hint =
      kind === 'shared'
        ? `${why}: pick another --name, re-run with --name ${name} --rotate --force to revoke and re-mint it anyway, or with --name ${name} --skip-existing to leave it untouched.`
        : `${why}: connect with an account name of your own (--name <account>), re-run with --rotate --force to revoke and re-mint '${name}' anyway, or with --skip-existing to leave it untouched.`;
    if (opts.skipExisting === true) return undefined;
    if (opts.rotate === true && opts.force === true && account) return (await this.confirmForeign(name, notes)) ? this.recreate(name, kind, account, clients) : undefined;
    if (opts.rotate !== true && this.ctx.interactive && account) {
      if (!(await askConfirm(`Service account '${name}' already exists, and ${FOREIGN}. Revoke and re-mint it?`, false))) return undefined;
      addNote(notes, `Revoked and re-minted service account '${name}', whose token was in none of your client configs.`);
      return this.recreate(name, kind, account, clients);
    }
    throw new CliError('CONFLICT', `A service account named '${name}' already exists.`, { hint, status: 409 });
  }

  /** Before revoking an account another config may use: say so, and ask on a terminal. */
  private async confirmForeign(name: string, notes: string[]): Promise<boolean> {
    const warning = foreignWarning(name);
    if (this.ctx.interactive) return askConfirm(`${warning} Revoke it anyway?`, false);
    this.ctx.out.warn(this.ctx.out.errStyle.yellow(warning));
    addNote(notes, `Revoked and re-minted service account '${name}' (--force), whose token was in none of your client configs.`);
    return true;
  }

  get mintedNames(): string[] {
    return [...this.minted].sort();
  }

  /** With --name: one token for every client, resolved before any config is touched. */
  async sharedToken(selected: readonly ClientAdapter[], name: string): Promise<SharedToken> {
    if (this.opts.rotate !== true) {
      for (const client of selected) {
        const entry = safeRead(client, this.plan.serverName, this.plan.ce);
        if (!entry || entry.url !== this.plan.mcp || entry.token === undefined) continue;
        if ((await verifyMcp(this.plan.mcp, entry.token, false, this.ctx.env)).ok) return { token: entry.token, account: undefined };
      }
    }
    const created = await this.account(name, 'shared', this.sharedNotes);
    if (!created) return undefined;
    if (!created.reused) this.sharedMinted = created.account;
    return { token: created.token, account: created.account };
  }

  /**
   * The token for a client's entry: the shared one (--name); that of the entry being renamed
   * (the legacy name, or another name for the same runtime) while its account still works and
   * nothing asks for a different token; else the client's own account.
   * Undefined means the account was kept untouched, so the client is skipped.
   */
  async tokenFor(clientId: ClientId, existing: ClientEntry | undefined, legacy: ClientEntry | undefined, shared: SharedToken | null, notes: string[]): Promise<TokenChoice | undefined> {
    if (shared !== null) {
      for (const note of this.sharedNotes) addNote(notes, note);
      return shared === undefined ? undefined : { token: shared.token, account: shared.account, minted: undefined };
    }
    if (
      legacy?.token !== undefined &&
      this.plan.legacyReuse &&
      existing === undefined &&
      this.opts.rotate !== true &&
      legacy.token.startsWith('svc_pat_') &&
      (await this.checkToken(legacy.token)) === true
    ) {
      return { token: legacy.token, account: undefined, minted: undefined };
    }
    const created = await this.account(clientId, 'default', notes, clientId);
    return created ? { token: created.token, account: created.account, minted: created.account } : undefined;
  }

  /** Revokes an account this run minted (its client is being undone). */
  async unmint(account: Account): Promise<void> {
    await this.revoke(account);
    this.minted.delete(account.name);
    account.revoked_at = Math.floor(Date.now() / 1000);
  }
}
