/**
 * Where the runtime's URL may come from, in priority order: --url, RUNTIME_URL, RUNTIME_URL in
 * ./.env.production then ./.env, then the well-known loopback ports.
 */
import { join } from 'node:path';
import { readEnvFileValue } from './env-file.js';
import { dedupKey } from '../util/loopback.js';

export type UrlSource = 'flag' | 'env' | 'env-file' | 'client-config' | 'default';

export interface Candidate {
  url: string;
  source: UrlSource;
  sourceFile: string | null;
}

export const URL_ENV = 'RUNTIME_URL';
export const ENV_FILES = ['.env.production', '.env'] as const;
export const DEFAULT_PORTS = [7777, 7778, 7779, 8000] as const;

export function stripTrailingSlash(url: string): string {
  return url.replace(/\/+$/, '');
}

/** The first env file in `cwd` that gives RUNTIME_URL a usable value. */
export function envFileUrl(cwd: string): { url: string; file: string } | undefined {
  for (const file of ENV_FILES) {
    const value = readEnvFileValue(join(cwd, file), URL_ENV);
    if (value === undefined) continue;
    const url = stripTrailingSlash(value);
    if (url !== '') return { url, file };
  }
  return undefined;
}

export function candidates(flagUrl: string | undefined, env: NodeJS.ProcessEnv, cwd: string): Candidate[] {
  if (flagUrl !== undefined) return [{ url: stripTrailingSlash(flagUrl), source: 'flag', sourceFile: null }];
  const fromEnv = env[URL_ENV];
  if (fromEnv !== undefined && fromEnv.trim() !== '') {
    return [{ url: stripTrailingSlash(fromEnv.trim()), source: 'env', sourceFile: null }];
  }
  const list: Candidate[] = [];
  const fromFile = envFileUrl(cwd);
  if (fromFile) list.push({ url: fromFile.url, source: 'env-file', sourceFile: fromFile.file });
  const seen = new Set(list.map((c) => dedupKey(c.url)));
  for (const port of DEFAULT_PORTS) {
    const url = `http://localhost:${port}`;
    if (seen.has(dedupKey(url))) continue;
    list.push({ url, source: 'default', sourceFile: null });
  }
  return list;
}

/** The text appended to a URL in messages to say where it came from. */
export function sourceNote(c: Pick<Candidate, 'source' | 'sourceFile'>): string {
  if (c.source === 'env-file') return ` (from ${URL_ENV} in ${c.sourceFile ?? '.env'})`;
  if (c.source === 'env') return ` (from ${URL_ENV})`;
  if (c.source === 'client-config') return ` (configured in ${c.sourceFile ?? 'a client config'})`;
  return '';
}
