/**
 * `svc traces [run_id]`: what runs did. Without a run id, a table of runs newest first (the
 * filters narrow it); with one, that run's span tree, a line per model call, tool call,
 * knowledge search, team member or workflow step, with timings and tokens. Order as for
 * tokens: every option checked first (no network), then discovery, the trust gate, the
 * credential, the plaintext rule, and only then a request.
 */
import { Command, Option } from 'commander';
import { resolveScopedCredential } from '../../credentials/admin-token.js';
import { ensureUrlTrusted, requireSecureUrl } from '../../credentials/gates.js';
import { sourceNote } from '../../discovery/candidates.js';
import { discover } from '../../discovery/discover.js';
import { TRACES_CREDENTIAL_HINT, TracesClient } from '../../http/traces.js';
import type { JsonValue } from '../../util/json.js';
import { runAction } from '../action.js';
import { parseUrlOption } from '../options.js';
import { runWith } from '../program.js';
import { listOnlyGiven, MAX_LIMIT, parseId, parseLimit, parseMinDuration, parseSince, parseStatus, traceQuery, type ListFilters } from './filters.js';
import { renderTable, renderTree, runHeading, TABLE_HEADER, tableRows } from './tree.js';

interface TracesOptions extends ListFilters {
  url?: string;
  allowHttp?: boolean;
  yes?: boolean;
}

const COMPONENTS = ['agent', 'team', 'workflow'] as const;

/** --agent, --team, --workflow: the API filters by one component at most, so commander refuses two. */
function componentOption(kind: (typeof COMPONENTS)[number]): Option {
  return new Option(`--${kind} <id>`, `only runs of this ${kind}`).argParser(parseId(`--${kind}`)).conflicts(COMPONENTS.filter((k) => k !== kind));
}

export function tracesCommand(): Command {
  return new Command('traces')
    .argument('[run_id]', "a run's id: print its span tree instead of the list")
    .addOption(componentOption('agent'))
    .addOption(componentOption('team'))
    .addOption(componentOption('workflow'))
    .option('--session <id>', 'only runs of this session', parseId('--session'))
    .option('--user <id>', 'only runs of this user', parseId('--user'))
    .option('--status <status>', 'only runs that ended so: completed, error, cancelled or paused', parseStatus)
    .option('--since <when>', "only runs started since: a duration back from now ('30m', '1h', '2d') or an ISO time", (v: string) => parseSince(v))
    .option('--min-duration <ms>', 'only runs that took at least this many milliseconds', parseMinDuration)
    .option('--limit <n>', `how many runs to list, 1 to ${MAX_LIMIT} (default: 20)`, parseLimit)
    .option('--cursor <cursor>', 'the next page: the next_cursor of the previous --json list')
    .option('--url <url>', 'runtime base URL (default: autodiscover)', parseUrlOption)
    .option('--allow-http', 'allow sending credentials over plain HTTP to a non-loopback host')
    .option('-y, --yes', 'skip confirmations (trusting a remote URL from a .env file)')
    .option('--json', 'print exactly one JSON document on stdout')
    .action(async (runId: string | undefined, opts: TracesOptions, cmd: Command) => {
      // Filters say which runs to list; next to a run id they would be silently ignored.
      const filters = listOnlyGiven(opts);
      if (runId !== undefined && filters.length > 0) cmd.error(`error: list filters (${filters.join(', ')}) cannot be used with a run id`);
      if (runId !== undefined && runId.trim() === '') cmd.error('error: the run id is empty');
      await runAction(cmd, async (ctx) => {
        const info = await discover({ url: opts.url, env: ctx.env, cwd: ctx.cwd });
        await ensureUrlTrusted(ctx, info, opts.yes === true);
        if (opts.url === undefined) ctx.out.line(ctx.out.style.dim(`Using runtime at ${info.url}${sourceNote({ source: info.url_source, sourceFile: info.url_source_file })}`));
        const credential = await resolveScopedCredential(ctx, info.auth_mode, { action: 'read traces', scope: 'traces:read', hint: TRACES_CREDENTIAL_HINT });
        if (credential) requireSecureUrl(info.url, opts.allowHttp === true, 'the credential');
        const api = new TracesClient(info.url, credential, ctx.env);

        if (runId !== undefined) {
          const trace = await api.tree(runId);
          ctx.out.document(trace as unknown as JsonValue);
          ctx.out.line(runHeading(trace));
          for (const text of renderTree(trace)) ctx.out.line(text);
          return 0;
        }

        const page = await api.list(traceQuery(opts));
        ctx.out.document(page as unknown as JsonValue);
        if (page.traces.length === 0) {
          ctx.out.line('No runs found.');
          return 0;
        }
        const [header = '', ...rows] = renderTable(TABLE_HEADER, tableRows(page.traces));
        ctx.out.line(ctx.out.style.bold(header));
        for (const row of rows) ctx.out.line(row);
        if (page.next_cursor !== null) ctx.out.line(ctx.out.style.dim(`More runs match: raise --limit, narrow the filters, or pass --cursor ${page.next_cursor}`));
        return 0;
      });
    });
}

/** This folder's commands (traces); `run` is the entry of its bundle, dist/cmd/traces.mjs. */
export function commands(): Command[] {
  return [tracesCommand()];
}

export const run = runWith(commands);
