/**
 * @module knowledge/remote-sources/entry-reader
 * How a kind reads its settings entry: typed fields, secrets, key files, the shared options.
 *
 * An entry (one element of `KNOWLEDGE_CONTENT_SOURCES`, see registry.ts) has snake_case fields.
 * A kind's `fromSettings` reads each field it takes through the reader, which refuses a value of
 * the wrong type, a secret given inline instead of by the variable that holds it, or a variable
 * that is not set, each naming the entry and the field. Fields are read in the order the kind
 * asks for them, so that order decides which refusal a bad entry gets first; once the kind has
 * read its fields, `finish` refuses any field that no one read (a typo would otherwise silently
 * drop a setting).
 */
import { readFileSync } from 'node:fs';
import { ConfigurationError } from '../../errors.js';
import { namedVariable } from '../../settings/content-sources.js';
import type { Environment } from '../../settings/environment.js';
import type { RemoteSourceBaseOptions } from './remote-source.js';

/** `{key: value}`, or nothing when the value is absent. */
function optional<T>(value: T | undefined, key: string): Record<string, T> {
  return value === undefined ? {} : { [key]: value };
}

/** A settings entry as parsed, not yet checked. */
export type Entry = Readonly<Record<string, unknown>>;

/** Reads an entry's fields, remembering which were read so unknown ones can be refused. */
export class EntryReader {
  private readonly used = new Set<string>(['type']);

  constructor(
    readonly entry: Entry,
    readonly where: string,
    private readonly env: Readonly<Environment>,
  ) {}

  text(field: string): string | undefined {
    this.used.add(field);
    const value = this.entry[field];
    if (value === undefined || value === null) return undefined;
    if (typeof value !== 'string') throw new ConfigurationError(`${this.where}: ${field} must be a string`);
    return value;
  }

  required(field: string): string {
    const value = this.text(field);
    if (value === undefined || value.trim() === '') throw new ConfigurationError(`${this.where}: ${field} is required`);
    return value;
  }

  integer(field: string): number | undefined {
    this.used.add(field);
    const value = this.entry[field];
    if (value === undefined || value === null) return undefined;
    if (typeof value !== 'number' || !Number.isInteger(value)) throw new ConfigurationError(`${this.where}: ${field} must be a whole number`);
    return value;
  }

  /** An id given as a number or a string (GitHub's app and installation ids). */
  numberOrText(field: string): string | undefined {
    this.used.add(field);
    const value = this.entry[field];
    if (value === undefined || value === null) return undefined;
    if (typeof value === 'number' && Number.isInteger(value)) return String(value);
    if (typeof value === 'string') return value;
    throw new ConfigurationError(`${this.where}: ${field} must be a number or a string`);
  }

  boolean(field: string): boolean | undefined {
    this.used.add(field);
    const value = this.entry[field];
    if (value === undefined || value === null) return undefined;
    if (typeof value !== 'boolean') throw new ConfigurationError(`${this.where}: ${field} must be true or false`);
    return value;
  }

  /** A secret: `{field}_env` names the variable; `{field}` itself is refused. */
  secret(field: string): string | undefined {
    this.used.add(field);
    if (this.entry[field] !== undefined) throw new ConfigurationError(`${this.where}: ${field} must not be given inline; put it in an environment variable and name that variable in ${field}_env`);
    const variable = this.text(`${field}_env`);
    if (variable === undefined) return undefined;
    const value = namedVariable(this.env, variable);
    if (value === undefined) throw new ConfigurationError(`${this.where}: ${field}_env names the environment variable ${variable}, which is not set`);
    return value;
  }

  requiredSecret(field: string): string {
    const value = this.secret(field);
    if (value === undefined) throw new ConfigurationError(`${this.where}: ${field}_env is required (the environment variable holding ${field})`);
    return value;
  }

  /** A file path (a key file): not a secret itself, read at start. */
  file(field: string): string | undefined {
    const path = this.text(field);
    if (path === undefined) return undefined;
    try {
      return readFileSync(path, 'utf8');
    } catch (error) {
      throw new ConfigurationError(`${this.where}: ${field} cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
    }
  }

  /** What every kind shares. */
  base(): RemoteSourceBaseOptions {
    const metadata = this.entry.metadata;
    this.used.add('metadata');
    if (metadata !== undefined && metadata !== null && (typeof metadata !== 'object' || Array.isArray(metadata))) throw new ConfigurationError(`${this.where}: metadata must be an object`);
    return {
      id: this.required('id'),
      ...optional(this.text('name'), 'name'),
      ...(metadata ? { metadata: metadata as Record<string, unknown> } : {}),
      ...optional(this.text('prefix'), 'prefix'),
      ...optional(this.integer('timeout_ms'), 'timeoutMs'),
      ...optional(this.integer('connect_timeout_ms'), 'connectTimeoutMs'),
      ...optional(this.integer('max_retries'), 'maxRetries'),
      ...optional(this.integer('max_retry_delay_ms'), 'maxRetryDelayMs'),
      ...optional(this.integer('page_size'), 'pageSize'),
    };
  }

  /** Refuses fields no one read. */
  finish(): void {
    const unknown = Object.keys(this.entry).filter((k) => !this.used.has(k));
    if (unknown.length > 0) throw new ConfigurationError(`${this.where}: unknown field${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')}`);
  }
}
