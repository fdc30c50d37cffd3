/**
 * JSON MCP configs (`{"mcpServers": {...}}`), read two ways:
 * - leniently for status and discovery: a missing, unparsable or oddly shaped file means "no
 *   entries", because reporting must never fail on a client's broken config;
 * - strictly before any write: a file we cannot parse is refused and left byte-for-byte as it
 *   is, because rewriting it would drop whatever the user had in it.
 */
import { readFileSync } from 'node:fs';
import { CliError } from '../errors.js';
import { isObject } from '../util/json.js';
import { assertWritableTarget, atomicWrite, FIX_HINT } from './atomic-write.js';

export function readJsonObject(path: string): Record<string, unknown> | undefined {
  try {
    const value = JSON.parse(readFileSync(path, 'utf8')) as unknown;
    return isObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

export function serversOf(container: unknown): Record<string, unknown> {
  if (!isObject(container)) return {};
  return isObject(container.mcpServers) ? container.mcpServers : {};
}

/** The URL of an entry with a direct `url` (terminal agent, editor, native desktop entries). */
export function entryUrl(entry: unknown): string | undefined {
  return isObject(entry) && typeof entry.url === 'string' && entry.url !== '' ? entry.url : undefined;
}

/** `Bearer T` -> T; a bare value is taken as the token; empty means none. */
export function tokenFromAuthorization(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const start = value.trimStart();
  // Check the prefix before trimming the end, so "Bearer " alone means no token.
  const token = /^bearer /i.test(start) ? start.slice(7).trim() : start.trim();
  return token === '' ? undefined : token;
}

/** The token of an entry that carries `headers.Authorization` (exact header name). */
export function headerToken(entry: unknown): string | undefined {
  return isObject(entry) && isObject(entry.headers) ? tokenFromAuthorization(entry.headers.Authorization) : undefined;
}

/** The parsed file for editing; `{}` when it does not exist yet. */
export function readJsonStrict(path: string): Record<string, unknown> {
  if (assertWritableTarget(path) === undefined) return {};
  const text = readFileSync(path, 'utf8');
  let value: unknown;
  try {
    value = JSON.parse(text) as unknown;
  } catch (error) {
    throw new CliError('CONFIG_INVALID', `Refusing to modify ${path}: the existing file is not valid JSON (${error instanceof Error ? error.message : String(error)}).`, {
      hint: FIX_HINT,
    });
  }
  if (!isObject(value)) throw new CliError('CONFIG_INVALID', `Refusing to modify ${path}: expected a JSON object at the top level.`, { hint: FIX_HINT });
  return value;
}

/** The `mcpServers` object of `container`, created when missing; refuses one of another type. */
export function serversForWrite(container: Record<string, unknown>, path: string): Record<string, unknown> {
  if (container.mcpServers === undefined) container.mcpServers = {};
  if (!isObject(container.mcpServers)) throw new CliError('CONFIG_INVALID', `Refusing to modify ${path}: 'mcpServers' is not an object.`, { hint: FIX_HINT });
  return container.mcpServers;
}

export function writeJson(path: string, doc: Record<string, unknown>, secure: boolean): void {
  atomicWrite(path, `${JSON.stringify(doc, null, 2)}\n`, secure);
}

/**
 * Sets mcpServers[name] = entry, keeping every other key and server. With `replaces` (an entry
 * of another name that passes its check), the new entry takes that entry's place in the object
 * and the old name is gone: a rename in place. Returns whether such a rename happened.
 */
export function writeServersEntry(
  path: string,
  name: string,
  entry: Record<string, unknown>,
  secure: boolean,
  replaces?: { name: string; matches: (value: unknown) => boolean },
): boolean {
  const doc = readJsonStrict(path);
  const servers = serversForWrite(doc, path);
  const renaming = replaces !== undefined && replaces.name !== name && replaces.name in servers && replaces.matches(servers[replaces.name]);
  if (renaming) {
    const rebuilt: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(servers)) {
      if (key === replaces.name) rebuilt[name] = entry;
      else if (key !== name) rebuilt[key] = value;
    }
    doc.mcpServers = rebuilt;
  } else {
    servers[name] = entry;
  }
  writeJson(path, doc, secure);
  return renaming;
}

/**
 * Deletes mcpServers[name] when its URL passes `matches` (any URL without a predicate). A missing
 * file or name is a no-op that rewrites nothing; the file keeps its mode.
 */
export function removeServersEntry(path: string, name: string, matches: ((url: string) => boolean) | undefined, urlOf = entryUrl): boolean {
  if (assertWritableTarget(path) === undefined) return false;
  const doc = readJsonStrict(path);
  if (!popEntry(doc, name, matches, urlOf)) return false;
  writeJson(path, doc, false);
  return true;
}

export function popEntry(container: unknown, name: string, matches: ((url: string) => boolean) | undefined, urlOf = entryUrl): boolean {
  if (!isObject(container) || !isObject(container.mcpServers) || !(name in container.mcpServers)) return false;
  if (matches) {
    const url = urlOf(container.mcpServers[name]);
    if (url === undefined || !matches(url)) return false;
  }
  delete container.mcpServers[name];
  return true;
}
