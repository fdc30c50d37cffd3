/**
 * The hosted chat apps (claude.ai, ChatGPT): connect cannot write their configs, so their rows
 * are the steps to take in the app's own UI, and whether the runtime is reachable from there.
 */
import { CHAT_APPS, type ChatAppId } from '../../clients/select.js';
import { isLoopbackHost } from '../../util/loopback.js';
import type { Plan } from './plan.js';
import type { Row } from './report.js';

/** Chat apps add connectors from their own cloud: only a public HTTPS URL can work. */
export function cloudReachable(mcp: string): boolean {
  let url: URL;
  try {
    url = new URL(mcp);
  } catch {
    return false;
  }
  const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (url.protocol !== 'https:' || isLoopbackHost(host) || host === 'host.docker.internal') return false;
  const privateV4 = /^(10\.|192\.168\.|169\.254\.|172\.(1[6-9]|2\d|3[01])\.)/;
  const privateV6 = /^(fc|fd|fe80:)/;
  return !privateV4.test(host) && !(host.includes(':') && privateV6.test(host));
}

/** A chat app's manual row; `auto` when it was not asked for but the runtime suits it. */
export function chatRow(plan: Plan, id: ChatAppId, auto: boolean): Row {
  const ui = CHAT_APPS.find((a) => a.id === id)?.ui ?? id;
  const where =
    id === 'chat-app-a'
      ? 'In claude.ai or the Claude desktop app: Settings -> Connectors -> Add custom connector, paste the MCP URL below, and follow the prompts (custom connectors need a paid plan).'
      : 'In ChatGPT: Settings -> Connectors -> Add custom connector, paste the MCP URL below, and follow the prompts (custom connectors need a paid plan; enable Developer Mode for full tool access).';
  const row: Row = {
    client: id,
    status: 'manual',
    error: null,
    url: plan.mcp,
    instructions: [
      `${ui} reaches MCP servers from its cloud, so the runtime must be on a public HTTPS URL.`,
      plan.oauthEnabled
        ? `This runtime's MCP endpoint supports OAuth sign-in, which is exactly how ${ui}'s Connectors UI authenticates: you will be asked to authorize when adding the connector.`
        : `${ui}'s Connectors UI authenticates with OAuth, not bearer tokens, so a token-protected runtime cannot be added from the UI yet; use a public or OAuth-enabled runtime.`,
      where,
    ],
    note: cloudReachable(plan.mcp)
      ? null
      : `${ui} adds connectors from its own cloud and cannot reach a local runtime at ${plan.info.url}; deploy it behind a public HTTPS URL (or a tunnel) before adding it.`,
  };
  if (auto) row.auto = true;
  return row;
}
