/**
 * `svc knowledge reindex`: re-embed a knowledge base with the runtime's configured embedder.
 * The runtime runs it as a durable job; with --wait this follows it to the end, showing
 * progress, and exits 1 if it fails. Order as for tokens: discovery, the trust gate, the
 * credential, the plaintext rule, and only then a request.
 */
import { Command, InvalidArgumentError } from 'commander';
import { resolveScopedCredential } from '../../credentials/admin-token.js';
import { ensureUrlTrusted, requireSecureUrl } from '../../credentials/gates.js';
import { sourceNote } from '../../discovery/candidates.js';
import { discover } from '../../discovery/discover.js';
import { CliError } from '../../errors.js';
import { KNOWLEDGE_CREDENTIAL_HINT, KnowledgeClient, type ReindexStatus } from '../../http/knowledge.js';
import type { JsonValue } from '../../util/json.js';
import { runAction } from '../action.js';
import { parseUrlOption } from '../options.js';
import { runWith } from '../program.js';
import { evalCommand } from './eval.js';

interface ReindexOptions {
  url?: string;
  knowledgeId?: string;
  wait?: boolean;
  pollInterval: number;
  allowHttp?: boolean;
  yes?: boolean;
}

function knowledgeIdOption(value: string): string {
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/.test(value)) throw new InvalidArgumentError(`Invalid --knowledge-id: ${value}\nUse the id of a knowledge base the runtime hosts.`);
  return value;
}

function secondsOption(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0 || n > 3600) throw new InvalidArgumentError(`Invalid --poll-interval: ${value}\nGive a number of seconds, such as 1 or 0.5.`);
  return n;
}

const progress = (s: ReindexStatus) => `${s.chunks_done}/${s.chunks_total} chunks`;

function describe(s: ReindexStatus): string {
  switch (s.state) {
    case 'completed':
      return `Reindex of '${s.knowledge_id}' completed: ${s.chunks_total} chunks embedded with ${s.embedder ?? 'the configured embedder'}.`;
    case 'failed':
      return `Reindex of '${s.knowledge_id}' failed: ${s.error ?? 'no reason given'}`;
    case 'idle':
      return `Knowledge base '${s.knowledge_id}' is not being reindexed (embedder: ${s.stored_embedder ?? 'none yet'}).`;
    default:
      return `Reindex of '${s.knowledge_id}' with ${s.embedder ?? 'the configured embedder'}: ${s.state}, ${progress(s)}${s.stored_embedder && s.stored_embedder !== s.embedder ? ` (searches use keywords until it is done)` : ''}.`;
  }
}

function reindexCommand(): Command {
  return new Command('reindex')
    .description('Re-embed every chunk of a knowledge base with the embedder the runtime is configured with (a background job)')
    .option('--url <url>', 'runtime base URL (default: autodiscover)', parseUrlOption)
    .option('--knowledge-id <id>', 'the knowledge base (needed when the runtime hosts several)', knowledgeIdOption)
    .option('--wait', 'follow the job until it ends, showing progress; exit 1 if it fails')
    .option('--poll-interval <seconds>', 'how often --wait asks for progress', secondsOption, 1)
    .option('--allow-http', 'allow sending credentials over plain HTTP to a non-loopback host')
    .option('-y, --yes', 'skip confirmations (trusting a remote URL from a .env file)')
    .option('--json', 'print exactly one JSON document on stdout')
    .action(async (opts: ReindexOptions, cmd: Command) =>
      runAction(cmd, async (ctx) => {
        const info = await discover({ url: opts.url, env: ctx.env, cwd: ctx.cwd });
        await ensureUrlTrusted(ctx, info, opts.yes === true);
        if (opts.url === undefined) ctx.out.line(ctx.out.style.dim(`Using runtime at ${info.url}${sourceNote({ source: info.url_source, sourceFile: info.url_source_file })}`));
        const credential = await resolveScopedCredential(ctx, info.auth_mode, { action: 'reindex knowledge', scope: 'knowledge:write', hint: KNOWLEDGE_CREDENTIAL_HINT });
        if (credential) requireSecureUrl(info.url, opts.allowHttp === true, 'the credential');
        const api = new KnowledgeClient(info.url, credential, ctx.env);
        const query = { knowledgeId: opts.knowledgeId };
        let status = await api.start(query);
        const job = status.job_id;
        if (opts.wait) {
          ctx.out.line(describe(status));
          let shown = '';
          while (status.state === 'queued' || status.state === 'running') {
            await new Promise((r) => setTimeout(r, opts.pollInterval * 1000));
            status = await api.status({ knowledgeId: status.knowledge_id });
            const now = `${status.state} ${progress(status)}`;
            // Progress goes to stderr, so stdout holds only the outcome.
            if (now !== shown && (status.state === 'queued' || status.state === 'running')) ctx.out.warn(`  ${status.state}: ${progress(status)}`);
            shown = now;
          }
        }
        ctx.out.document({ ...status, job_id: status.job_id ?? job } as unknown as JsonValue);
        if (!opts.wait || status.state !== 'failed') ctx.out.line(describe(status));
        if (status.state === 'failed') throw new CliError('JOB_FAILED', describe(status), { hint: 'Fix the cause (see the runtime log), then run svc knowledge reindex again: it continues from the chunks already done.' });
        return 0;
      }),
    );
}

export function knowledgeCommand(): Command {
  return new Command('knowledge')
    .helpCommand(false)
    .option('--json', 'print exactly one JSON document on stdout')
    .addCommand(reindexCommand())
    .addCommand(evalCommand())
    .allowExcessArguments(true)
    .action((_opts: unknown, cmd: Command) =>
      cmd.error(cmd.args[0] === undefined ? "error: missing command: use 'svc knowledge reindex' or 'svc knowledge eval'" : `error: unknown command '${cmd.args[0]}' (use reindex or eval)`),
    );
}

/** This folder's commands (knowledge); `run` is the entry of its bundle, dist/cmd/knowledge.mjs. */
export function commands(): Command[] {
  return [knowledgeCommand()];
}

export const run = runWith(commands);
