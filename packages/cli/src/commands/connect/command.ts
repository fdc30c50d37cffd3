/**
 * `svc connect`: discover the runtime, mint one service account per client (or one shared
 * account), write each client's MCP entry, read it back, and verify it with a real MCP
 * handshake. Re-runs are safe: entries that still verify are left alone.
 *
 * Order matters, as in `tokens`: everything that can be checked locally or refused before a
 * credential leaves the machine is checked first, and every gate fails before any prompt, mint
 * or write. After that, each client succeeds or fails on its own.
 */
import { hostname, userInfo } from 'node:os';
import { Command, Option } from 'commander';
import { accountJson, type Account } from '../../accounts/account.js';
import { DEFAULT_EXPIRES, parseExpires, type Expiry } from '../../accounts/expires.js';
import { currentUser, perUserAccountName } from '../../accounts/name.js';
import { heldTokens, holdersOf, type HeldToken } from '../../accounts/ownership.js';
import { exitCodeFor } from '../../clients/exit-code.js';
import {
  clientEnv,
  CLIENTS,
  isProjectMcpJson,
  projectServerApproval,
  type ClientAdapter,
  type ClientEntry,
  type ClientEnv,
  type ClientId,
} from '../../clients/registry.js';
import { CHAT_APPS, noClientsError, selectClients, type ChatAppId } from '../../clients/select.js';
import { deriveServerName, LEGACY_SERVER_NAME } from '../../clients/server-name.js';
import { restore, snapshot, type FileSnapshot } from '../../clients/snapshot.js';
import type { Context } from '../../context.js';
import { exportedCredential, resolveAdminCredential } from '../../credentials/admin-token.js';
import { ensureUrlTrusted, requireMintCapable, requireSecureUrl } from '../../credentials/gates.js';
import { sourceNote } from '../../discovery/candidates.js';
import { discoverForClients } from '../../discovery/discover-all.js';
import { infoJson, mcpUrl, type RuntimeInfo } from '../../discovery/os-info.js';
import { CliError } from '../../errors.js';
import { ServiceAccountsClient } from '../../http/service-accounts.js';
import { checkToken, verifyJson, verifyMcp, type VerifyResult } from '../../mcp/verify.js';
import { shortenHome } from '../../output/home-path.js';
import { askConfirm } from '../../output/prompt.js';
import type { JsonValue } from '../../util/json.js';
import { isLoopbackHost } from '../../util/loopback.js';
import { runAction } from '../action.js';
import { collect, invalidValue, parseServerName, parseUrlOption } from '../options.js';
import { runWith } from '../program.js';

interface ConnectOptions {
  url?: string;
  clients?: string;
  name?: string;
  scopes?: string[];
  expires: Expiry;
  privileged?: boolean;
  pat?: boolean;
  serverName?: string;
  project?: boolean;
  rotate?: boolean;
  force?: boolean;
  skipExisting?: boolean;
  allowHttp?: boolean;
  yes?: boolean;
}

type Status = 'connected' | 'already-connected' | 'needs-login' | 'skipped' | 'failed' | 'manual';

/** One result row; keys are emitted in this insertion order. */
interface Row {
  client: string;
  status: Status;
  error: string | null;
  replaced_url?: string;
  url?: string;
  location?: string;
  note?: string | null;
  account?: Account;
  verify?: VerifyResult;
  instructions?: string[];
  replaced_legacy?: string;
  rotated?: boolean;
  replaced_token_entry?: boolean;
  auto?: boolean;
}

const OK = new Set<string>(['connected', 'already-connected', 'needs-login', 'manual']);

const SIGN_IN: Record<ClientId, (server: string) => string> = {
  'terminal-agent': (s) => `Run: claude mcp login ${s}  (or /mcp -> Authenticate inside a session)`,
  'desktop-app': () => 'Restart Claude Desktop; mcp-remote opens the browser sign-in automatically',
  'cli-agent': (s) => `Run: codex mcp login ${s}`,
  editor: (s) => `Open Cursor Settings -> MCP and click Connect on '${s}'`,
};

const ROTATE_HINT = 'Re-run with --rotate to revoke and re-mint it, or --skip-existing to leave it untouched.';
const KEPT = 'Service account exists; kept untouched.';

function expiresOption(value: string): Expiry {
  const parsed = parseExpires(value);
  if (!parsed) throw invalidValue(`Invalid --expires value: ${value}`, "Use a number of days like '90' or '90d', or 'never'.");
  return parsed;
}

export function connectCommand(): Command {
  return new Command('connect')
    .option('--url <url>', 'runtime base URL (default: autodiscover)', parseUrlOption)
    .option('--clients <list>', 'comma-separated clients (default: detected, plus chat-app steps for a public runtime)')
    .option('--name <account>', 'use one shared service account with this name (default: one per client)')
    .option('-s, --scopes <scope>', "scope to grant; repeatable (default: the server's run and read scopes)", collect)
    .addOption(new Option('--expires <lifetime>', "days ('90d' or '30') or 'never'").default(parseExpires(DEFAULT_EXPIRES), DEFAULT_EXPIRES).argParser(expiresOption))
    .option('--privileged', 'allow write, delete, admin and service_accounts scopes')
    .option('--pat', 'create tokens even when MCP is OAuth-protected (headless clients)')
    .option('--server-name <name>', 'MCP entry name (default: derived from the runtime name, fallback agentos)', parseServerName)
    .option('--project', 'write project-scoped configs instead of user-level ones')
    .option('--rotate', "rewrite existing entries without asking: revoke and re-create accounts whose token is in your client configs")
    .option('--force', "with --rotate: also revoke an account whose token is in none of your client configs (another user's)")
    .option('--skip-existing', 'never touch existing accounts or entries')
    .option('--allow-http', 'allow sending credentials over plain HTTP to a non-loopback host')
    .option('-y, --yes', 'trust a remote RUNTIME_URL from a .env file without asking')
    .option('--json', 'print exactly one JSON document on stdout')
    .action(async (opts: ConnectOptions, cmd: Command) =>
      runAction(cmd, (ctx) => {
        // Whether --expires was typed matters in OAuth mode, where it would shape nothing.
        const expiresGiven = cmd.getOptionValueSource('expires') === 'cli';
        return connect(ctx, opts, expiresGiven);
      }),
    );
}

function errorText(error: unknown): string {
  if (error instanceof CliError) return error.hint ? `${error.message} ${error.hint}` : error.message;
  return `Unexpected error (${error instanceof Error ? error.name : typeof error}): ${error instanceof Error ? error.message : String(error)}`;
}

/** Chat apps add connectors from their own cloud: only a public HTTPS URL can work. */
export function cloudReachable(mcp: string): boolean {
  let url: URL;
  try {
    url = new URL(mcp);
  } catch {
    return false;
  }
  const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (url.protocol !== 'https:' || isLoopbackHost(host) || host === 'host.docker.internal') return false;
  const privateV4 = /^(10\.|192\.168\.|169\.254\.|172\.(1[6-9]|2\d|3[01])\.)/;
  const privateV6 = /^(fc|fd|fe80:)/;
  return !privateV4.test(host) && !(host.includes(':') && privateV6.test(host));
}

/** What a client's run changed, so a failure (or an abort at a later prompt) can undo it. */
interface Undo {
  snapshots: FileSnapshot[];
  /** The account minted for this client in this run, revoked again on rollback. */
  minted: Account | undefined;
}

type Created = { account: Account; token: string };
type AccountKind = 'default' | 'per-user' | 'shared';

const FOREIGN = 'its token is in none of your client configs, so another user or machine may be using it';

function addNote(notes: string[], note: string): void {
  if (!notes.includes(note)) notes.push(note);
}

function whereHeld(holders: readonly HeldToken[]): string {
  const places = [...new Set(holders.map((h) => `${shortenHome(h.location)} ('${h.name}')`))];
  return places.join(', ');
}

class ConnectRun {
  private readonly mcp: string;
  private readonly oauthEnabled: boolean;
  private readonly oauthMode: boolean;
  private minting = false;
  private api: ServiceAccountsClient | undefined;
  private readonly minted = new Set<string>();
  /** The tokens this user's configs held when the run started: what makes an account theirs. */
  private held: HeldToken[] = [];
  private readonly tokenChecks = new Map<string, Promise<boolean | null>>();
  /** Clients done so far, undone in reverse if the run is aborted at a later prompt. */
  private readonly journal: Undo[] = [];
  /** The shared (--name) account when this run minted it. */
  private sharedMinted: Account | undefined;
  /** Notes about the shared account, shown on every row that uses it. */
  readonly sharedNotes: string[] = [];
  private selectedIds: ClientId[] = [];

  constructor(
    private readonly ctx: Context,
    private readonly opts: ConnectOptions,
    private readonly info: RuntimeInfo,
    mcp: string,
    readonly serverName: string,
    private readonly legacyName: string | undefined,
    private readonly legacyReuse: boolean,
    private readonly ce: ClientEnv,
  ) {
    this.mcp = mcp;
    this.oauthEnabled = (info.mcp.oauth?.authorization_servers.length ?? 0) > 0;
    this.oauthMode = this.oauthEnabled && opts.pat !== true;
  }

  /** Gates that must pass before anything is minted, prompted for or written. */
  async prepare(selected: readonly ClientAdapter[]): Promise<string | null> {
    const { ctx, opts, info } = this;
    this.selectedIds = selected.map((c) => c.id);
    this.held = heldTokens(CLIENTS, this.ce);
    const exported = exportedCredential(ctx.env);
    this.minting = selected.length > 0 && !this.oauthMode && (info.auth_mode !== 'none' || (opts.pat === true && exported?.startsWith('svc_pat_') === true));
    if (selected.length > 0 && !this.oauthMode && !this.minting && (opts.pat === true || info.mcp.oauth !== null)) {
      const orElse =
        opts.pat === true && this.oauthEnabled
          ? 'Or drop --pat to use the OAuth sign-in flow.'
          : info.mcp.oauth !== null
            ? 'Or export a previously minted token via SVC_ADMIN_TOKEN and re-run with --pat.'
            : 'Or drop --pat to connect without a token (this MCP endpoint is unauthenticated).';
      await requireMintCapable(ctx, info, new ServiceAccountsClient(info.url, undefined, ctx.env), orElse);
      throw new CliError(
        'CANNOT_MINT',
        `This runtime reports no REST authentication (auth mode: ${info.auth_mode}) and no admin credential is exported, so nothing can mint the tokens ${opts.pat === true ? '--pat asks for' : 'its token-protected MCP endpoint needs'}.`,
        { hint: `Set OS_SECURITY_KEY (or configure JWT auth) on the server, or export SVC_ADMIN_TOKEN if minting worked before. ${orElse}` },
      );
    }
    if (this.minting) {
      requireSecureUrl(info.url, opts.allowHttp === true, 'the admin credential and minted tokens');
    } else if (selected.some((c) => this.existingTokenHere(c))) {
      // Re-verifying an existing entry resends its token.
      requireSecureUrl(info.url, opts.allowHttp === true, 'a token stored in a client config');
    }
    if (!this.minting) {
      if (selected.length > 0 && info.auth_mode === 'none' && info.mcp.oauth === null) {
        ctx.out.line('Authorization is disabled on this runtime; connecting without credentials.');
      }
      return null;
    }
    const credential = await resolveAdminCredential(ctx, info.auth_mode);
    this.api = new ServiceAccountsClient(info.url, credential, ctx.env);
    let warning: string | null = null;
    const open = await verifyMcp(this.mcp, undefined, false, ctx.env);
    if (open.ok) {
      warning =
        'This runtime accepts unauthenticated MCP requests although it enforces authorization elsewhere: anyone who can reach it can use its tools. Tokens were still minted and configured; enable MCP authentication on the runtime to make them meaningful.';
    }
    if (!ctx.json) await this.preflight();
    return warning;
  }

  private existingTokenHere(client: ClientAdapter): boolean {
    const names = this.legacyName ? [this.serverName, this.legacyName] : [this.serverName];
    return names.some((name) => {
      const entry = safeRead(client, name, this.ce);
      return entry !== undefined && entry.token !== undefined && entry.url === this.mcp;
    });
  }

  /** A wrong credential should fail once, up front, not once per client. */
  private async preflight(): Promise<void> {
    try {
      await this.api?.preflight();
      this.ctx.out.line('Credential accepted.');
    } catch (error) {
      // A credential that may only mint (service_accounts:write) cannot list: that is fine.
      if (error instanceof CliError && error.status === 403) return;
      throw error;
    }
  }

  private get client(): ServiceAccountsClient {
    if (!this.api) throw new CliError('INTERNAL', 'Minting without an API client.');
    return this.api;
  }

  private async create(name: string): Promise<Created | 'conflict'> {
    const request = { name, scopes: this.opts.scopes, expiry: this.opts.expires, privileged: this.opts.privileged === true };
    try {
      const created = await this.client.create(request);
      this.minted.add(name);
      return created;
    } catch (error) {
      if (error instanceof CliError && error.code === 'CONFLICT') return 'conflict';
      throw error;
    }
  }

  /** Revokes `account` and creates `name` again; a second conflict is an error. */
  private async recreate(name: string, account: Account | undefined): Promise<Created> {
    if (account) await this.client.revoke(account.id);
    const created = await this.create(name);
    if (created === 'conflict') throw new CliError('CONFLICT', `A service account named '${name}' already exists.`, { hint: ROTATE_HINT, status: 409 });
    return created;
  }

  /** The active account of that name and the tokens of this user's configs that belong to it. */
  private async owner(name: string): Promise<{ account: Account | undefined; holders: HeldToken[] }> {
    let account: Account | undefined;
    try {
      account = await this.client.findActive(name);
    } catch (error) {
      // A credential that may mint but not list cannot tell whose it is: treat it as not ours.
      if (!(error instanceof CliError && error.status === 403)) throw error;
    }
    return { account, holders: account ? holdersOf(account, this.held) : [] };
  }

  private checkToken(token: string): Promise<boolean | null> {
    let check = this.tokenChecks.get(token);
    if (!check) {
      check = checkToken(this.mcp, token, this.ctx.env);
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
  async account(name: string, kind: AccountKind, notes: string[], clientId?: ClientId): Promise<Created | undefined> {
    const created = await this.create(name);
    if (created !== 'conflict') return created;
    let { account, holders } = await this.owner(name);
    if (!account) {
      // Revoked since the conflict: the name may be free now.
      const again = await this.create(name);
      if (again !== 'conflict') return again;
      ({ account, holders } = await this.owner(name));
    }
    if (account && holders.length > 0) return this.ownConflict(name, kind, account, holders, notes, clientId);
    if (kind === 'default' && clientId) {
      if (this.opts.rotate === true && this.opts.force === true && account && (await this.confirmForeign(name, notes))) return this.recreate(name, account);
      const perUser = perUserAccountName(clientId, currentUser(this.ctx.env, () => userInfo().username), hostname());
      addNote(notes, `Service account '${name}' is someone else's (its token is in none of your client configs; another user of this runtime, probably), so this client gets its own account '${perUser}'.`);
      return this.account(perUser, 'per-user', notes, clientId);
    }
    return this.foreignConflict(name, kind, account, notes);
  }

  private async ownConflict(name: string, kind: AccountKind, account: Account, holders: HeldToken[], notes: string[], clientId?: ClientId): Promise<Created | undefined> {
    const { opts } = this;
    if (opts.skipExisting === true) return undefined;
    // Every copy of its token is refused already (expired): re-minting cuts off nobody.
    if (await this.allDead(holders)) {
      addNote(notes, `The runtime no longer accepted the token of service account '${name}', so it was revoked and minted again.`);
      return this.recreate(name, account);
    }
    const replacedHere = (h: HeldToken): boolean =>
      (h.name === this.serverName || h.name === this.legacyName) && (kind === 'shared' ? this.selectedIds.includes(h.client) : h.client === clientId);
    const elsewhere = holders.filter((h) => !replacedHere(h));
    const cutOff = elsewhere.length > 0 ? `Rotating service account '${name}' also cuts off ${whereHeld(elsewhere)}, which use${elsewhere.length === 1 ? 's' : ''} its token.` : undefined;
    if (opts.rotate !== true) {
      if (!this.ctx.interactive) throw new CliError('CONFLICT', `A service account named '${name}' already exists.`, { hint: ROTATE_HINT, status: 409 });
      const question = cutOff ? `Service account '${name}' already exists. ${cutOff} Revoke and re-mint it?` : `Service account '${name}' already exists. Revoke and re-mint it?`;
      if (!(await askConfirm(question, false))) return undefined;
    } else if (cutOff && this.ctx.interactive && !(await askConfirm(`${cutOff} Rotate it anyway?`, false))) {
      return undefined;
    }
    if (cutOff) addNote(notes, cutOff);
    return this.recreate(name, account);
  }

  private async foreignConflict(name: string, kind: AccountKind, account: Account | undefined, notes: string[]): Promise<Created | undefined> {
    const { opts } = this;
    const hint =
      kind === 'shared'
        ? `Its token is in none of your client configs, so another user or machine may be using it: pick another --name, re-run with --rotate --force to revoke and re-mint it anyway, or with --skip-existing to leave it untouched.`
        : `Its token is in none of your client configs, so another user or machine may be using it: re-run with --rotate --force to revoke and re-mint it anyway, or with --skip-existing to leave it untouched.`;
    if (opts.skipExisting === true) return undefined;
    if (opts.rotate === true && opts.force === true && account) return (await this.confirmForeign(name, notes)) ? this.recreate(name, account) : undefined;
    if (opts.rotate !== true && this.ctx.interactive && account) {
      if (!(await askConfirm(`Service account '${name}' already exists, and ${FOREIGN}. Revoke and re-mint it?`, false))) return undefined;
      addNote(notes, `Revoked and re-minted service account '${name}', whose token was in none of your client configs.`);
      return this.recreate(name, account);
    }
    throw new CliError('CONFLICT', `A service account named '${name}' already exists.`, { hint, status: 409 });
  }

  /** Before revoking an account another config may use: say so, and ask on a terminal. */
  private async confirmForeign(name: string, notes: string[]): Promise<boolean> {
    const warning = `Service account '${name}' holds a token that is in none of your client configs: revoking it disconnects whoever uses it (another user or machine).`;
    if (this.ctx.interactive) return askConfirm(`${warning} Revoke it anyway?`, false);
    this.ctx.out.warn(this.ctx.out.errStyle.yellow(warning));
    addNote(notes, `Revoked and re-minted service account '${name}' (--force), whose token was in none of your client configs.`);
    return true;
  }

  get isMinting(): boolean {
    return this.minting;
  }

  get mintedNames(): string[] {
    return [...this.minted].sort();
  }

  /** With --name: one token for every client, resolved before any config is touched. */
  async sharedToken(selected: readonly ClientAdapter[], name: string): Promise<{ token: string; account: Account | undefined } | undefined> {
    if (this.opts.rotate !== true) {
      for (const client of selected) {
        const entry = safeRead(client, this.serverName, this.ce);
        if (!entry || entry.url !== this.mcp || entry.token === undefined) continue;
        if ((await verifyMcp(this.mcp, entry.token, false, this.ctx.env)).ok) return { token: entry.token, account: undefined };
      }
    }
    const created = await this.account(name, 'shared', this.sharedNotes);
    if (!created) return undefined;
    this.sharedMinted = created.account;
    return { token: created.token, account: created.account };
  }

  private isAdminKey(token: string | undefined): boolean {
    if (token === undefined) return false;
    return token === exportedCredential(this.ctx.env) || (this.info.auth_mode === 'security_key' && !token.startsWith('svc_pat_'));
  }

  private fixCommand(client: ClientAdapter, extra: string): string {
    const name = this.opts.serverName !== undefined ? ` --server-name ${this.serverName}` : '';
    return `svc connect --url ${this.info.url} --clients ${client.id}${name}${extra}`;
  }

  /** What else the user should know about an entry that works. */
  private entryNotes(client: ClientAdapter, entry: { token: string | undefined; location: string }, notes: string[]): void {
    if (this.isAdminKey(entry.token)) {
      addNote(
        notes,
        `This entry holds the runtime's admin key, which gives full control of the runtime to anything that can read ${entry.location}. Replace it with a scoped service-account token: ${this.fixCommand(client, ' --rotate')}`,
      );
    }
    if (client.id === 'terminal-agent' && isProjectMcpJson(entry.location, this.ce)) {
      const approval = projectServerApproval(this.serverName, this.ce);
      if (approval === 'pending') {
        addNote(
          notes,
          `Claude Code asks before it uses a server from a project's .mcp.json: start claude in ${this.ce.cwd} and approve '${this.serverName}' (until then it lists the server as "Pending approval").`,
        );
      } else if (approval === 'rejected') {
        addNote(notes, `Claude Code was told not to use '${this.serverName}' from this project's .mcp.json: run claude mcp reset-project-choices in ${this.ce.cwd}, then approve it when claude asks.`);
      }
    }
  }

  /** Removes what is left of the legacy entry (other scopes) once the new one works. */
  private cleanupLegacy(client: ClientAdapter, row: Row, notes: string[], renamed: boolean): void {
    if (!this.legacyName) return;
    let removed = renamed;
    try {
      removed = client.remove(this.legacyName, this.ce, (url) => url === this.mcp).removed || removed;
    } catch (error) {
      addNote(notes, `Could not remove the legacy '${this.legacyName}' entry: ${errorText(error)}`);
    }
    if (removed) row.replaced_legacy = this.legacyName;
  }

  /** Puts a client's files back byte for byte and revokes the account minted for it. */
  private async rollback(undo: Undo): Promise<string> {
    const done: string[] = [];
    try {
      const restored = restore(undo.snapshots);
      if (restored.length > 0) done.push(`restored ${restored.join(', ')}`);
    } catch (error) {
      done.push(`could not restore the config files (${errorText(error)})`);
    }
    if (undo.minted) {
      try {
        await this.client.revoke(undo.minted.id);
        this.minted.delete(undo.minted.name);
        undo.minted.revoked_at = Math.floor(Date.now() / 1000);
        done.push(`revoked the new service account '${undo.minted.name}'`);
      } catch (error) {
        done.push(`could not revoke the new service account '${undo.minted.name}' (${errorText(error)})`);
      }
    }
    return done.length > 0 ? ` Rolled back: ${done.join('; ')}.` : '';
  }

  /** An abort at a prompt changes nothing: every client done so far is undone. */
  async rollbackAll(): Promise<void> {
    for (let i = this.journal.length - 1; i >= 0; i -= 1) await this.rollback(this.journal[i] as Undo);
    this.journal.length = 0;
    if (this.sharedMinted) await this.rollback({ snapshots: [], minted: this.sharedMinted });
  }

  async connectOne(client: ClientAdapter, shared: { token: string; account: Account | undefined } | undefined | null): Promise<Row> {
    const notes: string[] = [];
    const withNotes = (r: Row): Row => (notes.length > 0 ? { ...r, note: notes.join(' ') } : r);
    const row: Row = { client: client.id, status: 'failed', error: null };
    const { opts, ce, serverName, mcp } = this;
    const undo: Undo = { snapshots: snapshot(client.files(ce)), minted: undefined };
    let changed = false;
    try {
      const existing = client.readExisting(serverName, ce);
      const legacyEntry = this.legacyName ? safeRead(client, this.legacyName, ce) : undefined;
      const legacy = legacyEntry?.url === mcp ? legacyEntry : undefined;
      if (existing) {
        if (existing.url === mcp && opts.rotate !== true) {
          const check = await verifyMcp(mcp, existing.token, this.oauthMode && existing.token === undefined, this.ctx.env);
          if (check.ok && (existing.token !== undefined || !this.minting)) {
            const done: Row = { client: client.id, status: 'already-connected', error: null, location: existing.location, verify: check };
            this.entryNotes(client, existing, notes);
            if (legacy) this.cleanupLegacy(client, done, notes, false);
            return withNotes(done);
          }
          if (opts.skipExisting === true) {
            return { client: client.id, status: 'skipped', error: 'Existing entry no longer verifies; re-run without --skip-existing to rotate.', location: existing.location };
          }
        } else if (existing.url !== mcp) {
          if (opts.skipExisting === true) {
            return { client: client.id, status: 'skipped', error: `Existing entry points at ${existing.url}; left untouched.`, location: existing.location };
          }
          row.replaced_url = existing.url;
        }
      }
      let token: string | undefined;
      let account: Account | undefined;
      if (this.minting) {
        if (shared !== null) {
          for (const note of this.sharedNotes) addNote(notes, note);
          if (shared === undefined) return withNotes({ ...row, status: 'skipped', error: KEPT });
          token = shared.token;
          account = shared.account;
        } else if (
          legacy?.token !== undefined &&
          this.legacyReuse &&
          existing === undefined &&
          opts.rotate !== true &&
          legacy.token.startsWith('svc_pat_') &&
          (await this.checkToken(legacy.token)) === true
        ) {
          // The legacy entry's account still works and nothing asks for a different token.
          token = legacy.token;
        } else {
          const created = await this.account(client.id, 'default', notes, client.id);
          if (!created) return withNotes({ ...row, status: 'skipped', error: KEPT });
          token = created.token;
          account = created.account;
          undo.minted = created.account;
        }
      }
      changed = true;
      const written = client.write(serverName, mcp, token, ce, legacy && this.legacyName ? { name: this.legacyName, matches: (url) => url === mcp } : undefined);
      row.location = written.location;
      if (written.note) addNote(notes, written.note);
      if (account) row.account = account;
      const readback = client.readExisting(serverName, ce);
      if (!readback || readback.url !== mcp || (token !== undefined && readback.token !== token)) {
        const found = readback ? `${readback.location} -> ${readback.url}` : 'no entry';
        row.error = `The config write did not take effect for '${serverName}' (found: ${found}). Another entry may shadow it; remove the stale entry and re-run.${await this.rollback(undo)}`;
        return withNotes(row);
      }
      const check = await verifyMcp(mcp, readback.token, this.oauthMode && readback.token === undefined, this.ctx.env);
      row.verify = check;
      if (!check.ok) {
        row.error = `${check.error ?? 'The MCP check failed.'}${await this.rollback(undo)}`;
        return withNotes(row);
      }
      if (check.oauth_challenge) {
        row.status = 'needs-login';
        row.instructions = [SIGN_IN[client.id](serverName)];
      } else {
        row.status = 'connected';
      }
      this.entryNotes(client, readback, notes);
      this.cleanupLegacy(client, row, notes, written.renamed);
      const oldToken = existing?.token;
      if (oldToken !== undefined && token !== undefined && oldToken !== token) row.rotated = true;
      const replacedLegacyToken = row.replaced_legacy !== undefined ? legacy?.token : undefined;
      if ((oldToken !== undefined || replacedLegacyToken !== undefined) && token === undefined) row.replaced_token_entry = true;
      this.journal.push(undo);
      return withNotes(row);
    } catch (error) {
      const undone = changed || undo.minted ? await this.rollback(undo) : '';
      if (error instanceof CliError && error.code === 'ABORTED') throw error;
      row.error = `${errorText(error)}${undone}`;
      return withNotes(row);
    }
  }

  chatRow(id: ChatAppId, auto: boolean): Row {
    const ui = CHAT_APPS.find((a) => a.id === id)?.ui ?? id;
    const where =
      id === 'chat-app-a'
        ? 'In claude.ai or the Claude desktop app: Settings -> Connectors -> Add custom connector, paste the MCP URL below, and follow the prompts (custom connectors need a paid plan).'
        : 'In ChatGPT: Settings -> Connectors -> Add custom connector, paste the MCP URL below, and follow the prompts (custom connectors need a paid plan; enable Developer Mode for full tool access).';
    const row: Row = {
      client: id,
      status: 'manual',
      error: null,
      url: this.mcp,
      instructions: [
        `${ui} reaches MCP servers from its cloud, so the runtime must be on a public HTTPS URL.`,
        this.oauthEnabled
          ? `This runtime's MCP endpoint supports OAuth sign-in, which is exactly how ${ui}'s Connectors UI authenticates: you will be asked to authorize when adding the connector.`
          : `${ui}'s Connectors UI authenticates with OAuth, not bearer tokens, so a token-protected runtime cannot be added from the UI yet; use a public or OAuth-enabled runtime.`,
        where,
      ],
      note: cloudReachable(this.mcp)
        ? null
        : `${ui} adds connectors from its own cloud and cannot reach a local runtime at ${this.info.url}; deploy it behind a public HTTPS URL (or a tunnel) before adding it.`,
    };
    if (auto) row.auto = true;
    return row;
  }
}

function safeRead(client: ClientAdapter, name: string, e: ClientEnv): ClientEntry | undefined {
  try {
    return client.readExisting(name, e);
  } catch {
    return undefined;
  }
}

async function connect(ctx: Context, opts: ConnectOptions, expiresGiven: boolean): Promise<number> {
  const ce = clientEnv(ctx.env, ctx.cwd, opts.project === true);
  const info = await discoverForClients(ctx, opts.url, ce, 'connect');
  await ensureUrlTrusted(ctx, info, opts.yes === true);
  const mcp = mcpUrl(info);
  if (!mcp) {
    throw new CliError(
      'MCP_DISABLED',
      `Found a runtime at ${info.url}, but its MCP server is not enabled.\n\nMCP is not enabled on this runtime. Enable it and restart:\n\n    new Runtime({\n      agents: [...],\n      mcp_server: true, // add this line\n    })\n`,
    );
  }
  const serverName = opts.serverName ?? deriveServerName(info.name);
  // Entries older versions wrote under one fixed name are renamed to the derived one.
  const legacyName = opts.serverName === undefined && serverName !== LEGACY_SERVER_NAME && opts.skipExisting !== true ? LEGACY_SERVER_NAME : undefined;
  // A legacy entry's token is kept only when nothing asks for a differently shaped one.
  const legacyReuse = opts.scopes === undefined && (!expiresGiven || (!opts.expires.neverExpires && opts.expires.days === 90));
  const oauthMode = (info.mcp.oauth?.authorization_servers.length ?? 0) > 0 && opts.pat !== true;
  if (oauthMode) {
    const shaping = [
      opts.name !== undefined ? '--name' : undefined,
      opts.scopes !== undefined ? '--scopes' : undefined,
      expiresGiven && (opts.expires.neverExpires || opts.expires.days !== 90) ? '--expires' : undefined,
      opts.privileged === true ? '--privileged' : undefined,
    ].filter((f): f is string => f !== undefined);
    if (shaping.length > 0) {
      throw new CliError(
        'OAUTH_ONLY',
        `${shaping.join(', ')} only shape minted tokens, but this runtime's MCP endpoint is OAuth-protected: apps sign in through the authorization server and nothing is minted.`,
        { hint: `Add --pat to mint service-account tokens anyway (for headless clients), or drop ${shaping.join(', ')}.` },
      );
    }
  }
  if (!ctx.json) {
    const name = info.name ? `"${info.name}" ` : '';
    const version = info.version ? ` (runtime ${info.version})` : '';
    ctx.out.line(`Runtime ${name}at ${info.url}${version}${sourceNote({ source: info.url_source, sourceFile: info.url_source_file })}, MCP at ${mcp}`);
    if (oauthMode) {
      const base = info.url.replace(/\/+$/, '');
      const external = (info.mcp.oauth?.authorization_servers ?? []).filter((as) => as.replace(/\/+$/, '') !== base);
      ctx.out.line(`The MCP endpoint is OAuth-protected: apps complete a one-time sign-in${external.length > 0 ? ` via ${external.join(', ')}` : ''}.`);
    }
  }

  const selection = selectClients(opts.clients, ce);
  const autoSurface = !selection.explicit && (info.auth_mode === 'none' || (info.mcp.oauth?.authorization_servers.length ?? 0) > 0) && cloudReachable(mcp);
  if (!selection.explicit && selection.adapters.length === 0 && !autoSurface) throw noClientsError();

  const runState = new ConnectRun(ctx, opts, info, mcp, serverName, legacyName, legacyReuse, ce);
  const warning = await runState.prepare(selection.adapters);
  let shared: { token: string; account: Account | undefined } | undefined | null = null;
  if (opts.name !== undefined && selection.adapters.length > 0 && runState.isMinting) {
    shared = await runState.sharedToken(selection.adapters, opts.name);
  }
  const rows: Row[] = [];
  for (const client of selection.adapters) {
    try {
      rows.push(await runState.connectOne(client, shared));
    } catch (error) {
      // Aborted at a prompt: leave everything as it was before the run.
      await runState.rollbackAll();
      throw error;
    }
  }
  for (const id of selection.chatApps) rows.push(runState.chatRow(id, false));
  if (autoSurface) for (const app of CHAT_APPS) if (!selection.chatApps.includes(app.id)) rows.push(runState.chatRow(app.id, true));

  const exitCode = exitCodeFor(rows, OK);
  if (ctx.json) {
    ctx.out.document({ os: infoJson(info), server_name: serverName, results: rows.map(rowJson), warning, exit_code: exitCode });
    return exitCode;
  }
  report(ctx, rows, info, mcp, serverName, runState.mintedNames, warning);
  return exitCode;
}

/**
 * A row in the established CLI's key order: the common keys, then what the row carries. A chat
 * app's manual row ends with its `instructions` and then `note`; a client's `note` follows its
 * `location`.
 */
function rowJson(row: Row): JsonValue {
  const out: { [key: string]: JsonValue } = { client: row.client, status: row.status, error: row.error };
  const manual = row.status === 'manual';
  if (row.replaced_url !== undefined) out.replaced_url = row.replaced_url;
  if (row.url !== undefined) out.url = row.url;
  if (row.location !== undefined) out.location = row.location;
  if (row.note !== undefined && !manual) out.note = row.note;
  if (row.account) out.account = accountJson(row.account);
  if (row.verify) out.verify = verifyJson(row.verify);
  if (row.instructions) out.instructions = row.instructions;
  if (row.note !== undefined && manual) out.note = row.note;
  if (row.replaced_legacy !== undefined) out.replaced_legacy = row.replaced_legacy;
  if (row.rotated) out.rotated = true;
  if (row.replaced_token_entry) out.replaced_token_entry = true;
  if (row.auto) out.auto = true;
  return out;
}

const PAD = ' '.repeat(17);
const DISPLAY: Record<string, string> = { 'terminal-agent': 'Claude Code', 'desktop-app': 'Claude Desktop', 'cli-agent': 'Codex', editor: 'Cursor' };

function report(ctx: Context, rows: Row[], info: RuntimeInfo, mcp: string, serverName: string, minted: string[], warning: string | null): void {
  const s = ctx.out.style;
  const e = ctx.out.errStyle;
  const display = (row: Row): string => DISPLAY[row.client] ?? row.client;
  ctx.out.line();
  for (const row of rows) {
    if (row.auto) continue;
    const where = shortenHome(row.location ?? '');
    if (row.status === 'connected') {
      const tools = row.verify && row.verify.tools.length > 0 ? ` (${row.verify.tools.length} tools)` : '';
      ctx.out.line(`  ${s.green('connected'.padEnd(15))}${display(row)}${tools}  ->  ${where}`);
    } else if (row.status === 'needs-login') ctx.out.warn(`  ${e.yellow('sign in'.padEnd(15))}${display(row)}  ->  ${where}`);
    else if (row.status === 'already-connected') ctx.out.line(`  ${'already ok'.padEnd(15)}${display(row)}  ->  ${where}`);
    else if (row.status === 'skipped') ctx.out.warn(`  ${e.yellow('skipped'.padEnd(15))}${display(row)}  (${row.error ?? ''})`);
    else if (row.status === 'failed') ctx.out.warn(`  ${e.red('failed'.padEnd(15))}${display(row)}  (${row.error ?? ''})`);
    else {
      ctx.out.warn(`  ${e.yellow('action needed'.padEnd(15))}${row.client}  (set up in the ${CHAT_APPS.find((a) => a.id === row.client)?.ui ?? row.client} UI)`);
      for (const step of row.instructions ?? []) ctx.out.line(`${PAD}- ${step}`);
      ctx.out.line(`${PAD}MCP URL: ${row.url ?? mcp}`);
    }
    if (row.note) ctx.out.warn(`${PAD}note: ${row.note}`);
    if (row.replaced_legacy) ctx.out.warn(`${PAD}renamed the legacy '${row.replaced_legacy}' entry`);
  }
  for (const url of new Set(rows.map((r) => r.replaced_url).filter((u): u is string => u !== undefined))) {
    const apps = rows.filter((r) => r.replaced_url === url).map(display).sort().join(', ');
    ctx.out.warn(`This replaced ${apps}'s existing '${serverName}' entry, which pointed at ${url} -- those apps now connect to this runtime instead.`);
    ctx.out.line(`To use both, reconnect the other runtime under its own entry name: svc connect --url <other-runtime> --server-name <name>`);
  }
  const fresh = rows.filter((r) => r.status === 'connected' || r.status === 'needs-login');
  if (fresh.length > 0) {
    const apps = fresh.map(display).sort();
    const target = info.name ? `"${info.name}"` : info.url;
    const signIn = fresh.filter((r) => r.status === 'needs-login');
    ctx.out.line();
    ctx.out.line(`${signIn.length > 0 ? 'Configured' : 'Connected'} ${fresh.length} app${fresh.length === 1 ? '' : 's'} ${signIn.length > 0 ? 'for' : 'to'} ${target} as '${serverName}'.`);
    const restart = `Restart ${apps.join(', ')} so ${apps.length === 1 ? 'it loads' : 'they load'} the new MCP server.`;
    if (signIn.length === 0) ctx.out.warn(restart);
    else {
      ctx.out.warn('To finish:');
      ctx.out.warn(`  1. ${restart}`);
      ctx.out.warn('  2. Complete the one-time sign-in in each app:');
      const width = Math.max(...signIn.map((r) => display(r).length));
      for (const r of signIn) ctx.out.warn(`       ${display(r).padEnd(width)}  ${r.instructions?.[0] ?? ''}`);
    }
    if (rows.some((r) => r.rotated)) ctx.out.warn('A rotated client keeps using its previous (now revoked) token until it restarts.');
  }
  if (minted.length > 0) ctx.out.line(`\nRevoke any time with: svc tokens revoke <name> --url ${info.url}  (accounts: ${minted.join(', ')})`);
  const replacedTokens = rows.filter((r) => r.replaced_token_entry);
  if (replacedTokens.length > 0) {
    ctx.out.warn(`The replaced entries for ${replacedTokens.map(display).sort().join(', ')} carried tokens; the service accounts behind them stay valid until they expire.`);
    ctx.out.warn(`Revoke them with: svc tokens revoke <name> --url ${info.url}`);
  }
  if (rows.some((r) => r.auto)) {
    ctx.out.line('\nAlso reachable from the hosted chat apps (claude.ai, ChatGPT):');
    ctx.out.line(`  Settings -> Connectors -> Add custom connector -> ${mcp}`);
    if ((info.mcp.oauth?.authorization_servers.length ?? 0) > 0) ctx.out.line('  Both authenticate with the same one-time sign-in when you add the connector.');
    ctx.out.line('  Custom connectors need a paid plan; ChatGPT needs Developer Mode for full tool access.');
  }
  if (warning) ctx.out.warn(e.yellow(warning));
}

/** This folder's commands (connect); `run` is the entry of its bundle, dist/cmd/connect.mjs. */
export function commands(): Command[] {
  return [connectCommand()];
}

export const run = runWith(commands);
