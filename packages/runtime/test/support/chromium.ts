/**
 * Debian's chromium as this machine runs it for tests: the executable (CHROMIUM_PATH to move it)
 * and the flags it needs here: no sandbox as root, and background networking, component updates
 * and sync off, since the closed network refuses their connections many at a time.
 */
import { existsSync } from 'node:fs';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const chromiumFound = existsSync(CHROMIUM);

export const CHROMIUM_ARGS: readonly string[] = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
