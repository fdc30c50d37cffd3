/**
 * `svc knowledge eval <folder>`: measure a knowledge base's retrieval quality on a BEIR folder
 * (queries.jsonl and qrels/*.tsv; the corpus is what the base holds, matched by content id or
 * name). The runtime runs the eval in the background; this uploads the two files, follows it
 * with progress on stderr, prints nDCG@k, MRR@k and Recall@k per search type, and, given
 * --min-ndcg, exits 4 when the chosen search type's nDCG is below it (a CI gate).
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Command, InvalidArgumentError } from 'commander';
import { resolveScopedCredential } from '../../credentials/admin-token.js';
import { ensureUrlTrusted, requireSecureUrl } from '../../credentials/gates.js';
import { sourceNote } from '../../discovery/candidates.js';
import { discover } from '../../discovery/discover.js';
import { CliError, EXIT_BELOW_MINIMUM } from '../../errors.js';
import { EvalClient, type EvalFiles, type EvalReport } from '../../http/knowledge-evals.js';
import { KNOWLEDGE_CREDENTIAL_HINT } from '../../http/knowledge.js';
import type { JsonValue } from '../../util/json.js';
import { runAction } from '../action.js';
import { parseUrlOption } from '../options.js';

interface EvalOptions {
  url?: string;
  knowledgeId?: string;
  qrels?: string;
  searchType: string;
  minNdcg?: number;
  k?: number;
  name?: string;
  pollInterval: number;
  allowHttp?: boolean;
  yes?: boolean;
}

const SEARCH_TYPES = ['vector', 'keyword', 'hybrid'];

function unitOption(value: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n < 0 || n > 1) throw new InvalidArgumentError(`Invalid --min-ndcg: ${value}\nGive a number from 0 to 1, such as 0.6.`);
  return n;
}

function kOption(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 100) throw new InvalidArgumentError(`Invalid --k: ${value}\nGive a whole number from 1 to 100.`);
  return n;
}

function searchTypeOption(value: string): string {
  if (!SEARCH_TYPES.includes(value)) throw new InvalidArgumentError(`Invalid --search-type: ${value}\nUse ${SEARCH_TYPES.join(', ')}.`);
  return value;
}

function secondsOption(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0 || n > 3600) throw new InvalidArgumentError(`Invalid --poll-interval: ${value}\nGive a number of seconds, such as 1 or 0.5.`);
  return n;
}

function knowledgeIdOption(value: string): string {
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/.test(value)) throw new InvalidArgumentError(`Invalid --knowledge-id: ${value}\nUse the id of a knowledge base the runtime hosts.`);
  return value;
}

/** queries.jsonl and the qrels file (--qrels, else qrels/test.tsv, else the folder's one .tsv under qrels/). */
export function readFolder(folder: string, qrels: string | undefined, cwd: string): EvalFiles {
  const dir = resolve(cwd, folder);
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new CliError('INVALID_INPUT', `${folder} is not a folder.`, { hint: 'Give a BEIR folder: queries.jsonl and qrels/<split>.tsv.' });
  const queries = join(dir, 'queries.jsonl');
  if (!existsSync(queries)) throw new CliError('INVALID_INPUT', `${folder} has no queries.jsonl.`, { hint: 'A BEIR folder holds queries.jsonl ({"_id", "text"} a line) and qrels/<split>.tsv.' });
  let qrelsFile: string;
  if (qrels !== undefined) qrelsFile = resolve(cwd, qrels);
  else {
    const qdir = join(dir, 'qrels');
    const tsv = existsSync(qdir) ? readdirSync(qdir).filter((f) => f.endsWith('.tsv')).sort() : [];
    const chosen = tsv.includes('test.tsv') ? 'test.tsv' : tsv.length === 1 ? tsv[0] : undefined;
    if (!chosen) {
      throw new CliError('INVALID_INPUT', tsv.length === 0 ? `${folder} has no qrels/*.tsv.` : `${folder}/qrels has several .tsv files (${tsv.join(', ')}).`, { hint: 'Name the judgments file with --qrels <file>.' });
    }
    qrelsFile = join(qdir, chosen);
  }
  if (!existsSync(qrelsFile)) throw new CliError('INVALID_INPUT', `${qrelsFile} does not exist.`);
  return { queries: readFileSync(queries, 'utf8'), qrels: readFileSync(qrelsFile, 'utf8') };
}

const fixed = (n: number) => n.toFixed(3);

export function table(report: EvalReport): string[] {
  const results = report.results ?? {};
  const lines = [`${'search type'.padEnd(12)} ${`nDCG@${report.k}`.padStart(8)} ${`MRR@${report.k}`.padStart(8)} ${`Recall@${report.recall_k}`.padStart(11)}`];
  for (const [type, s] of Object.entries(results)) lines.push(`${type.padEnd(12)} ${fixed(s.ndcg).padStart(8)} ${fixed(s.mrr).padStart(8)} ${fixed(s.recall).padStart(11)}`);
  return lines;
}

export function evalCommand(): Command {
  return new Command('eval')
    .description('Measure retrieval quality on a BEIR folder (queries.jsonl, qrels/*.tsv) against the documents the knowledge base holds')
    .argument('<folder>', 'a BEIR folder: queries.jsonl and qrels/<split>.tsv (corpus ids are matched to content ids, else names)')
    .option('--url <url>', 'runtime base URL (default: autodiscover)', parseUrlOption)
    .option('--knowledge-id <id>', 'the knowledge base (needed when the runtime hosts several)', knowledgeIdOption)
    .option('--qrels <file>', 'the judgments file, when qrels/ has several')
    .option('--search-type <type>', 'the search type --min-ndcg checks: vector, keyword or hybrid', searchTypeOption, 'hybrid')
    .option('--min-ndcg <x>', 'exit 4 when that search type\'s nDCG@k is below x (0 to 1)', unitOption)
    .option('--k <n>', 'the cut-off of nDCG and MRR', kOption)
    .option('--name <name>', 'a label kept with the eval')
    .option('--poll-interval <seconds>', 'how often to ask for progress', secondsOption, 1)
    .option('--allow-http', 'allow sending credentials over plain HTTP to a non-loopback host')
    .option('-y, --yes', 'skip confirmations (trusting a remote URL from a .env file)')
    .option('--json', 'print exactly one JSON document on stdout')
    .action(async (folder: string, opts: EvalOptions, cmd: Command) =>
      runAction(cmd, async (ctx) => {
        const files = readFolder(folder, opts.qrels, ctx.cwd);
        const info = await discover({ url: opts.url, env: ctx.env, cwd: ctx.cwd });
        await ensureUrlTrusted(ctx, info, opts.yes === true);
        if (opts.url === undefined) ctx.out.line(ctx.out.style.dim(`Using runtime at ${info.url}${sourceNote({ source: info.url_source, sourceFile: info.url_source_file })}`));
        const credential = await resolveScopedCredential(ctx, info.auth_mode, { action: 'evaluate knowledge', scope: 'knowledge:write', hint: KNOWLEDGE_CREDENTIAL_HINT });
        if (credential) requireSecureUrl(info.url, opts.allowHttp === true, 'the credential');
        const api = new EvalClient(info.url, credential, ctx.env);
        let report = await api.start(files, { knowledgeId: opts.knowledgeId, k: opts.k, name: opts.name });
        ctx.out.line(`Eval ${report.id} of '${report.knowledge_id}': ${report.queries_total} queries, ${report.status}.`);
        let shown = '';
        while (report.status === 'queued' || report.status === 'running') {
          await new Promise((r) => setTimeout(r, opts.pollInterval * 1000));
          report = await api.get(report.id, opts.knowledgeId);
          const now = `${report.status}: ${report.queries_done}/${report.queries_total} queries`;
          // Progress goes to stderr, so stdout holds only the outcome.
          if (now !== shown && (report.status === 'queued' || report.status === 'running')) ctx.out.warn(`  ${now}`);
          shown = now;
        }
        if (report.status === 'failed') throw new CliError('JOB_FAILED', `Eval ${report.id} failed: ${report.error ?? 'no reason given'}`, { hint: 'Fix the cause (see the runtime log), then run svc knowledge eval again.' });
        const scores = report.results?.[opts.searchType];
        if (opts.minNdcg !== undefined && !scores) {
          throw new CliError('INVALID_INPUT', `The eval has no ${opts.searchType} figures (it measured ${Object.keys(report.results ?? {}).join(', ') || 'nothing'}).`, { hint: 'Pass --search-type with one of those.' });
        }
        const passed = opts.minNdcg === undefined || scores!.ndcg >= opts.minNdcg;
        ctx.out.document({ ...report, gate: opts.minNdcg === undefined ? null : { search_type: opts.searchType, min_ndcg: opts.minNdcg, ndcg: scores!.ndcg, passed } } as unknown as JsonValue);
        ctx.out.line(`Completed; embedder ${report.settings?.embedder?.id ?? 'none (keyword only)'}.`);
        for (const line of table(report)) ctx.out.line(line);
        if (opts.minNdcg !== undefined) {
          const verdict = `${opts.searchType} nDCG@${report.k} ${fixed(scores!.ndcg)} ${passed ? 'meets' : 'is below'} --min-ndcg ${opts.minNdcg}`;
          if (!passed) {
            ctx.out.warn(verdict);
            return EXIT_BELOW_MINIMUM;
          }
          ctx.out.line(verdict);
        }
        return 0;
      }),
    );
}
