/**
 * `svc disconnect`: removes the runtime's MCP entries from client configs. Offline by default:
 * a runtime that is gone (the usual reason to disconnect) can still be removed, by matching
 * every address discovery would have tried. Entries pointing at any other runtime are never
 * touched. Only --revoke needs the runtime and an admin credential.
 */
import { hostname, userInfo } from 'node:os';
import { Command } from 'commander';
import type { Account } from '../../accounts/account.js';
import { currentUser, perUserAccountName } from '../../accounts/name.js';
import { heldTokens, holdersOf, type HeldToken } from '../../accounts/ownership.js';
import { exitCodeFor, EXIT_PARTIAL } from '../../clients/exit-code.js';
import { clientEnv, CLIENTS, type ClientAdapter } from '../../clients/registry.js';
import { CHAT_APPS, matchesTargets, noClientsError, selectClients } from '../../clients/select.js';
import { LEGACY_SERVER_NAME } from '../../clients/server-name.js';
import type { Context } from '../../context.js';
import { resolveAdminCredential } from '../../credentials/admin-token.js';
import { ensureUrlTrusted, requireSecureUrl } from '../../credentials/gates.js';
import { candidates } from '../../discovery/candidates.js';
import { baseUrlOfEntry, discoverForClients } from '../../discovery/discover-all.js';
import { infoJson, type RuntimeInfo } from '../../discovery/os-info.js';
import { CliError } from '../../errors.js';
import { ServiceAccountsClient } from '../../http/service-accounts.js';
import type { JsonValue } from '../../util/json.js';
import { askConfirm } from '../../output/prompt.js';
import { runAction } from '../action.js';
import { parseServerName, parseUrlOption } from '../options.js';
import { runWith } from '../program.js';
import { shortenHome } from '../../output/home-path.js';

interface DisconnectOptions {
  url?: string;
  clients?: string;
  serverName?: string;
  name?: string;
  revoke?: boolean;
  force?: boolean;
  allowHttp?: boolean;
  yes?: boolean;
}

interface Row {
  client: string;
  status: 'removed' | 'not-found' | 'failed' | 'manual';
  error: string | null;
  removed?: string[];
  location?: string;
  instructions?: string[];
  display: string;
  hadToken: boolean;
}

interface Revocation {
  account: string;
  status: 'revoked' | 'not-found' | 'failed';
  error: string | null;
}

const OK = new Set(['removed', 'not-found', 'manual']);

export function disconnectCommand(): Command {
  return new Command('disconnect')
    .option('--url <url>', 'runtime base URL (default: autodiscover)', parseUrlOption)
    .option('--clients <list>', 'comma-separated clients (default: detected; chat apps print manual steps)')
    .option('--server-name <name>', 'remove exactly this entry name (default: every entry pointing at the runtime)', parseServerName)
    .option('--name <account>', 'with --revoke: the shared account name used at connect time')
    .option('--revoke', 'also revoke the matching service accounts whose token is in your client configs (needs the runtime and an admin credential)')
    .option('--force', "with --revoke: also revoke an account whose token is in none of your client configs (another user's)")
    .option('--allow-http', 'allow sending the admin credential over plain HTTP to a non-loopback host')
    .option('-y, --yes', 'trust a remote RUNTIME_URL from a .env file without asking')
    .option('--json', 'print exactly one JSON document on stdout')
    .action(async (opts: DisconnectOptions, cmd: Command) => runAction(cmd, (ctx) => disconnect(ctx, opts)));
}

function errorText(error: unknown): string {
  if (error instanceof CliError) return error.hint ? `${error.message} ${error.hint}` : error.message;
  return `Unexpected error (${error instanceof Error ? error.name : typeof error}): ${error instanceof Error ? error.message : String(error)}`;
}

/** The URL `disconnect` points users at when a revocation has to wait for the runtime. */
function revokeLater(name: string, url: string | undefined): string {
  return `svc tokens revoke ${name}${url ? ` --url ${url}` : ''}`;
}

/**
 * Which service accounts to revoke, and which to leave: an account is revoked when its token is
 * in this user's client configs (read before anything was removed), or with --force. A client's
 * accounts are looked up under its id and its per-user name (what connect mints when another
 * user holds the id).
 */
async function revokeAccounts(ctx: Context, opts: DisconnectOptions, api: ServiceAccountsClient, clients: readonly ClientAdapter[], held: readonly HeldToken[]): Promise<Revocation[]> {
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

const FOREIGN = 'its token is in none of your client configs, so another user or machine may be using it';

/** Revoking an account that may be someone else's: only with --force, said first, asked on a terminal. */
async function forceForeign(ctx: Context, opts: DisconnectOptions, name: string): Promise<boolean> {
  if (opts.force !== true) return false;
  const warning = `Service account '${name}' holds a token that is in none of your client configs: revoking it disconnects whoever uses it (another user or machine).`;
  if (ctx.interactive) return askConfirm(`${warning} Revoke it anyway?`, false);
  ctx.out.warn(ctx.out.errStyle.yellow(warning));
  return true;
}

async function disconnect(ctx: Context, opts: DisconnectOptions): Promise<number> {
  const revoke = opts.revoke === true;
  const ce = clientEnv(ctx.env, ctx.cwd);
  let info: RuntimeInfo | null = null;
  let unreachable: CliError | undefined;
  if (revoke || opts.serverName === undefined) {
    try {
      info = await discoverForClients(ctx, opts.url, ce, 'disconnect');
    } catch (error) {
      // Removing entries needs no runtime; a revocation that cannot happen is reported below.
      if (!(error instanceof CliError) || error.code !== 'NO_RUNTIME') throw error;
      unreachable = error;
    }
  }
  const offlineTargets = candidates(opts.url, ctx.env, ctx.cwd).map((c) => c.url);
  let targets: string[] = [];
  if (opts.serverName === undefined) {
    targets = info ? [info.url] : offlineTargets;
    if (!info) ctx.out.warn(`No running runtime found; removing entries pointing at: ${targets.join(', ')}`);
  }
  let api: ServiceAccountsClient | undefined;
  if (revoke && info) {
    await ensureUrlTrusted(ctx, info, opts.yes === true);
    if (info.auth_mode !== 'none') requireSecureUrl(info.url, opts.allowHttp === true, 'the admin credential');
    api = new ServiceAccountsClient(info.url, await resolveAdminCredential(ctx, info.auth_mode), ctx.env);
  }

  const selection = selectClients(opts.clients, ce);
  if (!selection.explicit && selection.adapters.length === 0 && selection.chatApps.length === 0) throw noClientsError();
  // Whose accounts are whose is decided by the tokens held before anything is removed.
  const held = revoke ? heldTokens(CLIENTS, ce) : [];

  const rows: Row[] = [];
  for (const adapter of selection.adapters) {
    const row: Row = { client: adapter.id, status: 'not-found', error: null, display: adapter.display, hadToken: false };
    try {
      const entries = adapter.listEntries(ce);
      // Precedence may hide our entry behind a same-named foreign one, so every name is tried
      // and the per-scope URL check decides.
      const names = opts.serverName !== undefined ? [opts.serverName] : [...entries.keys()];
      const matcher = opts.serverName !== undefined ? undefined : (url: string) => matchesTargets(url, targets);
      const removed: string[] = [];
      const locations: string[] = [];
      const removedUrls: string[] = [];
      const take = (name: string, result: { removed: boolean; location: string | null }): void => {
        if (!result.removed) return;
        removed.push(name);
        if (result.location) for (const loc of result.location.split(', ')) if (!locations.includes(loc)) locations.push(loc);
        const entry = entries.get(name);
        if (entry?.token !== undefined) row.hadToken = true;
        if (entry) removedUrls.push(entry.url);
      };
      for (const name of names) take(name, adapter.remove(name, ce, matcher));
      // By name, the legacy entry of the same runtime goes too: the runtime's address if it
      // answered, else the address the named entry had.
      if (opts.serverName !== undefined && opts.serverName !== LEGACY_SERVER_NAME) {
        const sameRuntime = info ? [info.url] : removedUrls.map((url) => baseUrlOfEntry(url) ?? url);
        if (sameRuntime.length > 0) take(LEGACY_SERVER_NAME, adapter.remove(LEGACY_SERVER_NAME, ce, (url) => matchesTargets(url, sameRuntime)));
      }
      if (removed.length > 0) Object.assign(row, { status: 'removed', removed, location: locations.join(', ') });
    } catch (error) {
      Object.assign(row, { status: 'failed', error: errorText(error) });
    }
    rows.push(row);
  }
  for (const id of selection.chatApps) {
    const ui = CHAT_APPS.find((a) => a.id === id)?.ui ?? id;
    rows.push({ client: id, status: 'manual', error: null, instructions: [`Remove the connector in the ${ui} UI: Settings -> Connectors.`], display: ui, hadToken: false });
  }

  let revocations: Revocation[] = [];
  if (api) {
    revocations = await revokeAccounts(ctx, opts, api, selection.adapters, held);
  } else if (revoke) {
    // No runtime to revoke on: the entries are gone, the accounts are not. Say which.
    const names = opts.name !== undefined ? [opts.name] : selection.adapters.map((a) => a.id).sort();
    const url = opts.url ?? (offlineTargets.length === 1 ? offlineTargets[0] : undefined);
    revocations = names.map((account) => ({
      account,
      status: 'failed',
      error: `Not revoked: ${unreachable?.message ?? 'no running runtime found.'} Revoke it once the runtime is back: ${revokeLater(account, url)}`,
    }));
  }

  let exitCode = exitCodeFor(rows, OK);
  if (exitCode === 0 && revocations.some((r) => r.status === 'failed')) exitCode = EXIT_PARTIAL;

  if (ctx.json) {
    ctx.out.document({
      os: info ? infoJson(info) : null,
      server_name: opts.serverName ?? null,
      target_urls: targets.length > 0 ? targets : null,
      results: rows.map(rowJson),
      revocations: revocations.map((r) => ({ account: r.account, status: r.status, error: r.error })),
      exit_code: exitCode,
    });
    return exitCode;
  }
  report(ctx, rows, revocations, info, revoke, targets);
  return exitCode;
}

function rowJson(row: Row): JsonValue {
  const out: { [key: string]: JsonValue } = { client: row.client, status: row.status, error: row.error };
  if (row.removed) out.removed = row.removed;
  if (row.location !== undefined) out.location = row.location;
  if (row.instructions) out.instructions = row.instructions;
  return out;
}

const PAD = ' '.repeat(17);

function report(ctx: Context, rows: Row[], revocations: Revocation[], info: RuntimeInfo | null, revoke: boolean, targets: string[]): void {
  const s = ctx.out.style;
  const e = ctx.out.errStyle;
  ctx.out.line();
  for (const row of rows) {
    if (row.status === 'removed') ctx.out.line(`  ${s.green('removed'.padEnd(15))}${row.display} ('${(row.removed ?? []).join(', ')}')  ->  ${shortenHome(row.location ?? '')}`);
    else if (row.status === 'not-found') ctx.out.line(`  ${'not found'.padEnd(15)}${row.display}  (no matching entry)`);
    else if (row.status === 'failed') ctx.out.warn(`  ${e.red('failed'.padEnd(15))}${row.display}  (${row.error ?? ''})`);
    else {
      ctx.out.warn(`  ${e.yellow('action needed'.padEnd(15))}${row.client}`);
      for (const step of row.instructions ?? []) ctx.out.line(`${PAD}- ${step}`);
    }
  }
  for (const r of revocations) {
    if (r.status === 'revoked') ctx.out.line(`  ${s.green('revoked'.padEnd(15))}service account '${r.account}'`);
    else if (r.status === 'not-found') ctx.out.line(`  ${'no account'.padEnd(15)}'${r.account}' (already revoked or never minted)`);
    else ctx.out.warn(`  ${e.red('revoke failed'.padEnd(15))}'${r.account}'  (${r.error ?? ''})`);
  }
  const removed = rows.filter((r) => r.status === 'removed');
  if (removed.length === 0) {
    if (!info && targets.length > 0 && rows.some((r) => r.status === 'not-found')) {
      ctx.out.line();
      ctx.out.line('No entry points at those addresses. For a runtime that is gone, pass its address (--url) or the entry name (--server-name).');
    }
    return;
  }
  ctx.out.line();
  ctx.out.warn(`Restart ${removed.map((r) => r.display).sort().join(', ')} to drop the connection.`);
  // Removing an entry does not invalidate its token; say so when a token was in what we removed.
  if (!revoke && removed.some((r) => r.hadToken)) {
    // A reminder of what to do next, like connect's "Revoke any time with": stdout.
    ctx.out.line(`Tokens minted for these apps stay valid. Revoke them with: svc tokens revoke <name>${info ? ` --url ${info.url}` : ''}`);
  }
}

/** This folder's commands (disconnect); `run` is the entry of its bundle, dist/cmd/disconnect.mjs. */
export function commands(): Command[] {
  return [disconnectCommand()];
}

export const run = runWith(commands);
