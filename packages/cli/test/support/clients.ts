/**
 * The client side of a sandbox: the config files connect and disconnect edit, at the real
 * applications' locations under the sandbox HOME (Linux layout for the desktop app).
 */
import { lstatSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import type { Sandbox } from './cli.js';

export function paths(box: Sandbox) {
  return {
    claudeUser: join(box.home, '.claude.json'),
    claudeProject: join(box.cwd, '.mcp.json'),
    desktop: join(box.home, '.config', 'Claude', 'claude_desktop_config.json'),
    codex: join(box.home, '.codex', 'config.toml'),
    cursorUser: join(box.home, '.cursor', 'mcp.json'),
    cursorProject: join(box.cwd, '.cursor', 'mcp.json'),
  };
}

/** Terminal agent, CLI agent and editor installed; no desktop app. */
export function installClients(box: Sandbox, options: { desktop?: boolean } = {}): ReturnType<typeof paths> {
  const p = paths(box);
  writeFileSync(p.claudeUser, '{}');
  mkdirSync(join(box.home, '.codex'));
  mkdirSync(join(box.home, '.cursor'));
  if (options.desktop) mkdirSync(join(box.home, '.config', 'Claude'), { recursive: true });
  return p;
}

// Tests read arbitrary JSON documents.
export function readJson(path: string): any {
  return JSON.parse(readFileSync(path, 'utf8'));
}

export function modeOf(path: string): number {
  return lstatSync(path).mode & 0o777;
}

/** The account name connect falls back to for a user's client (`<client>-<user>-<host>`), as the CLI builds it. */
export function perUserName(client: string, user: string): string {
  const host = (hostname().split('.')[0] ?? '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  return `${client}-${user}-${host}`.slice(0, 63).replace(/[-_]+$/, '');
}
