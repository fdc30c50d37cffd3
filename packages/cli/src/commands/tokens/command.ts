/**
 * `svc tokens create|list|revoke`: admin operations on the runtime's service accounts.
 * Order matters: local validation first (no network), then discovery, the trust gate, the
 * credential, and the plaintext rule, so nothing secret is sent before every check passed.
 */
import { Command, Option } from 'commander';
import { accountJson, formatEpoch, type Account } from '../../accounts/account.js';
import { DEFAULT_EXPIRES, parseExpires, type Expiry } from '../../accounts/expires.js';
import { assertAccountName } from '../../accounts/name.js';
import type { Context } from '../../context.js';
import { resolveAdminCredential } from '../../credentials/admin-token.js';
import { ensureUrlTrusted, requireMintCapable, requireSecureUrl } from '../../credentials/gates.js';
import { sourceNote } from '../../discovery/candidates.js';
import { discover } from '../../discovery/discover.js';
import type { RuntimeInfo } from '../../discovery/os-info.js';
import { ServiceAccountsClient } from '../../http/service-accounts.js';
import { CliError } from '../../errors.js';
import { askConfirm } from '../../output/prompt.js';
import { runAction } from '../action.js';
import { collect, invalidValue, parseUrlOption } from '../options.js';
import { runWith } from '../program.js';

export const DEFAULT_SCOPES = ['agents:run', 'teams:run', 'workflows:run', 'sessions:read', 'config:read'];

interface CommonOptions {
  url?: string;
  allowHttp?: boolean;
  yes?: boolean;
}

function withCommonOptions(cmd: Command): Command {
  return cmd
    .option('--url <url>', 'runtime base URL (default: autodiscover)', parseUrlOption)
    .option('--allow-http', 'allow sending credentials over plain HTTP to a non-loopback host')
    .option('-y, --yes', 'skip confirmations (revocation, trusting a remote URL from a .env file)')
    .option('--json', 'print exactly one JSON document on stdout');
}

function expiresOption(value: string): Expiry {
  const parsed = parseExpires(value);
  if (!parsed) throw invalidValue(`Invalid --expires value: ${value}`, "Use a number of days like '90' or '90d', or 'never'.");
  return parsed;
}

async function target(ctx: Context, opts: CommonOptions): Promise<RuntimeInfo> {
  const info = await discover({ url: opts.url, env: ctx.env, cwd: ctx.cwd });
  await ensureUrlTrusted(ctx, info, opts.yes === true);
  if (opts.url === undefined) ctx.out.line(ctx.out.style.dim(`Using runtime at ${info.url}${sourceNote({ source: info.url_source, sourceFile: info.url_source_file })}`));
  return info;
}

/** A client for the admin operations that only read or revoke (no token in the response). */
async function adminClient(ctx: Context, info: RuntimeInfo, opts: CommonOptions): Promise<ServiceAccountsClient> {
  const credential = await resolveAdminCredential(ctx, info.auth_mode);
  if (credential) requireSecureUrl(info.url, opts.allowHttp === true, 'the admin credential');
  return new ServiceAccountsClient(info.url, credential, ctx.env);
}

function createCommand(): Command {
  return withCommonOptions(
    new Command('create')
      .description('Create a service account and print its token (shown once)')
      .argument('<name>', "account name: lowercase slug, at most 63 characters (a-z, 0-9, '-', '_')")
      .option('-s, --scopes <scope>', `scope to grant; repeatable (default: ${DEFAULT_SCOPES.join(', ')})`, collect)
      .addOption(new Option('--expires <lifetime>', "days ('90d' or '30') or 'never'").default(parseExpires(DEFAULT_EXPIRES), DEFAULT_EXPIRES).argParser(expiresOption))
      .option('--privileged', 'allow write, delete, admin and service_accounts scopes'),
  ).action(async (name: string, opts: CommonOptions & { scopes?: string[]; expires: Expiry; privileged?: boolean }, cmd: Command) =>
    runAction(cmd, async (ctx) => {
      assertAccountName(name);
      const info = await target(ctx, opts);
      await requireMintCapable(ctx, info, new ServiceAccountsClient(info.url, undefined, ctx.env));
      const credential = await resolveAdminCredential(ctx, info.auth_mode);
      // The response carries a plaintext token, so this applies even without a credential.
      requireSecureUrl(info.url, opts.allowHttp === true, 'a token');
      const api = new ServiceAccountsClient(info.url, credential, ctx.env);
      const { account, token } = await api.create({ name, scopes: opts.scopes, expiry: opts.expires, privileged: opts.privileged === true });
      if (ctx.json) {
        ctx.out.document({ ...accountJson(account), token });
        return 0;
      }
      const s = ctx.out.style;
      ctx.out.line(s.green(`Service account '${account.name}' created (principal: ${account.principal}).`));
      ctx.out.line(`Scopes: ${account.scopes.join(', ') || '-'}`);
      ctx.out.line(`Expires: ${account.expires_at === null ? 'never' : formatEpoch(account.expires_at)}`);
      ctx.out.warn(ctx.out.errStyle.yellow('This token is shown once and cannot be retrieved again. Save it now:'));
      ctx.out.line();
      ctx.out.line(`    ${token}`);
      ctx.out.line();
      return 0;
    }),
  );
}

function listCommand(): Command {
  return withCommonOptions(new Command('list').description('List service accounts, revoked ones included (no tokens)')).action(
    async (opts: CommonOptions, cmd: Command) =>
      runAction(cmd, async (ctx) => {
        const info = await target(ctx, opts);
        const api = await adminClient(ctx, info, opts);
        const accounts = await api.list();
        if (ctx.json) {
          ctx.out.document({ service_accounts: accounts.map(accountJson) });
          return 0;
        }
        if (accounts.length === 0) {
          ctx.out.line('No service accounts found.');
          return 0;
        }
        printTable(ctx, accounts);
        return 0;
      }),
  );
}

function printTable(ctx: Context, accounts: Account[]): void {
  const header = ['Name', 'Token', 'Scopes', 'Expires', 'Last used', 'Status'];
  const rows = accounts.map((a) => [
    a.name,
    `${a.token_prefix}…`,
    a.scopes.join(', ') || '-',
    formatEpoch(a.expires_at),
    formatEpoch(a.last_used_at),
    a.revoked_at === null ? 'active' : 'revoked',
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const fmt = (cells: string[]): string => cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join('  ').trimEnd();
  ctx.out.line(ctx.out.style.bold(fmt(header)));
  for (const row of rows) ctx.out.line(fmt(row));
}

function revokeCommand(): Command {
  return withCommonOptions(
    new Command('revoke').description('Revoke a service account: its tokens stop working on their next request').argument('<name>', 'account name'),
  ).action(async (name: string, opts: CommonOptions, cmd: Command) =>
    runAction(cmd, async (ctx) => {
      const info = await target(ctx, opts);
      const api = await adminClient(ctx, info, opts);
      const account = await api.findActive(name);
      if (!account) {
        throw new CliError('NOT_FOUND', `No service account named '${name}' found.`, { hint: 'Run svc tokens list to see the active accounts.' });
      }
      if (ctx.interactive && opts.yes !== true) {
        const sure = await askConfirm(`Revoke service account '${name}'? Its tokens stop working on their next request.`, false);
        if (!sure) {
          ctx.out.line('Aborted; no changes made.');
          return 0;
        }
      }
      await api.revoke(account.id);
      // DELETE answers 204 without a body; the revocation time is now.
      const revoked: Account = { ...account, revoked_at: account.revoked_at ?? Math.floor(Date.now() / 1000) };
      if (ctx.json) {
        ctx.out.document({ revoked: accountJson(revoked) });
        return 0;
      }
      ctx.out.line(`Service account '${name}' revoked. Existing tokens stop working on their next request.`);
      return 0;
    }),
  );
}

export function tokensCommand(): Command {
  return new Command('tokens')
    .helpCommand(false)
    .option('--json', 'print exactly one JSON document on stdout')
    .addCommand(createCommand())
    .addCommand(listCommand())
    .addCommand(revokeCommand())
    // `svc tokens` alone is a usage error (exit 2) that says what is missing.
    .allowExcessArguments(true)
    .action((_opts: unknown, cmd: Command) =>
      cmd.error(
        cmd.args[0] === undefined
          ? "error: missing command: use 'svc tokens create', 'list' or 'revoke'"
          : `error: unknown command '${cmd.args[0]}' (use create, list or revoke)`,
      ),
    );
}

/** This folder's commands (tokens); `run` is the entry of its bundle, dist/cmd/tokens.mjs. */
export function commands(): Command[] {
  return [tokensCommand()];
}

export const run = runWith(commands);
