/**
 * What a `svc connect` run is against and how it goes about it, settled before any client is
 * touched: the runtime and its MCP endpoint, the entry name,
 * OAuth sign-in or minted tokens, and the gates minting must pass. Every refusal happens here,
 * before a prompt for a client, a mint or a write.
 */
import type { Expiry } from '../../accounts/expires.js';
import { clientEnv, type ClientAdapter, type ClientEnv } from '../../clients/registry.js';
import { deriveServerName } from '../../clients/server-name.js';
import type { Context } from '../../context.js';
import { exportedCredential, resolveAdminCredential } from '../../credentials/admin-token.js';
import { ensureUrlTrusted, requireMintCapable, requireSecureUrl } from '../../credentials/gates.js';
import { sourceNote } from '../../discovery/candidates.js';
import { discoverForClients } from '../../discovery/discover-all.js';
import { mcpUrl, type RuntimeInfo } from '../../discovery/os-info.js';
import { CliError } from '../../errors.js';
import { ServiceAccountsClient } from '../../http/service-accounts.js';
import { verifyMcp } from '../../mcp/verify.js';
import { sameEndpoint } from '../../util/loopback.js';

export interface ConnectOptions {
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

export interface Plan {
  info: RuntimeInfo;
  mcp: string;
  serverName: string;
  /** Whether a renamed entry's token may be kept: nothing asks for a differently shaped one. */
  legacyReuse: boolean;
  /** The MCP endpoint names an authorization server. */
  oauthEnabled: boolean;
  /** Apps sign in with OAuth and nothing is minted (OAuth enabled, no --pat). */
  oauthMode: boolean;
  ce: ClientEnv;
}

/** Finds the runtime, checks that connecting to it can work, and says so on a terminal. */
export async function planConnect(ctx: Context, opts: ConnectOptions, expiresGiven: boolean): Promise<Plan> {
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
  // A renamed entry's token is kept only when nothing asks for a differently shaped one.
  const legacyReuse = opts.scopes === undefined && (!expiresGiven || (!opts.expires.neverExpires && opts.expires.days === 90));
  const oauthEnabled = (info.mcp.oauth?.authorization_servers.length ?? 0) > 0;
  const oauthMode = oauthEnabled && opts.pat !== true;
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
  return { info, mcp, serverName, legacyReuse, oauthEnabled, oauthMode, ce };
}

/** How this run mints: `api` (with the admin credential) only when it mints tokens at all. */
export interface Minting {
  api: ServiceAccountsClient | undefined;
  /** Said at the end of the run: tokens were minted for an endpoint that needs none. */
  warning: string | null;
}

/** Gates that must pass before anything is minted, prompted for or written. */
export async function prepareMinting(ctx: Context, opts: ConnectOptions, plan: Plan, selected: readonly ClientAdapter[]): Promise<Minting> {
  const { info, oauthMode, oauthEnabled } = plan;
  const exported = exportedCredential(ctx.env);
  const minting = selected.length > 0 && !oauthMode && (info.auth_mode !== 'none' || (opts.pat === true && exported?.startsWith('svc_pat_') === true));
  if (selected.length > 0 && !oauthMode && !minting && (opts.pat === true || info.mcp.oauth !== null)) {
    const orElse =
      opts.pat === true && oauthEnabled
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
  if (minting) {
    requireSecureUrl(info.url, opts.allowHttp === true, 'the admin credential and minted tokens');
  } else if (selected.some((c) => existingTokenHere(plan, c))) {
    // Re-verifying an existing entry resends its token.
    requireSecureUrl(info.url, opts.allowHttp === true, 'a token stored in a client config');
  }
  if (!minting) {
    if (selected.length > 0 && info.auth_mode === 'none' && info.mcp.oauth === null) {
      ctx.out.line('Authorization is disabled on this runtime; connecting without credentials.');
    }
    return { api: undefined, warning: null };
  }
  const credential = await resolveAdminCredential(ctx, info.auth_mode);
  const api = new ServiceAccountsClient(info.url, credential, ctx.env);
  let warning: string | null = null;
  const open = await verifyMcp(plan.mcp, undefined, false, ctx.env);
  if (open.ok) {
    warning =
      'This runtime accepts unauthenticated MCP requests although it enforces authorization elsewhere: anyone who can reach it can use its tools. Tokens were still minted and configured; enable MCP authentication on the runtime to make them meaningful.';
  }
  if (!ctx.json) await preflight(ctx, api);
  return { api, warning };
}

/** Whether the client holds a token for this runtime's endpoint, under any entry name. */
function existingTokenHere(plan: Plan, client: ClientAdapter): boolean {
  try {
    return [...client.listEntries(plan.ce).values()].some((entry) => entry.token !== undefined && sameEndpoint(entry.url, plan.mcp));
  } catch {
    return false;
  }
}

/** A wrong credential should fail once, up front, not once per client. */
async function preflight(ctx: Context, api: ServiceAccountsClient): Promise<void> {
  try {
    await api.preflight();
    ctx.out.line('Credential accepted.');
  } catch (error) {
    // A credential that may only mint (service_accounts:write) cannot list: that is fine.
    if (error instanceof CliError && error.status === 403) return;
    throw error;
  }
}
