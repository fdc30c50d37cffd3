/**
 * @module knowledge/remote-sources/registry
 * How a settings entry (from `KNOWLEDGE_CONTENT_SOURCES`) becomes a source of a listed kind.
 *
 * Nothing here names a kind (see list.ts): an entry's `type` finds its kind by type or alias,
 * the kind's `fromSettings` reads the entry (entry-reader.ts), then fields it did not read are
 * refused.
 *
 * `KNOWLEDGE_CONTENT_SOURCES` holds a JSON array, or the path of a JSON file holding one;
 * settings/content-sources reads it. Each entry is `{id, type, name?, metadata?, prefix?,
 * ...settings}` with snake_case settings. Secrets are never inline: an entry names the
 * environment variable that holds each one (`secret_access_key_env: "DOCS_S3_SECRET"`), so the
 * file can be committed and the variable injected. A secret given inline is refused, as is an
 * unknown field (a typo would otherwise silently drop a setting); every refusal names the entry
 * and the field, and fails the start.
 */
import { ConfigurationError } from '../../errors.js';
import { CONTENT_SOURCES_VARIABLE, readContentSourcesSetting } from '../../settings/content-sources.js';
import type { Environment } from '../../settings/environment.js';
import { EntryReader, type Entry } from './entry-reader.js';
import type { RemoteSourceKind } from './kind.js';
import { REMOTE_SOURCE_KINDS } from './list.js';
import { checkUniqueIds, type RemoteSource } from './remote-source.js';

/** The kinds by type, spelled exactly. */
const BY_TYPE = new Map<string, RemoteSourceKind>(REMOTE_SOURCE_KINDS.map((kind) => [kind.type, kind]));

/** The kinds by their other spellings, matched by an entry's type lower-cased. */
const BY_ALIAS = new Map<string, RemoteSourceKind>();
for (const kind of REMOTE_SOURCE_KINDS) {
  for (const alias of kind.aliases) {
    if (alias !== alias.toLowerCase() || BY_ALIAS.has(alias) || BY_TYPE.has(alias)) throw new Error(`remote source kind ${kind.type}: the alias "${alias}" must be lower-case, and neither a type nor another alias`);
    BY_ALIAS.set(alias, kind);
  }
}

/** For messages: "s3, gcs, azureblob, sharepoint, github". */
const KIND_NAMES = REMOTE_SOURCE_KINDS.map((kind) => kind.type).join(', ');

/** One source from one settings entry. */
export function remoteSourceFromSettings(entry: unknown, env: Readonly<Environment> = process.env, label = 'content source'): RemoteSource {
  if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) throw new ConfigurationError(`${label} must be a JSON object`);
  const fields = entry as Entry;
  const where = typeof fields.id === 'string' ? `${label} "${fields.id}"` : label;
  const raw = fields.type;
  if (typeof raw !== 'string') throw new ConfigurationError(`${where}: type is required (one of ${KIND_NAMES})`);
  const kind = BY_TYPE.get(raw) ?? BY_ALIAS.get(raw.toLowerCase());
  if (!kind) throw new ConfigurationError(`${where}: type "${raw}" is not one of ${KIND_NAMES}`);
  const reader = new EntryReader(fields, where, env);
  const source = kind.fromSettings(reader);
  reader.finish();
  return source;
}

/** Sources from a parsed JSON array; ids must be unique. */
export function remoteSourcesFromSettings(entries: unknown, env: Readonly<Environment> = process.env, origin = CONTENT_SOURCES_VARIABLE): RemoteSource[] {
  if (!Array.isArray(entries)) throw new ConfigurationError(`${origin} must be a JSON array of content sources`);
  const sources = entries.map((entry, index) => remoteSourceFromSettings(entry, env, `${origin}[${index}]`));
  checkUniqueIds(sources, origin);
  return sources;
}

/** `KNOWLEDGE_CONTENT_SOURCES` (settings/content-sources): JSON, or the path of a JSON file; none when unset. */
export function remoteSourcesFromEnvironment(env: Readonly<Environment> = process.env): RemoteSource[] {
  const setting = readContentSourcesSetting(env);
  return setting ? remoteSourcesFromSettings(setting.entries, env, setting.origin) : [];
}
