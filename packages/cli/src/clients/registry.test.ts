import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { claudeConfigDir, claudeJsonPath, codexHome, desktopConfigPath, type ClientEnv } from './registry.js';

function none(): string[] {
  throw new Error('ENOENT');
}

function packaged(dir: string): string[] {
  return dir === 'D:\\Local\\Packages' ? ['Microsoft.Foo_1', 'Claude_pzs8sxrjxfjjc'] : [];
}

describe('client homes, resolved as each application resolves them', () => {
  let root: string;
  let e: ClientEnv;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'svc-homes-'));
    e = { home: join(root, 'home'), cwd: join(root, 'work'), env: {} };
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('Codex: CODEX_HOME (relative to the working directory), else ~/.codex; empty means unset', () => {
    expect(codexHome(e)).toBe(join(root, 'home', '.codex'));
    expect(codexHome({ ...e, env: { CODEX_HOME: '/opt/codex' } })).toBe('/opt/codex');
    expect(codexHome({ ...e, env: { CODEX_HOME: 'ch' } })).toBe(join(root, 'work', 'ch'));
    expect(codexHome({ ...e, env: { CODEX_HOME: '' } })).toBe(join(root, 'home', '.codex'));
  });

  it('Claude Code: .claude.json in CLAUDE_CONFIG_DIR, else in HOME; a legacy .config.json in the config directory wins', () => {
    expect(claudeConfigDir(e)).toBe(join(root, 'home', '.claude'));
    expect(claudeJsonPath(e)).toBe(join(root, 'home', '.claude.json'));
    const withDir = { ...e, env: { CLAUDE_CONFIG_DIR: join(root, 'cc') } };
    expect(claudeConfigDir(withDir)).toBe(join(root, 'cc'));
    expect(claudeJsonPath(withDir)).toBe(join(root, 'cc', '.claude.json'));
    mkdirSync(join(root, 'home', '.claude'), { recursive: true });
    writeFileSync(join(root, 'home', '.claude', '.config.json'), '{}');
    expect(claudeJsonPath(e)).toBe(join(root, 'home', '.claude', '.config.json'));
  });

  it('Claude Desktop: per platform, with XDG_CONFIG_HOME on Linux and the MSIX package folder on Windows', () => {
    const file = 'claude_desktop_config.json';
    expect(desktopConfigPath(e, 'darwin')).toBe(join(e.home, 'Library', 'Application Support', 'Claude', file));
    expect(desktopConfigPath(e, 'linux')).toBe(join(e.home, '.config', 'Claude', file));
    expect(desktopConfigPath({ ...e, env: { XDG_CONFIG_HOME: '/xdg' } }, 'linux')).toBe(join('/xdg', 'Claude', file));
    const win: ClientEnv = { home: 'C:\\Users\\ann', cwd: 'C:\\work', env: { APPDATA: 'D:\\Roaming', LOCALAPPDATA: 'D:\\Local' } };
    expect(desktopConfigPath(win, 'win32', none)).toBe(`D:\\Roaming\\Claude\\${file}`);
    expect(desktopConfigPath({ ...win, env: {} }, 'win32', none)).toBe(`C:\\Users\\ann\\AppData\\Roaming\\Claude\\${file}`);
    expect(desktopConfigPath(win, 'win32', packaged)).toBe(`D:\\Local\\Packages\\Claude_pzs8sxrjxfjjc\\LocalCache\\Roaming\\Claude\\${file}`);
  });
});
