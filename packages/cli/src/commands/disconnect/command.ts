/**
 * `svc disconnect`: removes the runtime's MCP entries from client configs. Offline by default:
 * a runtime that is gone (the usual reason to disconnect) can still be removed, by matching
 * every address discovery would have tried. Entries pointing at any other runtime are never
 * touched. Only --revoke needs the runtime and an admin credential (revoke.ts: which accounts).
 */
import { Command } from 'commander';
import { heldTokens } from '../../accounts/ownership.js';
import { MintRecord } from '../../accounts/record.js';
import { exitCodeFor, EXIT_PARTIAL } from '../../clients/exit-code.js';
import { clientEnv, CLIENTS } from '../../clients/registry.js';
import { CHAT_APPS, noClientsError, selectClients } from '../../clients/select.js';
import type { Context } from '../../context.js';
import { resolveAdminCredential } from '../../credentials/admin-token.js';
import { ensureUrlTrusted, requireSecureUrl } from '../../credentials/gates.js';
import { candidates } from '../../discovery/candidates.js';
import { discoverForClients } from '../../discovery/discover-all.js';
import { infoJson, type RuntimeInfo } from '../../discovery/os-info.js';
import { CliError } from '../../errors.js';
import { ServiceAccountsClient } from '../../http/service-accounts.js';
import { runAction } from '../action.js';
import { parseServerName, parseUrlOption } from '../options.js';
import { runWith } from '../program.js';
import { removeEntries } from './remove.js';
import { OK, report, rowJson, type Row } from './report.js';
import { offlineNames, revokeAccounts, revokeLater, type Revocation } from './revoke.js';
import { endpointKey } from '../../util/loopback.js';

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

export function disconnectCommand(): Command {
  return new Command('disconnect')
    .option('--url <url>', 'runtime base URL (default: autodiscover)', parseUrlOption)
    .option('--clients <list>', 'comma-separated clients (default: detected; chat apps print manual steps)')
    .option('--server-name <name>', 'remove exactly this entry name (default: every entry pointing at the runtime)', parseServerName)
    .option('--name <account>', 'with --revoke: also this shared account (found anyway when a removed entry holds its token or it was minted from here)')
    .option('--revoke', 'also revoke the service accounts the removed entries used, and those connect minted from here for these clients (needs the runtime and an admin credential)')
    .option('--force', "with --revoke: also revoke an account that is in none of your client configs and was not minted from here (another user's)")
    .option('--allow-http', 'allow sending the admin credential over plain HTTP to a non-loopback host')
    .option('-y, --yes', 'trust a remote RUNTIME_URL from a .env file without asking')
    .option('--json', 'print exactly one JSON document on stdout')
    .action(async (opts: DisconnectOptions, cmd: Command) => runAction(cmd, (ctx) => disconnect(ctx, opts)));
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
    api = new ServiceAccountsClient(info.url, await resolveAdminCredential(ctx, info.auth_mode, 'revoke service accounts'), ctx.env);
  }

  const selection = selectClients(opts.clients, ce);
  if (!selection.explicit && selection.adapters.length === 0 && selection.chatApps.length === 0) throw noClientsError();
  // Whose accounts are whose is decided by the tokens held before anything is removed.
  const held = revoke ? heldTokens(CLIENTS, ce) : [];

  const rows: Row[] = [];
  for (const adapter of selection.adapters) rows.push(removeEntries(adapter, ce, opts.serverName, targets, info));
  for (const id of selection.chatApps) {
    const ui = CHAT_APPS.find((a) => a.id === id)?.ui ?? id;
    rows.push({ client: id, status: 'manual', error: null, instructions: [`Remove the connector in the ${ui} UI: Settings -> Connectors.`], display: ui, hadToken: false });
  }

  let revocations: Revocation[] = [];
  const record = new MintRecord(ce);
  const clientIds = selection.adapters.map((a) => a.id).sort();
  if (api && info) {
    revocations = await revokeAccounts(ctx, opts, api, { runtimeUrl: info.url, clients: clientIds, heldBefore: held, heldAfter: heldTokens(CLIENTS, ce), record });
  } else if (revoke) {
    // No runtime to revoke on: the entries are gone, the accounts are not. Say which.
    const keys = new Set(offlineTargets.map(endpointKey));
    const names = offlineNames(opts, clientIds, record.entries().filter((a) => keys.has(a.runtime)));
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

/** This folder's commands (disconnect); `run` is the entry of its bundle, dist/cmd/disconnect.mjs. */
export function commands(): Command[] {
  return [disconnectCommand()];
}

export const run = runWith(commands);
