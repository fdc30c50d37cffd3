/**
 * `svc connect`: discover the runtime, mint one service account per client (or one shared
 * account), write each client's MCP entry, read it back, and verify it with a real MCP
 * handshake. Re-runs are safe: entries that still verify are left alone.
 *
 * Order matters, as in `tokens`: everything that can be checked locally or refused before a
 * credential leaves the machine is checked first (plan.ts), and every gate fails before any
 * prompt, mint or write. After that, each client succeeds or fails on its own (accounts.ts
 * picks its token, write.ts writes and verifies its entry), and report.ts says how it went.
 */
import { Command, Option } from 'commander';
import { DEFAULT_EXPIRES, parseExpires, type Expiry } from '../../accounts/expires.js';
import { heldTokens } from '../../accounts/ownership.js';
import { MintRecord } from '../../accounts/record.js';
import { exitCodeFor } from '../../clients/exit-code.js';
import { CLIENTS } from '../../clients/registry.js';
import { CHAT_APPS, noClientsError, selectClients } from '../../clients/select.js';
import type { Context } from '../../context.js';
import { infoJson } from '../../discovery/os-info.js';
import { runAction } from '../action.js';
import { collect, invalidValue, parseServerName, parseUrlOption } from '../options.js';
import { runWith } from '../program.js';
import { Accounts, type SharedToken } from './accounts.js';
import { chatRow, cloudReachable } from './chat-apps.js';
import { planConnect, prepareMinting, type ConnectOptions } from './plan.js';
import { OK, report, rowJson, type Row } from './report.js';
import { ConfigWriter } from './write.js';

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
    .option('--server-name <name>', 'MCP entry name (default: derived from the runtime name, fallback agentos); entries for the same runtime under other names are renamed to it', parseServerName)
    .option('--project', 'write project-scoped configs instead of user-level ones')
    .option('--rotate', 'rewrite existing entries without asking: revoke and re-create your accounts (token in your client configs, or minted from here)')
    .option('--force', "with --rotate: also revoke an account that is in none of your client configs and was not minted from here (another user's)")
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

async function connect(ctx: Context, opts: ConnectOptions, expiresGiven: boolean): Promise<number> {
  const plan = await planConnect(ctx, opts, expiresGiven);
  const { info, mcp, serverName, ce } = plan;
  const selection = selectClients(opts.clients, ce);
  const autoSurface = !selection.explicit && (info.auth_mode === 'none' || plan.oauthEnabled) && cloudReachable(mcp);
  if (!selection.explicit && selection.adapters.length === 0 && !autoSurface) throw noClientsError();

  // Whose accounts are whose is decided by the tokens held before anything is written.
  const held = heldTokens(CLIENTS, ce);
  const { api, warning } = await prepareMinting(ctx, opts, plan, selection.adapters);
  const record = new MintRecord(plan.ce);
  const accounts = api ? new Accounts(ctx, opts, plan, api, held, selection.adapters.map((c) => c.id), record) : undefined;
  let shared: SharedToken | null = null;
  if (opts.name !== undefined && selection.adapters.length > 0 && accounts) {
    shared = await accounts.sharedToken(selection.adapters, opts.name);
  }
  const writer = new ConfigWriter(ctx, opts, plan, accounts);
  const rows: Row[] = [];
  for (const client of selection.adapters) {
    try {
      rows.push(await writer.connect(client, shared));
    } catch (error) {
      // Aborted at a prompt: leave everything as it was before the run.
      await writer.rollbackAll();
      throw error;
    }
  }
  await writer.releaseUnusedShared(rows);
  for (const id of selection.chatApps) rows.push(chatRow(plan, id, false));
  if (autoSurface) for (const app of CHAT_APPS) if (!selection.chatApps.includes(app.id)) rows.push(chatRow(plan, app.id, true));

  const exitCode = exitCodeFor(rows, OK);
  if (ctx.json) {
    ctx.out.document({ os: infoJson(info), server_name: serverName, results: rows.map(rowJson), warning, exit_code: exitCode });
    return exitCode;
  }
  report(ctx, rows, info, mcp, serverName, accounts?.mintedNames ?? [], warning);
  return exitCode;
}

/** This folder's commands (connect); `run` is the entry of its bundle, dist/cmd/connect.mjs. */
export function commands(): Command[] {
  return [connectCommand()];
}

export const run = runWith(commands);
