/**
 * `svc schedules list|create|delete`: the runtime's schedules (a cron expression in a time zone
 * running an agent, team or workflow with a message). Order as for tokens: every option checked
 * first (no network; a bad one exits 2), then discovery, the trust gate, the credential, the
 * plaintext rule, and only then a request. The runtime checks the cron expression, time zone and
 * target itself and its refusal is printed as it said it (exit 1).
 */
import { Command, Option } from 'commander';
import type { Context } from '../../context.js';
import { resolveScopedCredential } from '../../credentials/admin-token.js';
import { ensureUrlTrusted, requireSecureUrl } from '../../credentials/gates.js';
import { sourceNote } from '../../discovery/candidates.js';
import { discover } from '../../discovery/discover.js';
import { SCHEDULES_CREDENTIAL_HINT, SchedulesClient, type Schedule, type ScheduleRequest, type TargetKind } from '../../http/schedules.js';
import { askConfirm } from '../../output/prompt.js';
import type { JsonValue } from '../../util/json.js';
import { runAction } from '../action.js';
import { invalidValue, parseUrlOption } from '../options.js';
import { runWith } from '../program.js';

interface CommonOptions {
  url?: string;
  allowHttp?: boolean;
  yes?: boolean;
}

interface CreateOptions extends CommonOptions {
  cron: string;
  agent?: string;
  team?: string;
  workflow?: string;
  message: string;
  timezone?: string;
  name?: string;
  session?: string;
  webhook?: string;
  disabled?: boolean;
}

const KINDS: readonly TargetKind[] = ['agent', 'team', 'workflow'];

function withCommonOptions(cmd: Command): Command {
  return cmd
    .option('--url <url>', 'runtime base URL (default: autodiscover)', parseUrlOption)
    .option('--allow-http', 'allow sending credentials over plain HTTP to a non-loopback host')
    .option('-y, --yes', 'skip confirmations (deletion, trusting a remote URL from a .env file)')
    .option('--json', 'print exactly one JSON document on stdout');
}

function nonEmpty(flag: string, example: string): (value: string) => string {
  return (value) => {
    if (value.trim() === '') throw invalidValue(`Invalid ${flag}: the value is empty`, `Give a value, such as ${flag} ${example}.`);
    return value.trim();
  };
}

function targetOption(kind: TargetKind): Option {
  return new Option(`--${kind} <id>`, `run this ${kind}`).argParser(nonEmpty(`--${kind}`, 'my-id')).conflicts(KINDS.filter((k) => k !== kind));
}

async function client(ctx: Context, opts: CommonOptions, action: string, scope: string): Promise<SchedulesClient> {
  const info = await discover({ url: opts.url, env: ctx.env, cwd: ctx.cwd });
  await ensureUrlTrusted(ctx, info, opts.yes === true);
  if (opts.url === undefined) ctx.out.line(ctx.out.style.dim(`Using runtime at ${info.url}${sourceNote({ source: info.url_source, sourceFile: info.url_source_file })}`));
  const credential = await resolveScopedCredential(ctx, info.auth_mode, { action, scope, hint: SCHEDULES_CREDENTIAL_HINT });
  if (credential) requireSecureUrl(info.url, opts.allowHttp === true, 'the credential');
  return new SchedulesClient(info.url, credential, ctx.env);
}

const when = (iso: string | null): string => (iso === null ? '-' : iso.replace('T', ' ').replace(/\.\d+Z$|Z$/, ' UTC'));

function printTable(ctx: Context, schedules: Schedule[]): void {
  const header = ['Id', 'Name', 'Cron', 'Time zone', 'Target', 'Next run', 'Status'];
  const rows = schedules.map((s) => [s.schedule_id, s.name, s.cron, s.timezone, `${s.target.kind}:${s.target.id}`, when(s.next_run_at), s.enabled ? 'enabled' : 'disabled']);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const fmt = (cells: string[]): string => cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join('  ').trimEnd();
  ctx.out.line(ctx.out.style.bold(fmt(header)));
  for (const row of rows) ctx.out.line(fmt(row));
}

function listCommand(): Command {
  return withCommonOptions(new Command('list').description('List the schedules')).action(async (opts: CommonOptions, cmd: Command) =>
    runAction(cmd, async (ctx) => {
      const api = await client(ctx, opts, 'read schedules', 'schedules:read');
      const schedules = await api.list();
      ctx.out.document({ schedules: schedules as unknown as JsonValue });
      if (schedules.length === 0) ctx.out.line('No schedules found.');
      else printTable(ctx, schedules);
      return 0;
    }),
  );
}

function createCommand(): Command {
  return withCommonOptions(
    new Command('create')
      .description('Create a schedule: run an agent, team or workflow with a message on a cron expression')
      .requiredOption('--cron <expression>', "five fields (minute hour day month weekday) or six with leading seconds, e.g. '0 9 * * 1-5'", nonEmpty('--cron', "'0 9 * * *'"))
      .addOption(targetOption('agent'))
      .addOption(targetOption('team'))
      .addOption(targetOption('workflow'))
      .requiredOption('-m, --message <text>', 'the message each run is given', nonEmpty('--message', "'Write the daily report'"))
      .option('--timezone <zone>', 'IANA time zone the expression is read in (default: UTC)', nonEmpty('--timezone', 'Europe/Paris'))
      .option('--name <name>', 'a name to recognise it by', nonEmpty('--name', 'daily-report'))
      .option('--session <id>', 'every run continues this session (default: a new session per run)', nonEmpty('--session', 'my-session'))
      .option('--webhook <url>', 'post each ended run to this URL (the runtime needs WEBHOOK_SECRET)', nonEmpty('--webhook', 'https://example.com/hook'))
      .option('--disabled', 'create it disabled (enable it later through the API)'),
  ).action(async (opts: CreateOptions, cmd: Command) => {
    const kind = KINDS.find((k) => opts[k] !== undefined);
    if (!kind) cmd.error('error: name the target with one of --agent <id>, --team <id> or --workflow <id>');
    await runAction(cmd, async (ctx) => {
      const request: ScheduleRequest = {
        cron: opts.cron,
        target: { kind: kind!, id: opts[kind!]! },
        input: { message: opts.message, ...(opts.session ? { session_id: opts.session } : {}) },
        ...(opts.timezone ? { timezone: opts.timezone } : {}),
        ...(opts.name ? { name: opts.name } : {}),
        ...(opts.webhook ? { webhook: opts.webhook } : {}),
        ...(opts.disabled ? { enabled: false } : {}),
      };
      const api = await client(ctx, opts, 'create schedules', 'schedules:write');
      const created = await api.create(request);
      ctx.out.document(created as unknown as JsonValue);
      ctx.out.line(ctx.out.style.green(`Schedule '${created.name}' created (id ${created.schedule_id}).`));
      ctx.out.line(`Runs ${created.target.kind} ${created.target.id} on '${created.cron}' (${created.timezone}); next run: ${created.enabled ? when(created.next_run_at) : 'none (disabled)'}`);
      return 0;
    });
  });
}

function deleteCommand(): Command {
  return withCommonOptions(new Command('delete').description('Delete a schedule and its history (its runs stay)').argument('<schedule_id>', 'the id svc schedules list shows')).action(
    async (id: string, opts: CommonOptions, cmd: Command) => {
      if (id.trim() === '') cmd.error('error: the schedule id is empty');
      await runAction(cmd, async (ctx) => {
        const api = await client(ctx, opts, 'delete schedules', 'schedules:delete');
        if (ctx.interactive && opts.yes !== true && !(await askConfirm(`Delete schedule ${id}? Its history goes with it.`, false))) {
          ctx.out.line('Aborted; no changes made.');
          return 0;
        }
        await api.delete(id);
        ctx.out.document({ deleted: id });
        ctx.out.line(`Schedule ${id} deleted.`);
        return 0;
      });
    },
  );
}

export function schedulesCommand(): Command {
  return new Command('schedules')
    .helpCommand(false)
    .option('--json', 'print exactly one JSON document on stdout')
    .addCommand(listCommand())
    .addCommand(createCommand())
    .addCommand(deleteCommand())
    // `svc schedules` alone is a usage error (exit 2) that says what is missing.
    .allowExcessArguments(true)
    .action((_opts: unknown, cmd: Command) =>
      cmd.error(
        cmd.args[0] === undefined
          ? "error: missing command: use 'svc schedules list', 'create' or 'delete'"
          : `error: unknown command '${cmd.args[0]}' (use list, create or delete)`,
      ),
    );
}

/** This folder's commands (schedules); `run` is the entry of its bundle, dist/cmd/schedules.mjs. */
export function commands(): Command[] {
  return [schedulesCommand()];
}

export const run = runWith(commands);
