/**
 * The local record of the service accounts this user minted from this machine, per runtime:
 * what makes an account "mine" once its token has left every client config (a disconnect
 * without --revoke, say), so reconnecting replaces it instead of treating it as a stranger's.
 *
 * One JSON file under the CLI's config directory (SVC_CONFIG_DIR, else %APPDATA%\svc on
 * Windows, else $XDG_CONFIG_HOME/svc or ~/.config/svc), 0600 in a 0700 directory, rewritten
 * atomically (temp file and rename). It holds account ids, names, token display prefixes and
 * the clients they were minted for, never a token. Every change reads the file afresh, so two
 * runs that do not overlap never lose each other's entries.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve, win32 } from 'node:path';
import { atomicWrite } from '../clients/atomic-write.js';
import type { ClientEnv } from '../clients/registry.js';
import { isObject } from '../util/json.js';
import { endpointKey } from '../util/loopback.js';
import type { Account } from './account.js';

export const RECORD_FILE = 'minted-accounts.json';

export interface RecordedAccount {
  /** The runtime's endpoint key (loopback spellings alike): which runtime it was minted on. */
  runtime: string;
  /** The runtime's base URL as it was reached, for people reading the file. */
  url: string;
  id: string;
  name: string;
  token_prefix: string;
  /** The clients it was minted for (several for a shared --name account). */
  clients: string[];
  minted_at: number;
}

/** The CLI's own config directory. */
export function cliConfigDir(e: Pick<ClientEnv, 'env' | 'home' | 'cwd'>, platform: NodeJS.Platform = process.platform): string {
  const fromEnv = (name: string): string | undefined => {
    const value = e.env[name]?.trim();
    return value ? value : undefined;
  };
  const explicit = fromEnv('SVC_CONFIG_DIR');
  if (explicit) return resolve(e.cwd, explicit);
  if (platform === 'win32') return win32.join(fromEnv('APPDATA') ?? win32.join(e.home, 'AppData', 'Roaming'), 'svc');
  const xdg = fromEnv('XDG_CONFIG_HOME');
  return join(xdg ? resolve(e.cwd, xdg) : join(e.home, '.config'), 'svc');
}

function parseEntry(value: unknown): RecordedAccount | undefined {
  if (!isObject(value)) return undefined;
  const { runtime, url, id, name, token_prefix: prefix, clients, minted_at: at } = value;
  if (typeof runtime !== 'string' || typeof id !== 'string' || typeof name !== 'string') return undefined;
  return {
    runtime,
    url: typeof url === 'string' ? url : runtime,
    id,
    name,
    token_prefix: typeof prefix === 'string' ? prefix : '',
    clients: Array.isArray(clients) ? clients.filter((c): c is string => typeof c === 'string') : [],
    minted_at: typeof at === 'number' ? at : 0,
  };
}

/** The accounts this machine minted, on every runtime. */
export class MintRecord {
  readonly path: string;

  constructor(e: Pick<ClientEnv, 'env' | 'home' | 'cwd'>) {
    this.path = join(cliConfigDir(e), RECORD_FILE);
  }

  /** Every entry; a missing or unreadable file is an empty record. */
  entries(): RecordedAccount[] {
    try {
      const doc = JSON.parse(readFileSync(this.path, 'utf8')) as unknown;
      const list = isObject(doc) && Array.isArray(doc.accounts) ? doc.accounts : [];
      return list.map(parseEntry).filter((a): a is RecordedAccount => a !== undefined);
    } catch {
      return [];
    }
  }

  /** The entries for one runtime (any spelling of its URL). */
  forRuntime(runtimeUrl: string): RecordedAccount[] {
    const key = endpointKey(runtimeUrl);
    return this.entries().filter((a) => a.runtime === key);
  }

  /** Whether this machine minted `account` on that runtime (same id, and same prefix when both are known). */
  owns(runtimeUrl: string, account: Account): boolean {
    return this.forRuntime(runtimeUrl).some((a) => a.id === account.id && (a.token_prefix === '' || account.token_prefix === '' || a.token_prefix === account.token_prefix));
  }

  private write(entries: RecordedAccount[]): void {
    mkdirSync(dirname(this.path), { recursive: true, mode: 0o700 });
    atomicWrite(this.path, `${JSON.stringify({ version: 1, accounts: entries }, null, 2)}\n`, true);
  }

  add(runtimeUrl: string, account: Account, clients: readonly string[]): void {
    const runtime = endpointKey(runtimeUrl);
    const kept = this.entries().filter((a) => !(a.runtime === runtime && a.id === account.id));
    kept.push({ runtime, url: runtimeUrl, id: account.id, name: account.name, token_prefix: account.token_prefix, clients: [...clients].sort(), minted_at: account.created_at ?? Math.floor(Date.now() / 1000) });
    this.write(kept);
  }

  /** Drops the entries for these account ids on that runtime (revoked); no write when none match. */
  forget(runtimeUrl: string, ids: readonly string[]): void {
    const runtime = endpointKey(runtimeUrl);
    const all = this.entries();
    const kept = all.filter((a) => !(a.runtime === runtime && ids.includes(a.id)));
    if (kept.length !== all.length) this.write(kept);
  }
}
