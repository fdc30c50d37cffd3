/**
 * `svc status`: which runtime discovery finds, and which local clients are configured for it.
 * It sends no credential, so no trust or plaintext gate applies.
 */
import { Command } from 'commander';
import { CLIENTS, clientEnv, safeRead, type ClientAdapter, type ClientEntry } from '../../clients/registry.js';
import { deriveServerName, LEGACY_SERVER_NAME } from '../../clients/server-name.js';
import type { Context } from '../../context.js';
import { exportedCredential } from '../../credentials/admin-token.js';
import { sourceNote } from '../../discovery/candidates.js';
import { discover } from '../../discovery/discover.js';
import { infoJson, mcpUrl, type RuntimeInfo } from '../../discovery/os-info.js';
import { checkToken } from '../../mcp/verify.js';
import { runAction } from '../action.js';
import { parseServerName, parseUrlOption } from '../options.js';
import { runWith } from '../program.js';

interface StatusRow {
  client: ClientAdapter;
  detected: boolean;
  entry: ClientEntry | undefined;
  /** Whether the runtime accepts the entry's token; null when there is no token to check here. */
  tokenValid: boolean | null;
  legacy: ClientEntry | undefined;
}

/**
 * One row per client. A token is checked only against the endpoint its entry names (the client
 * sends it there anyway), with one MCP `initialize`; the clients are checked in parallel.
 */
async function statusRows(ctx: Context, info: RuntimeInfo, serverName: string): Promise<StatusRow[]> {
  const ce = clientEnv(ctx.env, ctx.cwd);
  const mcp = mcpUrl(info);
  return Promise.all(
    CLIENTS.map(async (client) => {
      const detected = client.detect(ce);
      const entry = detected ? safeRead(client, serverName, ce) : undefined;
      const tokenValid = entry?.token !== undefined && mcp !== null && entry.url === mcp ? await checkToken(mcp, entry.token, ctx.env) : null;
      const legacyEntry = detected && entry === undefined && serverName !== LEGACY_SERVER_NAME ? safeRead(client, LEGACY_SERVER_NAME, ce) : undefined;
      return { client, detected, entry, tokenValid, legacy: legacyEntry !== undefined && legacyEntry.url === mcp ? legacyEntry : undefined };
    }),
  );
}

export function statusCommand(): Command {
  return new Command('status')
    .option('--url <url>', 'runtime base URL (default: autodiscover)', parseUrlOption)
    .option('--server-name <name>', 'MCP entry name (default: derived from the runtime name, fallback agentos)', parseServerName)
    .option('--json', 'print exactly one JSON document on stdout')
    .action(async (opts: { url?: string; serverName?: string }, cmd: Command) =>
      runAction(cmd, async (ctx) => {
        const info = await discover({ url: opts.url, env: ctx.env, cwd: ctx.cwd });
        const serverName = opts.serverName ?? deriveServerName(info.name);
        const rows = await statusRows(ctx, info, serverName);
        if (ctx.json) {
          ctx.out.document({
            os: infoJson(info),
            clients: rows.map((r) => ({ client: r.client.id, detected: r.detected, configured: r.entry !== undefined, location: r.entry?.location ?? null, token_valid: r.tokenValid })),
          });
          return 0;
        }
        const s = ctx.out.style;
        const version = info.version ? ` (runtime ${info.version})` : '';
        ctx.out.line(`${s.bold('Runtime:')} ${info.url}${sourceNote({ source: info.url_source, sourceFile: info.url_source_file })}${version}`);
        ctx.out.line(`  MCP: ${mcpUrl(info) ?? 'disabled'}`);
        ctx.out.line(`  Auth mode: ${info.auth_mode}`);
        const oauth = info.mcp.oauth;
        if (oauth) {
          ctx.out.line(
            oauth.authorization_servers.length > 0
              ? `  MCP auth: OAuth via ${oauth.authorization_servers.join(', ')}`
              : '  MCP auth: token-protected (no authorization server)',
          );
        }
        ctx.out.line();
        const fix = (client: ClientAdapter, extra = ''): string =>
          `svc connect --url ${info.url} --clients ${client.id}${opts.serverName !== undefined ? ` --server-name ${serverName}` : ''}${extra}`;
        const adminKey = (token: string | undefined): boolean =>
          token !== undefined && (token === exportedCredential(ctx.env) || (info.auth_mode === 'security_key' && !token.startsWith('svc_pat_')));
        for (const row of rows) {
          const id = row.client.id;
          const entry = row.entry;
          if (!row.detected) ctx.out.line(`  ${id}: ${s.dim('not detected')}`);
          else if (entry && row.tokenValid === false) {
            ctx.out.line(`  ${id}: ${s.yellow('configured')} (${entry.location}), but the runtime rejects its token (revoked or expired); fix: ${fix(row.client)}`);
          } else if (entry && entry.url !== mcpUrl(info)) {
            ctx.out.line(`  ${id}: configured (${entry.location}) for ${entry.url}, not this runtime; to point it here: ${fix(row.client)}`);
          } else if (entry && row.tokenValid === true && adminKey(entry.token)) {
            ctx.out.line(`  ${id}: ${s.yellow('configured')} (${entry.location}) with the runtime's admin key; replace it with a scoped token: ${fix(row.client, ' --rotate')}`);
          } else if (entry) ctx.out.line(`  ${id}: ${s.green('configured')} (${entry.location})`);
          else if (row.legacy) ctx.out.line(`  ${id}: configured under the legacy name '${LEGACY_SERVER_NAME}' (${row.legacy.location}); to rename it: ${fix(row.client)}`);
          else ctx.out.line(`  ${id}: detected, not connected (run: svc connect)`);
        }
        return 0;
      }),
    );
}

/** This folder's commands (status); `run` is the entry of its bundle, dist/cmd/status.mjs. */
export function commands(): Command[] {
  return [statusCommand()];
}

export const run = runWith(commands);
