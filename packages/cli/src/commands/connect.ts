/**
 * `svc connect`: discover the runtime, mint one service account per client (or one shared
 * account), write each client's MCP entry, read it back, and verify it with a real MCP
 * handshake. Re-runs are safe: entries that still verify are left alone.
 *
 * Order matters, as in `tokens`: everything that can be checked locally or refused before a
 * credential leaves the machine is checked first, and every gate fails before any prompt, mint
 * or write. After that, each client succeeds or fails on its own.
 */
import { Command, Option } from 'commander';
import { accountJson, type Account } from '../accounts/account.js';
import { DEFAULT_EXPIRES, parseExpires, type Expiry } from '../accounts/expires.js';
import { exitCodeFor } from '../clients/exit-code.js';
import { clientEnv, type ClientAdapter, type ClientEntry, type ClientEnv, type ClientId } from '../clients/registry.js';
import { CHAT_APPS, noClientsError, selectClients, type ChatAppId } from '../clients/select.js';
import { deriveServerName } from '../clients/server-name.js';
import type { Context } from '../context.js';
import { exportedCredential, resolveAdminCredential } from '../credentials/admin-token.js';
import { ensureUrlTrusted, requireMintCapable, requireSecureUrl } from '../credentials/gates.js';
import { sourceNote } from '../discovery/candidates.js';
import { discoverForClients } from '../discovery/discover-all.js';
import { isLoopbackHost } from '../discovery/loopback.js';
import { infoJson, mcpUrl, type RuntimeInfo } from '../discovery/os-info.js';
import { CliError } from '../errors.js';
import { ServiceAccountsClient } from '../http/service-accounts.js';
import { verifyJson, verifyMcp, type VerifyResult } from '../mcp/verify.js';
import { shortenHome } from '../output/home-path.js';
import type { JsonValue } from '../output/output.js';
import { askConfirm } from '../output/prompt.js';
import { collect, invalidValue, parseUrlOption, run } from './shared.js';
import { parseServerName } from './status.js';

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
    .description('Connect local coding-agent clients to the runtime over MCP')
    .option('--url <url>', 'runtime base URL (default: autodiscover)', parseUrlOption)
    .option('--clients <list>', 'comma-separated clients (default: detected, plus chat-app steps for a public runtime)')
    .option('--name <account>', 'use one shared service account with this name (default: one per client)')
    .option('-s, --scopes <scope>', "scope to grant; repeatable (default: the server's run and read scopes)", collect)
    .addOption(new Option('--expires <lifetime>', "days ('90d' or '30') or 'never'").default(parseExpires(DEFAULT_EXPIRES), DEFAULT_EXPIRES).argParser(expiresOption))
    .option('--privileged', 'allow write, delete, admin and service_accounts scopes')
    .option('--pat', 'create tokens even when MCP is OAuth-protected (headless clients)')
    .option('--server-name <name>', 'MCP entry name (default: derived from the runtime name, fallback agentos)', parseServerName)
    .option('--project', 'write project-scoped configs instead of user-level ones')
    .option('--rotate', 'rewrite existing entries without asking: revoke and re-create accounts')
    .option('--skip-existing', 'never touch existing accounts or entries')
    .option('--allow-http', 'allow sending credentials over plain HTTP to a non-loopback host')
    .option('-y, --yes', 'trust a remote RUNTIME_URL from a .env file without asking')
    .option('--json', 'print exactly one JSON document on stdout')
    .action(async (opts: ConnectOptions, cmd: Command) =>
      run(cmd, (ctx) => {
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

class ConnectRun {
  private readonly mcp: string;
  private readonly oauthEnabled: boolean;
  private readonly oauthMode: boolean;
  private minting = false;
  private api: ServiceAccountsClient | undefined;
  private readonly minted = new Set<string>();

  constructor(
    private readonly ctx: Context,
    private readonly opts: ConnectOptions,
    private readonly info: RuntimeInfo,
    mcp: string,
    readonly serverName: string,
    private readonly ce: ClientEnv,
  ) {
    this.mcp = mcp;
    this.oauthEnabled = (info.mcp.oauth?.authorization_servers.length ?? 0) > 0;
    this.oauthMode = this.oauthEnabled && opts.pat !== true;
  }

  /** Gates that must pass before anything is minted, prompted for or written. */
  async prepare(selected: readonly ClientAdapter[]): Promise<string | null> {
    const { ctx, opts, info } = this;
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
    try {
      const entry = client.readExisting(this.serverName, this.ce);
      return entry !== undefined && entry.token !== undefined && entry.url === this.mcp;
    } catch {
      return false;
    }
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

  /**
   * Creates the account; on a name conflict, --skip-existing keeps it (undefined), --rotate or a
   * confirmed prompt revokes and re-creates it, and anything else is an error with both options.
   */
  async mint(name: string): Promise<{ account: Account; token: string } | undefined> {
    const api = this.api;
    if (!api) throw new CliError('INTERNAL', 'Minting without an API client.');
    const request = { name, scopes: this.opts.scopes, expiry: this.opts.expires, privileged: this.opts.privileged === true };
    try {
      const created = await api.create(request);
      this.minted.add(name);
      return created;
    } catch (error) {
      if (!(error instanceof CliError) || error.code !== 'CONFLICT') throw error;
      if (this.opts.skipExisting === true) return undefined;
      if (this.opts.rotate !== true) {
        if (!this.ctx.interactive) throw new CliError('CONFLICT', error.message, { hint: ROTATE_HINT, status: 409 });
        if (!(await askConfirm(`Service account '${name}' already exists. Revoke and re-mint it?`, false))) return undefined;
      }
      const existing = await api.findActive(name);
      if (existing) await api.revoke(existing.id);
      const created = await api.create(request);
      this.minted.add(name);
      return created;
    }
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
    const created = await this.mint(name);
    return created ? { token: created.token, account: created.account } : undefined;
  }

  async connectOne(client: ClientAdapter, shared: { token: string; account: Account | undefined } | undefined | null): Promise<Row> {
    const row: Row = { client: client.id, status: 'failed', error: null };
    const { opts, ce, serverName, mcp } = this;
    try {
      const existing = client.readExisting(serverName, ce);
      if (existing) {
        if (existing.url === mcp && opts.rotate !== true) {
          const check = await verifyMcp(mcp, existing.token, this.oauthMode && existing.token === undefined, this.ctx.env);
          if (check.ok && (existing.token !== undefined || !this.minting)) {
            return { client: client.id, status: 'already-connected', error: null, location: existing.location, verify: check };
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
          if (shared === undefined) return { ...row, status: 'skipped', error: KEPT };
          token = shared.token;
          account = shared.account;
        } else {
          const created = await this.mint(client.id);
          if (!created) return { ...row, status: 'skipped', error: KEPT };
          token = created.token;
          account = created.account;
        }
      }
      const written = client.write(serverName, mcp, token, ce);
      row.location = written.location;
      if (written.note) row.note = written.note;
      if (account) row.account = account;
      const readback = client.readExisting(serverName, ce);
      if (!readback || readback.url !== mcp || (token !== undefined && readback.token !== token)) {
        const found = readback ? `${readback.location} -> ${readback.url}` : 'no entry';
        row.error = `The config write did not take effect for '${serverName}' (found: ${found}). Another entry may shadow it; remove the stale entry and re-run.`;
        return row;
      }
      const check = await verifyMcp(mcp, readback.token, this.oauthMode && readback.token === undefined, this.ctx.env);
      row.verify = check;
      if (!check.ok) {
        row.error = check.error;
        return row;
      }
      if (check.oauth_challenge) {
        row.status = 'needs-login';
        row.instructions = [SIGN_IN[client.id](serverName)];
      } else {
        row.status = 'connected';
      }
      const oldToken = existing?.url === mcp || row.replaced_url !== undefined ? existing?.token : undefined;
      if (oldToken !== undefined && token !== undefined && oldToken !== token) row.rotated = true;
      if (oldToken !== undefined && token === undefined) row.replaced_token_entry = true;
      return row;
    } catch (error) {
      row.error = errorText(error);
      return row;
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

  const runState = new ConnectRun(ctx, opts, info, mcp, serverName, ce);
  const warning = await runState.prepare(selection.adapters);
  let shared: { token: string; account: Account | undefined } | undefined | null = null;
  if (opts.name !== undefined && selection.adapters.length > 0 && runState.isMinting) {
    shared = await runState.sharedToken(selection.adapters, opts.name);
  }
  const rows: Row[] = [];
  for (const client of selection.adapters) rows.push(await runState.connectOne(client, shared));
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
