/**
 * What `svc connect` reports: one row per client or chat app, as the --json document's
 * `results` and as the human summary, with what to do next.
 */
import { accountJson, type Account } from '../../accounts/account.js';
import { CHAT_APPS } from '../../clients/select.js';
import type { Context } from '../../context.js';
import type { RuntimeInfo } from '../../discovery/os-info.js';
import { verifyJson, type VerifyResult } from '../../mcp/verify.js';
import { shortenHome } from '../../output/home-path.js';
import type { JsonValue } from '../../util/json.js';

type Status = 'connected' | 'already-connected' | 'needs-login' | 'skipped' | 'failed' | 'manual';

/** One result row; keys are emitted in this insertion order. */
export interface Row {
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
  /** Other names of entries for this runtime that the new entry replaced (no duplicate left). */
  replaced_duplicates?: string[];
  rotated?: boolean;
  replaced_token_entry?: boolean;
  auto?: boolean;
}

/** The statuses that leave the exit code at 0. */
export const OK = new Set<string>(['connected', 'already-connected', 'needs-login', 'manual']);

/** Adds a note to a row's notes once: several steps can find the same thing. */
export function addNote(notes: string[], note: string): void {
  if (!notes.includes(note)) notes.push(note);
}

/**
 * A row in the established CLI's key order: the common keys, then what the row carries. A chat
 * app's manual row ends with its `instructions` and then `note`; a client's `note` follows its
 * `location`.
 */
export function rowJson(row: Row): JsonValue {
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
  if (row.replaced_duplicates !== undefined) out.replaced_duplicates = row.replaced_duplicates;
  if (row.rotated) out.rotated = true;
  if (row.replaced_token_entry) out.replaced_token_entry = true;
  if (row.auto) out.auto = true;
  return out;
}

const PAD = ' '.repeat(17);
const DISPLAY: Record<string, string> = { 'terminal-agent': 'Claude Code', 'desktop-app': 'Claude Desktop', 'cli-agent': 'Codex', editor: 'Cursor' };

export function report(ctx: Context, rows: Row[], info: RuntimeInfo, mcp: string, serverName: string, minted: string[], warning: string | null): void {
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
    if (row.replaced_legacy) ctx.out.warn(`${PAD}renamed the legacy '${row.replaced_legacy}' entry`);
    if (row.replaced_duplicates) ctx.out.warn(`${PAD}replaced ${row.replaced_duplicates.map((n) => `'${n}'`).join(', ')} (same runtime, other name), so the tools are listed once`);
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
