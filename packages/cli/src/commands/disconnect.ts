/**
 * `svc disconnect`: removes the runtime's MCP entries from client configs. Offline by default:
 * a runtime that is gone (the usual reason to disconnect) can still be removed, by matching
 * every address discovery would have tried. Entries pointing at any other runtime are never
 * touched. Only --revoke needs the runtime and an admin credential.
 */
import { Command } from 'commander';
import { exitCodeFor, EXIT_PARTIAL } from '../clients/exit-code.js';
import { clientEnv } from '../clients/registry.js';
import { CHAT_APPS, matchesTargets, noClientsError, selectClients } from '../clients/select.js';
import type { Context } from '../context.js';
import { resolveAdminCredential } from '../credentials/admin-token.js';
import { ensureUrlTrusted, requireSecureUrl } from '../credentials/gates.js';
import { candidates } from '../discovery/candidates.js';
import { discoverForClients } from '../discovery/discover-all.js';
import { infoJson, type RuntimeInfo } from '../discovery/os-info.js';
import { CliError } from '../errors.js';
import { ServiceAccountsClient } from '../http/service-accounts.js';
import type { JsonValue } from '../output/output.js';
import { parseUrlOption, run } from './shared.js';
import { parseServerName } from './status.js';
import { shortenHome } from '../output/home-path.js';

interface DisconnectOptions {
  url?: string;
  clients?: string;
  serverName?: string;
  name?: string;
  revoke?: boolean;
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
    .description('Remove the runtime from local MCP clients (offline unless --revoke)')
    .option('--url <url>', 'runtime base URL (default: autodiscover)', parseUrlOption)
    .option('--clients <list>', 'comma-separated clients (default: detected; chat apps print manual steps)')
    .option('--server-name <name>', 'remove exactly this entry name (default: every entry pointing at the runtime)', parseServerName)
    .option('--name <account>', 'with --revoke: the shared account name used at connect time')
    .option('--revoke', 'also revoke the matching service accounts (needs the runtime and an admin credential)')
    .option('--allow-http', 'allow sending the admin credential over plain HTTP to a non-loopback host')
    .option('-y, --yes', 'trust a remote RUNTIME_URL from a .env file without asking')
    .option('--json', 'print exactly one JSON document on stdout')
    .action(async (opts: DisconnectOptions, cmd: Command) => run(cmd, (ctx) => disconnect(ctx, opts)));
}

function errorText(error: unknown): string {
  if (error instanceof CliError) return error.hint ? `${error.message} ${error.hint}` : error.message;
  return `Unexpected error (${error instanceof Error ? error.name : typeof error}): ${error instanceof Error ? error.message : String(error)}`;
}

async function disconnect(ctx: Context, opts: DisconnectOptions): Promise<number> {
  const revoke = opts.revoke === true;
  const ce = clientEnv(ctx.env, ctx.cwd);
  let info: RuntimeInfo | null = null;
  if (revoke || opts.serverName === undefined) {
    try {
      info = await discoverForClients(ctx, opts.url, ce, 'disconnect');
    } catch (error) {
      // Removing entries needs no runtime; revoking does.
      if (revoke) throw error;
    }
  }
  let targets: string[] = [];
  if (opts.serverName === undefined) {
    targets = info ? [info.url] : candidates(opts.url, ctx.env, ctx.cwd).map((c) => c.url);
    if (!info) ctx.out.warn(`No running runtime found; removing entries pointing at: ${targets.join(', ')}`);
  }
  let api: ServiceAccountsClient | undefined;
  if (revoke && info) {
    await ensureUrlTrusted(ctx, info, opts.yes === true);
    if (info.auth_mode !== 'none') requireSecureUrl(info.url, opts.allowHttp === true, 'the admin credential');
    api = new ServiceAccountsClient(info.url, await resolveAdminCredential(ctx, info.auth_mode), ctx.env);
  }

  const selection = selectClients(opts.clients, ce);
  if (!selection.explicit && selection.adapters.length === 0) throw noClientsError();

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
      for (const name of names) {
        const result = adapter.remove(name, ce, matcher);
        if (!result.removed) continue;
        removed.push(name);
        if (result.location) for (const loc of result.location.split(', ')) if (!locations.includes(loc)) locations.push(loc);
        if (entries.get(name)?.token !== undefined) row.hadToken = true;
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

  const revocations: Revocation[] = [];
  if (api) {
    const names = opts.name !== undefined ? [opts.name] : selection.adapters.map((a) => a.id).sort();
    for (const account of names) {
      try {
        const found = await api.findActive(account);
        if (!found) {
          revocations.push({ account, status: 'not-found', error: null });
          continue;
        }
        await api.revoke(found.id);
        revocations.push({ account, status: 'revoked', error: null });
      } catch (error) {
        revocations.push({ account, status: 'failed', error: errorText(error) });
      }
    }
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
  report(ctx, rows, revocations, info, revoke);
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

function report(ctx: Context, rows: Row[], revocations: Revocation[], info: RuntimeInfo | null, revoke: boolean): void {
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
  if (removed.length === 0) return;
  ctx.out.line();
  ctx.out.warn(`Restart ${removed.map((r) => r.display).sort().join(', ')} to drop the connection.`);
  // Removing an entry does not invalidate its token; say so when a token was in what we removed.
  if (!revoke && removed.some((r) => r.hadToken)) {
    // A reminder of what to do next, like connect's "Revoke any time with": stdout.
    ctx.out.line(`Tokens minted for these apps stay valid. Revoke them with: svc tokens revoke <name>${info ? ` --url ${info.url}` : ''}`);
  }
}
