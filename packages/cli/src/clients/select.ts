/**
 * Which clients a connect/disconnect run works on: `--clients` (ids, the specification's
 * aliases, and the applications' own names), or every detected client. The hosted chat apps
 * have no local config; they only ever get manual steps.
 */
import { isLoopbackHost } from '../util/loopback.js';
import { CliError } from '../errors.js';
import { CLIENTS, type ClientAdapter, type ClientEnv, type ClientId } from './registry.js';

export type ChatAppId = 'chat-app-a' | 'chat-app-b';

export const CHAT_APPS: readonly { id: ChatAppId; ui: string }[] = [
  { id: 'chat-app-a', ui: 'Claude' },
  { id: 'chat-app-b', ui: 'ChatGPT' },
];

const CLIENT_ALIASES: Record<string, ClientId> = {
  'terminal-agent': 'terminal-agent',
  terminal: 'terminal-agent',
  'claude-code': 'terminal-agent',
  'desktop-app': 'desktop-app',
  desktop: 'desktop-app',
  'claude-desktop': 'desktop-app',
  'cli-agent': 'cli-agent',
  codex: 'cli-agent',
  editor: 'editor',
  cursor: 'editor',
};

const CHAT_ALIASES: Record<string, ChatAppId> = {
  'chat-app-a': 'chat-app-a',
  'claude-ai': 'chat-app-a',
  'chat-app-b': 'chat-app-b',
  chat: 'chat-app-b',
  'chat-alt': 'chat-app-b',
  chatgpt: 'chat-app-b',
};

export interface Selection {
  /** Whether --clients was given at all. */
  explicit: boolean;
  adapters: ClientAdapter[];
  chatApps: ChatAppId[];
}

/** Parses --clients; unknown names are an error listing every accepted name. */
export function parseClients(value: string | undefined): Selection {
  if (value === undefined) return { explicit: false, adapters: [], chatApps: [] };
  const ids: ClientId[] = [];
  const chatApps: ChatAppId[] = [];
  for (const raw of value.split(',')) {
    const token = raw.trim().toLowerCase();
    if (token === '') continue;
    const chat = CHAT_ALIASES[token];
    const id = CLIENT_ALIASES[token];
    if (chat) {
      if (!chatApps.includes(chat)) chatApps.push(chat);
    } else if (id) {
      if (!ids.includes(id)) ids.push(id);
    } else {
      throw new CliError('UNKNOWN_CLIENT', `Unknown client: ${token}`, {
        hint: `Supported clients: ${[...Object.keys(CLIENT_ALIASES), ...Object.keys(CHAT_ALIASES)].sort().join(', ')}`,
      });
    }
  }
  return { explicit: true, adapters: ids.map((id) => CLIENTS.find((c) => c.id === id)).filter((c): c is ClientAdapter => c !== undefined), chatApps };
}

export const NO_CLIENTS_HINT = 'Install Claude Code, Claude Desktop, Codex, or Cursor, or pass --clients explicitly.';

/** The explicit selection, or every detected client. */
export function selectClients(value: string | undefined, e: ClientEnv): Selection {
  const selection = parseClients(value);
  if (selection.explicit) return selection;
  return { ...selection, adapters: CLIENTS.filter((c) => c.detect(e)) };
}

export function noClientsError(): CliError {
  return new CliError('NO_CLIENTS', 'No supported clients detected on this machine.', { hint: NO_CLIENTS_HINT });
}

/** Host identity for matching: every loopback spelling is this machine. */
function hostKey(u: URL): string {
  return isLoopbackHost(u.hostname) ? 'loopback' : u.hostname.toLowerCase();
}

/**
 * Whether an entry URL belongs to one of the target runtimes: same scheme, same host and port
 * (localhost, 127.0.0.1 and ::1 are one machine, so an entry written for one spelling is found
 * under another), and a path under the target's path (so /customer-a never matches
 * /customer-abc).
 */
export function matchesTargets(entryUrl: string, targets: readonly string[]): boolean {
  let entry: URL;
  try {
    entry = new URL(entryUrl);
  } catch {
    return false;
  }
  return targets.some((target) => {
    let base: URL;
    try {
      base = new URL(target);
    } catch {
      return false;
    }
    if (entry.protocol !== base.protocol || hostKey(entry) !== hostKey(base) || entry.port !== base.port) return false;
    const basePath = base.pathname.replace(/\/+$/, '');
    return basePath === '' || entry.pathname === basePath || entry.pathname.startsWith(`${basePath}/`);
  });
}
