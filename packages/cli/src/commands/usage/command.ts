/**
 * `svc usage`: the caller's consumption against the budgets that apply to it (runs, tokens and
 * cost in the current hour, day or month), as GET /usage answers; an admin may name a
 * principal, tenant or agent. Order as for tokens: every option checked first (no network; a
 * bad one exits 2), then discovery, the trust gate, the credential, the plaintext rule, and only
 * then a request. Exit codes: 0 shown (a used-up budget included), 1 the runtime refused or
 * could not be reached, 2 a bad command line.
 */
import { Command } from 'commander';
import type { Context } from '../../context.js';
import { resolveScopedCredential } from '../../credentials/admin-token.js';
import { ensureUrlTrusted, requireSecureUrl } from '../../credentials/gates.js';
import { sourceNote } from '../../discovery/candidates.js';
import { discover } from '../../discovery/discover.js';
import { USAGE_CREDENTIAL_HINT, UsageClient, type Usage, type UsageLine } from '../../http/usage.js';
import type { JsonValue } from '../../util/json.js';
import { runAction } from '../action.js';
import { invalidValue, parseUrlOption } from '../options.js';
import { runWith } from '../program.js';

interface UsageOptions {
  principal?: string;
  tenant?: string;
  agent?: string;
  url?: string;
  allowHttp?: boolean;
  yes?: boolean;
}

function subject(flag: string): (value: string) => string {
  return (value) => {
    const v = value.trim();
    if (v === '' || v.length > 200) throw invalidValue(`Invalid ${flag}: give 1 to 200 characters`, `For example ${flag} alice.`);
    return v;
  };
}

const figure = (metric: string, n: number): string => (metric === 'cost' ? `$${Number(n.toFixed(6))}` : String(n));
const when = (seconds: number): string => new Date(seconds * 1000).toISOString().replace('T', ' ').replace(/:\d\d\.\d+Z$/, ' UTC');

/** The table's rows: one per budget, its figures in its own metric. */
export function usageRows(lines: readonly UsageLine[]): string[][] {
  return lines.map((l) => [
    l.budget.id,
    `${l.budget.scope}:${l.subject}`,
    `${l.budget.metric}/${l.budget.window}`,
    figure(l.budget.metric, l.used),
    figure(l.budget.metric, l.budget.limit),
    figure(l.budget.metric, l.remaining),
    when(l.resets_at),
  ]);
}

const HEADER = ['Budget', 'Applies to', 'Metric', 'Used', 'Limit', 'Remaining', 'Resets'];

function printUsage(out: Context['out'], usage: Usage): void {
  const who = [usage.principal && `principal ${usage.principal}`, usage.tenant && `tenant ${usage.tenant}`, usage.agent && `agent ${usage.agent}`].filter(Boolean).join(', ');
  out.line(out.style.dim(`Usage of ${who || 'this caller'}`));
  if (usage.budgets.length === 0) {
    out.line('No budgets apply.');
    return;
  }
  const rows = usageRows(usage.budgets);
  const widths = HEADER.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const fmt = (cells: string[]): string => cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join('  ').trimEnd();
  out.line(out.style.bold(fmt(HEADER)));
  for (const row of rows) out.line(fmt(row));
}

export function usageCommand(): Command {
  return new Command('usage')
    .description('Show your consumption against the budgets that apply to you (runs, tokens, cost per hour, day or month)')
    .option('--principal <id>', "admins: a principal's usage (a JWT subject or sa:<name>)", subject('--principal'))
    .option('--tenant <id>', "admins: a tenant's usage", subject('--tenant'))
    .option('--agent <id>', "admins: an agent's (component's) usage", subject('--agent'))
    .option('--url <url>', 'runtime base URL (default: autodiscover)', parseUrlOption)
    .option('--allow-http', 'allow sending credentials over plain HTTP to a non-loopback host')
    .option('-y, --yes', 'skip confirmations (trusting a remote URL from a .env file)')
    .option('--json', 'print exactly one JSON document on stdout (the GET /usage answer)')
    .addHelpText('after', '\nExit codes: 0 usage shown (used-up budgets included), 1 the runtime refused or could not be reached, 2 a bad command line.')
    .action(async (opts: UsageOptions, cmd: Command) => {
      await runAction(cmd, async (ctx) => {
        const info = await discover({ url: opts.url, env: ctx.env, cwd: ctx.cwd });
        await ensureUrlTrusted(ctx, info, opts.yes === true);
        if (opts.url === undefined) ctx.out.line(ctx.out.style.dim(`Using runtime at ${info.url}${sourceNote({ source: info.url_source, sourceFile: info.url_source_file })}`));
        const credential = await resolveScopedCredential(ctx, info.auth_mode, { action: 'read usage', scope: 'any', hint: USAGE_CREDENTIAL_HINT });
        if (credential) requireSecureUrl(info.url, opts.allowHttp === true, 'the credential');
        const usage = await new UsageClient(info.url, credential, ctx.env).get({ principal: opts.principal, tenant: opts.tenant, agent: opts.agent });
        ctx.out.document(usage as unknown as JsonValue);
        printUsage(ctx.out, usage);
        return 0;
      });
    });
}

/** This folder's commands (usage); `run` is the entry of its bundle, dist/cmd/usage.mjs. */
export function commands(): Command[] {
  return [usageCommand()];
}

export const run = runWith(commands);
