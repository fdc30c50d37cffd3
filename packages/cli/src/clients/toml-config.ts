/**
 * The cli-agent's TOML config, edited as text: a TOML round-trip through a parser would drop the
 * user's comments and layout, so only the lines of our own `[mcp_servers.<name>]` table change.
 * Every result is parsed again before it is written, so an edit can never leave a broken file.
 */
import { readFileSync } from 'node:fs';
import { parse as parseToml } from 'smol-toml';
import { CliError } from '../errors.js';
import { isObject } from '../util/json.js';
import { assertWritableTarget, atomicWrite, FIX_HINT } from './atomic-write.js';
import { tokenFromAuthorization } from './json-config.js';

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The spellings a key may take in TOML: bare, "double-quoted" or 'single-quoted'. */
function spellings(name: string): string {
  const n = escapeRegExp(name);
  return `(?:${n}|"${n}"|'${n}')`;
}

/**
 * Replaces the table of `name` under mcp_servers (and its dotted subtables, and an inline
 * `name = { ... }` line inside a bare `[mcp_servers]`) with `block`, keeping everything else.
 * The block goes where our first table header was, else at the end.
 * An empty block removes the entry. Comments and blank lines that end a dropped section stay,
 * since they usually describe what follows.
 */
export function replaceSection(text: string, name: string, block: string): string {
  const owned = new RegExp(`^\\[\\s*mcp_servers\\s*\\.\\s*${spellings(name)}\\s*(?:\\]|\\.)`);
  const inline = new RegExp(`^${spellings(name)}\\s*=\\s*\\{`);
  const lines = text.replace(/\r?\n$/, '').split(/\r?\n/);
  if (text === '') lines.length = 0;
  const out: string[] = [];
  let inOwned = false;
  let inServersTable = false;
  let dropped: string[] = [];
  let insertAt: number | undefined;
  for (const line of lines) {
    const trimmed = line.trim();
    if (trimmed.startsWith('[')) {
      if (owned.test(trimmed)) {
        insertAt ??= out.length;
        inOwned = true;
        inServersTable = false;
        dropped = [];
        continue;
      }
      if (inOwned) {
        // Give back the comments and blanks that trailed the dropped section.
        let keep = dropped.length;
        while (keep > 0 && /^\s*(#.*)?$/.test(dropped[keep - 1] ?? '')) keep -= 1;
        out.push(...dropped.slice(keep));
      }
      inOwned = false;
      dropped = [];
      inServersTable = /^\[\s*mcp_servers\s*\]/.test(trimmed);
      out.push(line);
      continue;
    }
    if (inOwned) {
      dropped.push(line);
      continue;
    }
    // Not an insertion point: a table header there would capture the keys that follow it.
    if (inServersTable && inline.test(trimmed)) continue;
    out.push(line);
  }
  if (block !== '') {
    const blockLines = block.replace(/\n$/, '').split('\n');
    if (insertAt === undefined) {
      if (out.length > 0 && out[out.length - 1]?.trim() !== '') out.push('');
      out.push(...blockLines);
    } else {
      // A block placed before following content needs a blank line to stay readable.
      const next = out[insertAt];
      out.splice(insertAt, 0, ...blockLines, ...(next !== undefined && next.trim() !== '' ? [''] : []));
    }
  }
  while (out.length > 0 && out[out.length - 1]?.trim() === '') out.pop();
  return out.length === 0 ? '' : `${out.join('\n')}\n`;
}

/** The table we write. Strings are JSON-escaped, which is valid for TOML basic strings. */
export function tomlBlock(name: string, url: string, token: string | undefined): string {
  const lines = [`[mcp_servers.${name}]`, `url = ${JSON.stringify(url)}`];
  if (token !== undefined) lines.push(`http_headers = { "Authorization" = ${JSON.stringify(`Bearer ${token}`)} }`);
  return `${lines.join('\n')}\n`;
}

export interface TomlEntry {
  url: string;
  token: string | undefined;
}

/** mcp_servers entries of a parsed document that have a usable URL. */
export function tomlEntries(doc: unknown): Map<string, TomlEntry> {
  const entries = new Map<string, TomlEntry>();
  const servers = isObject(doc) && isObject(doc.mcp_servers) ? doc.mcp_servers : {};
  for (const [name, value] of Object.entries(servers)) {
    if (!isObject(value) || typeof value.url !== 'string' || value.url === '') continue;
    let token: string | undefined;
    if (isObject(value.http_headers)) {
      // Header names are case-insensitive in HTTP, and the application reads them that way.
      const key = Object.keys(value.http_headers).find((k) => k.toLowerCase() === 'authorization');
      token = key === undefined ? undefined : tokenFromAuthorization(value.http_headers[key]);
    }
    entries.set(name, { url: value.url, token });
  }
  return entries;
}

export function readTomlLenient(path: string): Map<string, TomlEntry> {
  try {
    return tomlEntries(parseToml(readFileSync(path, 'utf8')));
  } catch {
    return new Map();
  }
}

function parseOrThrow(text: string, path: string, what: 'existing' | 'result'): unknown {
  try {
    return parseToml(text);
  } catch (error) {
    const detail = error instanceof Error ? error.message.split('\n')[0] : String(error);
    if (what === 'existing') throw new CliError('CONFIG_INVALID', `Refusing to modify ${path}: the existing TOML does not parse (${detail}).`, { hint: FIX_HINT });
    throw new CliError('CONFIG_INVALID', `Refusing to write ${path}: the resulting TOML would be invalid (${detail}).`, { hint: 'Remove the entry from the file manually, then re-run.' });
  }
}

function readStrict(path: string): string {
  return assertWritableTarget(path) === undefined ? '' : readFileSync(path, 'utf8');
}

/**
 * Writes our table for `name`. With `replaces` (an entry of another name whose URL passes its
 * check), the new table goes where that entry's table was and the old one is gone: a rename in
 * place. Returns whether such a rename happened.
 */
export function writeTomlEntry(
  path: string,
  name: string,
  url: string,
  token: string | undefined,
  replaces?: { name: string; matches: (url: string) => boolean },
): boolean {
  const text = readStrict(path);
  const doc = parseOrThrow(text, path, 'existing');
  const old = replaces && replaces.name !== name ? tomlEntries(doc).get(replaces.name) : undefined;
  const renaming = replaces !== undefined && old !== undefined && replaces.matches(old.url);
  const next = renaming ? replaceSection(replaceSection(text, name, ''), replaces.name, tomlBlock(name, url, token)) : replaceSection(text, name, tomlBlock(name, url, token));
  const after = parseOrThrow(next, path, 'result');
  if (renaming && isObject(after) && isObject(after.mcp_servers) && replaces.name in after.mcp_servers) {
    throw new CliError('CONFIG_INVALID', `Could not rename '${replaces.name}' in ${path}: unsupported TOML layout.`, { hint: 'Remove the entry from the file manually, then re-run.' });
  }
  atomicWrite(path, next, token !== undefined);
  return renaming;
}

/** Removes the entry when its URL passes `matches`; false when there was nothing to remove. */
export function removeTomlEntry(path: string, name: string, matches: ((url: string) => boolean) | undefined): boolean {
  if (assertWritableTarget(path) === undefined) return false;
  const text = readFileSync(path, 'utf8');
  const doc = parseOrThrow(text, path, 'existing');
  const servers = isObject(doc) && isObject(doc.mcp_servers) ? doc.mcp_servers : {};
  if (!(name in servers)) return false;
  if (matches) {
    const entry = tomlEntries(doc).get(name);
    if (!entry || !matches(entry.url)) return false;
  }
  const next = replaceSection(text, name, '');
  const after = parseOrThrow(next, path, 'result');
  // A layout the line scanner does not own (dotted keys such as `name.url = ...`) survives it.
  if (isObject(after) && isObject(after.mcp_servers) && name in after.mcp_servers) {
    throw new CliError('CONFIG_INVALID', `Could not remove '${name}' from ${path}: unsupported TOML layout.`, { hint: 'Remove the entry from the file manually.' });
  }
  atomicWrite(path, next, false);
  return true;
}
