/**
 * The local MCP clients: is the application installed, which entries does its config hold, and
 * how to write or remove one. The ids are the specification's; the paths and entry shapes are
 * the real applications' (docs/ARCHITECTURE.md: Claude Code, Claude Desktop, Codex, Cursor).
 *
 * Reads apply the application's own precedence (the entry it would actually use) and are
 * lenient; writes and removals read strictly and refuse files they cannot parse.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve, win32 } from 'node:path';
import { isObject } from '../util/json.js';
import { which } from '../system/which.js';
import {
  entryUrl,
  headerToken,
  popEntry,
  readJsonObject,
  readJsonStrict,
  removeServersEntry,
  serversOf,
  tokenFromAuthorization,
  writeJson,
  writeServersEntry,
} from './json-config.js';
import { readTomlLenient, removeTomlEntry, writeTomlEntry } from './toml-config.js';

export type ClientId = 'terminal-agent' | 'desktop-app' | 'cli-agent' | 'editor';

export interface ClientEntry {
  url: string;
  token: string | undefined;
  location: string;
}

export interface ClientEnv {
  home: string;
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** Write project-scoped configs (connect --project) where the client has them. */
  project?: boolean;
}

export interface NamedEntry extends ClientEntry {
  name: string;
  /** In a scope that connect and disconnect never edit (another project's local scope). */
  untouched?: true;
}

export interface WriteResult {
  location: string;
  note?: string;
  /** Whether the write renamed the `replaces` entry in place. */
  renamed: boolean;
}

export type UrlMatcher = (url: string) => boolean;

/** An entry to rename in place: the new entry takes its position when its URL passes `matches`. */
export interface Replaces {
  name: string;
  matches: UrlMatcher;
}

export interface ClientAdapter {
  id: ClientId;
  /** The application's name, for human output. */
  display: string;
  detect(e: ClientEnv): boolean;
  readExisting(name: string, e: ClientEnv): ClientEntry | undefined;
  listEntries(e: ClientEnv): Map<string, ClientEntry>;
  write(name: string, url: string, token: string | undefined, e: ClientEnv, replaces?: Replaces): WriteResult;
  /** Removes `name` from every scope the client has, where its URL passes `matches`. */
  remove(name: string, e: ClientEnv, matches?: UrlMatcher): { removed: boolean; location: string | null };
  /** Every entry in every scope, no precedence applied: all that the user's configs hold. */
  allEntries(e: ClientEnv): NamedEntry[];
  /** Every file that write or remove may change, so a failed connect can restore them exactly. */
  files(e: ClientEnv): string[];
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

function directEntry(value: unknown, location: string): ClientEntry | undefined {
  const url = entryUrl(value);
  return url ? { url, token: headerToken(value), location } : undefined;
}

/** Every entry of the scopes in precedence order; the first scope to name an entry wins. */
function firstWins(scopes: { servers: Record<string, unknown>; location: string }[], read = directEntry): Map<string, ClientEntry> {
  const entries = new Map<string, ClientEntry>();
  for (const scope of scopes) {
    for (const [name, value] of Object.entries(scope.servers)) {
      if (entries.has(name)) continue;
      const entry = read(value, scope.location);
      if (entry) entries.set(name, entry);
    }
  }
  return entries;
}

/** Every entry of the scopes, in order, without precedence. */
function everyEntry(scopes: { servers: Record<string, unknown>; location: string }[], read = directEntry): NamedEntry[] {
  const entries: NamedEntry[] = [];
  for (const scope of scopes) {
    for (const [name, value] of Object.entries(scope.servers)) {
      const entry = read(value, scope.location);
      if (entry) entries.push({ name, ...entry });
    }
  }
  return entries;
}

/** A JSON entry's check for an in-place rename: its URL (read the adapter's way) must match. */
function replacesJson(replaces: Replaces | undefined, read = directEntry): { name: string; matches: (value: unknown) => boolean } | undefined {
  if (!replaces) return undefined;
  return {
    name: replaces.name,
    matches: (value) => {
      const url = read(value, '')?.url;
      return url !== undefined && replaces.matches(url);
    },
  };
}

function httpEntry(url: string, token: string | undefined, withType: boolean): Record<string, unknown> {
  const entry: Record<string, unknown> = withType ? { type: 'http', url } : { url };
  if (token !== undefined) entry.headers = { Authorization: `Bearer ${token}` };
  return entry;
}

/** An environment variable naming a directory: unset and empty are the same. */
function envDir(e: ClientEnv, name: string): string | undefined {
  const value = e.env[name];
  return value === undefined || value.trim() === '' ? undefined : resolve(e.cwd, value);
}

/**
 * Claude Code's own directory: CLAUDE_CONFIG_DIR, else ~/.claude. Its global config (MCP
 * servers in user and local scope) is `.claude.json` in CLAUDE_CONFIG_DIR, else in the home
 * directory, unless a legacy `.config.json` exists in the config directory, which then wins.
 * This is the resolution the claude binary itself performs (checked against Claude Code 2.1).
 */
export function claudeConfigDir(e: ClientEnv): string {
  return envDir(e, 'CLAUDE_CONFIG_DIR') ?? join(e.home, '.claude');
}

export function claudeJsonPath(e: ClientEnv): string {
  const legacy = join(claudeConfigDir(e), '.config.json');
  if (existsSync(legacy)) return legacy;
  return join(envDir(e, 'CLAUDE_CONFIG_DIR') ?? e.home, '.claude.json');
}

const claudeJson = claudeJsonPath;
const mcpJson = (e: ClientEnv): string => join(e.cwd, '.mcp.json');

function terminalScopes(e: ClientEnv): { servers: Record<string, unknown>; location: string }[] {
  const user = readJsonObject(claudeJson(e));
  const projects = user && isObject(user.projects) ? user.projects : {};
  // Precedence as the application applies it: local (per project), project file, user.
  return [
    { servers: serversOf(projects[e.cwd]), location: `${claudeJson(e)} (local scope)` },
    { servers: serversOf(readJsonObject(mcpJson(e))), location: mcpJson(e) },
    { servers: serversOf(user), location: `${claudeJson(e)} (user scope)` },
  ];
}

const terminalAgent: ClientAdapter = {
  id: 'terminal-agent',
  display: 'Claude Code',
  detect: (e) => which('claude', e.env) !== undefined || existsSync(claudeJson(e)) || (envDir(e, 'CLAUDE_CONFIG_DIR') !== undefined && isDirectory(claudeConfigDir(e))),
  readExisting: (name, e) => terminalAgent.listEntries(e).get(name),
  listEntries: (e) => firstWins(terminalScopes(e)),
  allEntries(e) {
    const user = readJsonObject(claudeJson(e));
    const projects = user && isObject(user.projects) ? user.projects : {};
    // Local scopes of every project are this user's too, not only the current directory's.
    const others = Object.keys(projects)
      .filter((dir) => dir !== e.cwd)
      .map((dir) => ({ servers: serversOf(projects[dir]), location: `${claudeJson(e)} (local scope of ${dir})` }));
    const untouched = new Set(others.map((o) => o.location));
    return everyEntry([...terminalScopes(e), ...others]).map((entry) => (untouched.has(entry.location) ? { ...entry, untouched: true as const } : entry));
  },
  files: (e) => [claudeJson(e), mcpJson(e)],
  write(name, url, token, e, replaces) {
    // Always a direct file edit: the application's own `mcp add` would need the token on argv.
    const path = e.project ? mcpJson(e) : claudeJson(e);
    const renamed = writeServersEntry(path, name, httpEntry(url, token, true), token !== undefined, replacesJson(replaces));
    const note = e.project && token !== undefined ? `${path} is project-scoped and often committed to version control; it now contains a token.` : undefined;
    return { location: path, note, renamed };
  },
  remove(name, e, matches) {
    const removed: string[] = [];
    const userPath = claudeJson(e);
    // Both scopes of ~/.claude.json go in one strict read and at most one write.
    const doc = readJsonStrict(userPath);
    const projects = isObject(doc.projects) ? doc.projects : {};
    const local = popEntry(projects[e.cwd], name, matches);
    const user = popEntry(doc, name, matches);
    if (local || user) writeJson(userPath, doc, false);
    if (local) removed.push(`${userPath} (local scope)`);
    if (removeServersEntry(mcpJson(e), name, matches)) removed.push(mcpJson(e));
    if (user) removed.push(`${userPath} (user scope)`);
    return { removed: removed.length > 0, location: removed.length > 0 ? removed.join(', ') : null };
  },
};

/**
 * Claude Desktop keeps its config in the application's user-data directory:
 * - macOS: ~/Library/Application Support/Claude
 * - Windows: the MSIX package's redirected roaming folder
 *   (%LOCALAPPDATA%\Packages\Claude_<publisher>\LocalCache\Roaming\Claude) when the app is
 *   installed as a package, which is how it has shipped since early 2026 (the packaged app never
 *   reads %APPDATA%); else %APPDATA%\Claude (the older installer)
 * - Linux (community builds of the Electron app): $XDG_CONFIG_HOME/Claude, else ~/.config/Claude
 */
export function desktopConfigPath(e: ClientEnv, platform: NodeJS.Platform = process.platform, listDir: (path: string) => string[] = readdirSync): string {
  const file = 'claude_desktop_config.json';
  if (platform === 'darwin') return join(e.home, 'Library', 'Application Support', 'Claude', file);
  if (platform === 'win32') {
    const w = win32;
    const local = e.env.LOCALAPPDATA?.trim() || w.join(e.home, 'AppData', 'Local');
    const packaged = msixPackage(w.join(local, 'Packages'), listDir);
    if (packaged) return w.join(local, 'Packages', packaged, 'LocalCache', 'Roaming', 'Claude', file);
    return w.join(e.env.APPDATA?.trim() || w.join(e.home, 'AppData', 'Roaming'), 'Claude', file);
  }
  // Electron's appData on Linux is Chromium's XDG config directory.
  return join(envDir(e, 'XDG_CONFIG_HOME') ?? join(e.home, '.config'), 'Claude', file);
}

/** The installed Claude package folder (Claude_<publisher id>), if there is one. */
function msixPackage(packages: string, listDir: (path: string) => string[]): string | undefined {
  try {
    return listDir(packages)
      .filter((name) => /^Claude_[a-z0-9]+$/i.test(name))
      .sort()[0];
  } catch {
    return undefined;
  }
}

/** The env entry through which the desktop bridge receives the Authorization header. */
export const BRIDGE_HEADER_ENV = 'SVC_AUTH_HEADER';

/**
 * The desktop app only speaks stdio, so its entry launches a bridge. Bridge entries carry the URL
 * as the first http(s) argument and the token in a `--header Authorization:...` argument whose
 * `${VAR}` references resolve against the entry's own env table.
 */
function desktopEntry(value: unknown, location: string): ClientEntry | undefined {
  const direct = directEntry(value, location);
  if (direct) return direct;
  if (!isObject(value) || !Array.isArray(value.args)) return undefined;
  const args = value.args.filter((a): a is string => typeof a === 'string');
  const url = args.find((a) => /^https?:\/\//.test(a));
  if (!url) return undefined;
  const env = isObject(value.env) ? value.env : {};
  let token: string | undefined;
  for (let i = 0; i < args.length - 1; i += 1) {
    if (args[i] !== '--header') continue;
    const header = args[i + 1] ?? '';
    const colon = header.indexOf(':');
    if (colon < 0 || header.slice(0, colon).trim().toLowerCase() !== 'authorization') continue;
    const expanded = header.slice(colon + 1).replace(/\$\{([^}]+)\}/g, (whole, key: string) => (typeof env[key] === 'string' ? env[key] : whole));
    token = tokenFromAuthorization(expanded);
    break;
  }
  return { url, token, location };
}

const desktopApp: ClientAdapter = {
  id: 'desktop-app',
  display: 'Claude Desktop',
  detect: (e) => existsSync(desktopConfigPath(e)) || isDirectory(dirname(desktopConfigPath(e))),
  readExisting: (name, e) => desktopApp.listEntries(e).get(name),
  listEntries: (e) => firstWins([{ servers: serversOf(readJsonObject(desktopConfigPath(e))), location: desktopConfigPath(e) }], desktopEntry),
  allEntries: (e) => everyEntry([{ servers: serversOf(readJsonObject(desktopConfigPath(e))), location: desktopConfigPath(e) }], desktopEntry),
  files: (e) => [desktopConfigPath(e)],
  write(name, url, token, e, replaces) {
    const path = desktopConfigPath(e);
    const entry: Record<string, unknown> = { command: 'npx', args: ['-y', 'mcp-remote', url] };
    if (token !== undefined) {
      // The token travels in env, never in args, where `ps` would show it.
      entry.args = ['-y', 'mcp-remote', url, '--header', `Authorization:\${${BRIDGE_HEADER_ENV}}`];
      entry.env = { [BRIDGE_HEADER_ENV]: `Bearer ${token}` };
    }
    const renamed = writeServersEntry(path, name, entry, token !== undefined, replacesJson(replaces, desktopEntry));
    const note = which('npx', e.env) === undefined ? "Claude Desktop launches this server with 'npx mcp-remote'; install Node.js/npx or it will not start." : undefined;
    return { location: path, note, renamed };
  },
  remove(name, e, matches) {
    const path = desktopConfigPath(e);
    const removed = removeServersEntry(path, name, matches, (v) => desktopEntry(v, path)?.url);
    return { removed, location: removed ? path : null };
  },
};

/** Codex's home: CODEX_HOME (relative to the working directory, as Codex resolves it), else ~/.codex. */
export function codexHome(e: ClientEnv): string {
  return envDir(e, 'CODEX_HOME') ?? join(e.home, '.codex');
}

const codexToml = (e: ClientEnv): string => join(codexHome(e), 'config.toml');

const cliAgent: ClientAdapter = {
  id: 'cli-agent',
  display: 'Codex',
  detect: (e) => isDirectory(codexHome(e)),
  readExisting: (name, e) => cliAgent.listEntries(e).get(name),
  listEntries(e) {
    const entries = new Map<string, ClientEntry>();
    for (const [name, entry] of readTomlLenient(codexToml(e))) entries.set(name, { ...entry, location: codexToml(e) });
    return entries;
  },
  allEntries: (e) => [...cliAgent.listEntries(e)].map(([name, entry]) => ({ name, ...entry })),
  files: (e) => [codexToml(e)],
  write(name, url, token, e, replaces) {
    const renamed = writeTomlEntry(codexToml(e), name, url, token, replaces);
    return { location: codexToml(e), renamed };
  },
  remove(name, e, matches) {
    const removed = removeTomlEntry(codexToml(e), name, matches);
    return { removed, location: removed ? codexToml(e) : null };
  },
};

const cursorFiles = (e: ClientEnv): [string, string] => [join(e.cwd, '.cursor', 'mcp.json'), join(e.home, '.cursor', 'mcp.json')];

const editor: ClientAdapter = {
  id: 'editor',
  display: 'Cursor',
  detect: (e) => isDirectory(join(e.home, '.cursor')),
  readExisting: (name, e) => editor.listEntries(e).get(name),
  // The project file wins over the global one, whatever scope connect writes.
  listEntries: (e) => firstWins(cursorFiles(e).map((path) => ({ servers: serversOf(readJsonObject(path)), location: path }))),
  allEntries: (e) => everyEntry(cursorFiles(e).map((path) => ({ servers: serversOf(readJsonObject(path)), location: path }))),
  files: (e) => cursorFiles(e),
  write(name, url, token, e, replaces) {
    const [projectPath, userPath] = cursorFiles(e);
    const path = e.project ? projectPath : userPath;
    const renamed = writeServersEntry(path, name, httpEntry(url, token, false), token !== undefined, replacesJson(replaces));
    const note = e.project && token !== undefined ? `${path} is project-scoped; keep it out of version control (it now contains a token).` : undefined;
    return { location: path, note, renamed };
  },
  remove(name, e, matches) {
    const removed = cursorFiles(e).filter((path) => removeServersEntry(path, name, matches));
    return { removed: removed.length > 0, location: removed.length > 0 ? removed.join(', ') : null };
  },
};

export const CLIENTS: readonly ClientAdapter[] = [terminalAgent, desktopApp, cliAgent, editor];

export function clientEnv(env: NodeJS.ProcessEnv, cwd: string, project = false): ClientEnv {
  return { home: homedir(), cwd, env, project };
}

/** The entry the client would use, or undefined also when its config cannot be read. */
export function safeRead(client: ClientAdapter, name: string, e: ClientEnv): ClientEntry | undefined {
  try {
    return client.readExisting(name, e);
  } catch {
    return undefined;
  }
}

/**
 * Whether Claude Code will use a server from the project's .mcp.json. It asks first: the folder
 * must be trusted (its trust dialog accepted, recorded per project in its global config) and
 * the server approved (listed in enabledMcpjsonServers, or enableAllProjectMcpServers, in its
 * local, project or user settings, or per project in the global config where older versions
 * kept it); until then it lists the server as "Pending approval". A server the user declined
 * (disabledMcpjsonServers) is not used at all. Checked against Claude Code 2.1's `mcp list`.
 */
export function projectServerApproval(name: string, e: ClientEnv): 'approved' | 'rejected' | 'pending' {
  const global = readJsonObject(claudeJson(e));
  const project = global && isObject(global.projects) && isObject(global.projects[e.cwd]) ? global.projects[e.cwd] : undefined;
  const sources = [readJsonObject(join(e.cwd, '.claude', 'settings.local.json')), readJsonObject(join(e.cwd, '.claude', 'settings.json')), readJsonObject(join(claudeConfigDir(e), 'settings.json')), project];
  const lists = (doc: unknown, key: string): boolean => isObject(doc) && Array.isArray(doc[key]) && doc[key].includes(name);
  if (sources.some((doc) => lists(doc, 'disabledMcpjsonServers'))) return 'rejected';
  const trusted = isObject(project) && project.hasTrustDialogAccepted === true;
  if (trusted && sources.some((doc) => lists(doc, 'enabledMcpjsonServers') || (isObject(doc) && doc.enableAllProjectMcpServers === true))) return 'approved';
  return 'pending';
}

/** Whether an entry location is the project's .mcp.json (which Claude Code asks about first). */
export function isProjectMcpJson(location: string, e: ClientEnv): boolean {
  return location === mcpJson(e);
}
