/**
 * `svc whoami`: who the runtime takes your credential to be (user, service account, the key),
 * the tenant it is held to under tenancy and whether it administers it, and the scopes it is
 * granted, as GET /auth/whoami answers. Order as for usage: options checked first (no network),
 * then discovery, the trust gate, the credential, the plaintext rule, then the request. Exit
 * codes: 0 shown, 1 the runtime refused or could not be reached, 2 a bad command line.
 */
import { Command } from 'commander';
import type { Context } from '../../context.js';
import { resolveScopedCredential } from '../../credentials/admin-token.js';
import { ensureUrlTrusted, requireSecureUrl } from '../../credentials/gates.js';
import { sourceNote } from '../../discovery/candidates.js';
import { discover } from '../../discovery/discover.js';
import { getCaller, WHOAMI_CREDENTIAL_HINT, type Caller } from '../../http/whoami.js';
import type { JsonValue } from '../../util/json.js';
import { runAction } from '../action.js';
import { parseUrlOption } from '../options.js';
import { runWith } from '../program.js';

interface WhoamiOptions {
  url?: string;
  allowHttp?: boolean;
  yes?: boolean;
}

/** The lines shown for a caller (without --json). */
export function callerLines(caller: Caller): string[] {
  const who =
    caller.kind === 'service_account'
      ? `service account ${caller.service_account ?? caller.user_id ?? '?'}`
      : caller.kind === 'jwt'
        ? `user ${caller.user_id ?? '(no sub)'}`
        : caller.kind === 'security_key'
          ? 'the security key'
          : 'anonymous (open runtime)';
  const tenant = caller.tenant === null ? 'none (every tenant, or tenancy off)' : `${caller.tenant}${caller.tenant_admin ? ' (tenant admin)' : ''}`;
  return [
    `Caller:  ${who}`,
    `Tenant:  ${tenant}`,
    `Scopes:  ${caller.scopes_enforced ? caller.scopes.join(' ') || '(none)' : 'not enforced for this caller'}`,
  ];
}

export function whoamiCommand(): Command {
  return new Command('whoami')
    .description('Show who the runtime takes your credential to be: user, tenant and scopes')
    .option('--url <url>', 'runtime base URL (default: autodiscover)', parseUrlOption)
    .option('--allow-http', 'allow sending credentials over plain HTTP to a non-loopback host')
    .option('-y, --yes', 'skip confirmations (trusting a remote URL from a .env file)')
    .option('--json', 'print exactly one JSON document on stdout (the GET /auth/whoami answer)')
    .addHelpText('after', '\nExit codes: 0 shown, 1 the runtime refused or could not be reached, 2 a bad command line.')
    .action(async (opts: WhoamiOptions, cmd: Command) => {
      await runAction(cmd, async (ctx: Context) => {
        const info = await discover({ url: opts.url, env: ctx.env, cwd: ctx.cwd });
        await ensureUrlTrusted(ctx, info, opts.yes === true);
        if (opts.url === undefined) ctx.out.line(ctx.out.style.dim(`Using runtime at ${info.url}${sourceNote({ source: info.url_source, sourceFile: info.url_source_file })}`));
        const credential = await resolveScopedCredential(ctx, info.auth_mode, { action: 'say who you are', scope: 'any', hint: WHOAMI_CREDENTIAL_HINT });
        if (credential) requireSecureUrl(info.url, opts.allowHttp === true, 'the credential');
        const caller = await getCaller(info.url, credential, ctx.env);
        ctx.out.document(caller as unknown as JsonValue);
        for (const line of callerLines(caller)) ctx.out.line(line);
        return 0;
      });
    });
}

/** This folder's commands (whoami); `run` is the entry of its bundle, dist/cmd/whoami.mjs. */
export function commands(): Command[] {
  return [whoamiCommand()];
}

export const run = runWith(commands);
