/**
 * The local MCP clients, read-only: is the application installed, and does its config hold an
 * entry under a given name. `svc status` reports this; writing entries belongs to connect.
 * The ids are the specification's; the paths are the real applications' (see
 * docs/ARCHITECTURE.md: Claude Code, Claude Desktop, Codex, Cursor).
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { parse as parseToml } from 'smol-toml';
import { isObject } from '../http/request.js';
import { which } from '../system/which.js';
import { entryUrl, readJsonObject, serversOf } from './json-config.js';

export type ClientId = 'terminal-agent' | 'desktop-app' | 'cli-agent' | 'editor';

export interface ClientEntry {
  url: string;
  location: string;
}

export interface ClientEnv {
  home: string;
  cwd: string;
  env: NodeJS.ProcessEnv;
}

export interface ClientReader {
  id: ClientId;
  detect(e: ClientEnv): boolean;
  readExisting(name: string, e: ClientEnv): ClientEntry | undefined;
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

const terminalAgent: ClientReader = {
  id: 'terminal-agent',
  detect: (e) => which('claude', e.env) !== undefined || existsSync(join(e.home, '.claude.json')),
  readExisting(name, e) {
    // Precedence as the application applies it: local (per project), project file, user.
    const userPath = join(e.home, '.claude.json');
    const user = readJsonObject(userPath);
    const projects = user && isObject(user.projects) ? user.projects : {};
    const local = entryUrl(serversOf(projects[e.cwd])[name]);
    if (local) return { url: local, location: `${userPath} (local scope)` };
    const projectPath = join(e.cwd, '.mcp.json');
    const project = entryUrl(serversOf(readJsonObject(projectPath))[name]);
    if (project) return { url: project, location: projectPath };
    const global = entryUrl(serversOf(user)[name]);
    return global ? { url: global, location: `${userPath} (user scope)` } : undefined;
  },
};

export function desktopConfigPath(e: ClientEnv): string {
  if (process.platform === 'darwin') return join(e.home, 'Library', 'Application Support', 'Claude', 'claude_desktop_config.json');
  if (process.platform === 'win32') {
    const base = e.env.APPDATA ?? join(e.home, 'AppData', 'Roaming');
    return join(base, 'Claude', 'claude_desktop_config.json');
  }
  return join(e.home, '.config', 'Claude', 'claude_desktop_config.json');
}

const desktopApp: ClientReader = {
  id: 'desktop-app',
  detect: (e) => existsSync(desktopConfigPath(e)) || isDirectory(dirname(desktopConfigPath(e))),
  readExisting(name, e) {
    const path = desktopConfigPath(e);
    const entry = serversOf(readJsonObject(path))[name];
    const direct = entryUrl(entry);
    if (direct) return { url: direct, location: path };
    // Bridge entries carry the URL as the first http(s) argument of the launcher.
    if (isObject(entry) && Array.isArray(entry.args)) {
      const url = entry.args.find((a): a is string => typeof a === 'string' && /^https?:\/\//.test(a));
      if (url) return { url, location: path };
    }
    return undefined;
  },
};

const cliAgent: ClientReader = {
  id: 'cli-agent',
  detect: (e) => isDirectory(join(e.home, '.codex')),
  readExisting(name, e) {
    const path = join(e.home, '.codex', 'config.toml');
    let doc: unknown;
    try {
      doc = parseToml(readFileSync(path, 'utf8'));
    } catch {
      return undefined;
    }
    const servers = isObject(doc) && isObject(doc.mcp_servers) ? doc.mcp_servers : {};
    const url = entryUrl(servers[name]);
    return url ? { url, location: path } : undefined;
  },
};

const editor: ClientReader = {
  id: 'editor',
  detect: (e) => isDirectory(join(e.home, '.cursor')),
  readExisting(name, e) {
    for (const path of [join(e.cwd, '.cursor', 'mcp.json'), join(e.home, '.cursor', 'mcp.json')]) {
      const url = entryUrl(serversOf(readJsonObject(path))[name]);
      if (url) return { url, location: path };
    }
    return undefined;
  },
};

export const CLIENTS: readonly ClientReader[] = [terminalAgent, desktopApp, cliAgent, editor];

export function clientEnv(env: NodeJS.ProcessEnv, cwd: string): ClientEnv {
  return { home: homedir(), cwd, env };
}
