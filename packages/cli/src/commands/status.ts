/**
 * `svc status`: which runtime discovery finds, and which local clients are configured for it.
 * It sends no credential, so no trust or plaintext gate applies.
 */
import { Command } from 'commander';
import { CLIENTS, clientEnv } from '../clients/registry.js';
import { deriveServerName, SERVER_NAME_PATTERN } from '../clients/server-name.js';
import { sourceNote } from '../discovery/candidates.js';
import { discover } from '../discovery/discover.js';
import { infoJson, mcpUrl } from '../discovery/os-info.js';
import { invalidValue, parseUrlOption, run } from './shared.js';

export function parseServerName(value: string): string {
  if (!SERVER_NAME_PATTERN.test(value)) throw invalidValue(`Invalid --server-name: ${value}`, "Use letters, digits, '-' and '_' only.");
  return value;
}

export function statusCommand(): Command {
  return new Command('status')
    .description('Show the runtime and which local clients are connected to it')
    .option('--url <url>', 'runtime base URL (default: autodiscover)', parseUrlOption)
    .option('--server-name <name>', 'MCP entry name (default: derived from the runtime name, fallback agentos)', parseServerName)
    .option('--json', 'print exactly one JSON document on stdout')
    .action(async (opts: { url?: string; serverName?: string }, cmd: Command) =>
      run(cmd, async (ctx) => {
        const info = await discover({ url: opts.url, env: ctx.env, cwd: ctx.cwd });
        const serverName = opts.serverName ?? deriveServerName(info.name);
        const ce = clientEnv(ctx.env, ctx.cwd);
        const rows = CLIENTS.map((client) => {
          const detected = client.detect(ce);
          const entry = detected ? client.readExisting(serverName, ce) : undefined;
          return { client: client.id, detected, configured: entry !== undefined, location: entry?.location ?? null };
        });
        if (ctx.json) {
          ctx.out.document({ os: infoJson(info), clients: rows });
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
        for (const row of rows) {
          if (!row.detected) ctx.out.line(`  ${row.client}: ${s.dim('not detected')}`);
          else if (row.location) ctx.out.line(`  ${row.client}: ${s.green('configured')} (${row.location})`);
          else ctx.out.line(`  ${row.client}: detected, not connected (run: svc connect)`);
        }
        return 0;
      }),
    );
}
