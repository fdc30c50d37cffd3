/**
 * @module storage/open-db
 * Turns a `DATABASE_URL` into a Db: a file path or `sqlite:` URL for the embedded default,
 * `postgres://` / `postgresql://` for the scale-out store.
 */
import { isAbsolute, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ConfigurationError } from '../errors.js';
import type { Db } from './db.js';
import { PostgresDb } from './postgres/postgres-db.js';
import { SqliteDb } from './sqlite/sqlite-db.js';

export const DEFAULT_DATABASE_PATH = './data/runtime.db';

export type DatabaseTarget = { kind: 'sqlite'; path: string } | { kind: 'postgres'; url: string };

/**
 * Accepted forms: `./data/runtime.db`, `/abs/file.db`, `:memory:`, `sqlite:relative.db`,
 * `sqlite:///abs/file.db`, `sqlite://relative.db`, `file:///abs/file.db`, `postgres://...`,
 * `postgresql://...`.
 */
export function parseDatabaseUrl(value: string | undefined, cwd = process.cwd()): DatabaseTarget {
  const raw = (value ?? '').trim() || DEFAULT_DATABASE_PATH;
  if (/^postgres(ql)?:\/\//i.test(raw)) {
    if (!URL.canParse(raw)) throw new ConfigurationError('DATABASE_URL is not a valid postgres:// URL');
    return { kind: 'postgres', url: raw };
  }
  if (raw === ':memory:' || raw === 'sqlite::memory:' || raw === 'sqlite://:memory:') {
    return { kind: 'sqlite', path: ':memory:' };
  }
  let path = raw;
  if (/^file:/i.test(raw)) path = fileURLToPath(raw);
  else if (/^sqlite:/i.test(raw)) path = raw.replace(/^sqlite:(\/\/)?/i, '');
  else if (/^[a-z][a-z0-9+.-]*:\/\//i.test(raw)) {
    throw new ConfigurationError(
      `DATABASE_URL scheme "${raw.split(':')[0]}" is not supported: use a file path, sqlite: or postgres://`,
    );
  }
  if (path === '') throw new ConfigurationError('DATABASE_URL names no SQLite file');
  return { kind: 'sqlite', path: isAbsolute(path) ? path : resolve(cwd, path) };
}

/** Opens (but does not migrate) the database named by `url`, defaulting to `./data/runtime.db`. */
export function openDb(url?: string, options: { id?: string } = {}): Db {
  const target = parseDatabaseUrl(url);
  if (target.kind === 'postgres') return new PostgresDb({ url: target.url, ...options });
  return new SqliteDb({ path: target.path, ...options });
}
