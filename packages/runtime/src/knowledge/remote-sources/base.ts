/**
 * @module knowledge/remote-sources/base
 * What the five adapters share, as the base class every kind's class extends.
 *
 * Option checks, path normalisation and prefix confinement, source_params refusal, and a walk
 * built on flat listings for the storage kinds (whose listings are in key order, so the walk's
 * order is stable).
 */
import { ConfigurationError } from '../../errors.js';
import { SourceHttp } from './http.js';
import type { RemoteCallOptions, RemoteFile, RemoteListOptions, RemoteListPage, RemoteDownload, RemoteSource, RemoteSourceBaseOptions, RemoteSourceType } from './remote-source.js';
import type { HostResolver } from '../../net/safe-fetch.js';

const SOURCE_ID = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/;
const MAX_PATH = 1024;
export const DEFAULT_LIST_LIMIT = 100;
export const MAX_LIST_LIMIT = 1000;

/** Defaults of the HTTP behaviour (see RemoteSourceBaseOptions). */
const DEFAULTS = { timeoutMs: 30_000, connectTimeoutMs: 10_000, maxRetries: 3, maxRetryDelayMs: 30_000 };

export abstract class BaseRemoteSource implements RemoteSource {
  readonly id: string;
  readonly name: string;
  abstract readonly type: RemoteSourceType;
  readonly metadata: Record<string, unknown> | null;
  readonly prefix: string | null;
  /** Set by each adapter's constructor once it knows its origins. */
  protected http!: SourceHttp;
  /** Names source_params may use; none unless an adapter says so. */
  protected readonly paramNames: readonly string[] = [];
  /** Host resolution for tests (a name that must resolve to loopback); not part of the public options. */
  protected readonly resolve: HostResolver | undefined;

  constructor(
    protected readonly options: RemoteSourceBaseOptions & { resolve?: HostResolver },
    kind: string,
  ) {
    if (typeof options.id !== 'string' || !SOURCE_ID.test(options.id)) {
      throw new ConfigurationError(`${kind} source id "${String(options.id)}" must be 1-128 letters, digits, ".", "_" or "-", starting with a letter or digit`);
    }
    this.id = options.id;
    this.name = options.name ?? options.id;
    if (options.metadata !== undefined && options.metadata !== null && (typeof options.metadata !== 'object' || Array.isArray(options.metadata))) {
      throw new ConfigurationError(`${this.where()}: metadata must be an object`);
    }
    this.metadata = options.metadata ? { ...options.metadata } : null;
    this.prefix = options.prefix ? this.normalisePrefix(options.prefix) : null;
    for (const [field, max] of [
      ['timeoutMs', 600_000],
      ['connectTimeoutMs', 600_000],
      ['maxRetries', 10],
      ['maxRetryDelayMs', 3_600_000],
      ['pageSize', MAX_LIST_LIMIT],
    ] as const) {
      const value = options[field];
      const min = field === 'pageSize' ? 1 : 0;
      if (value !== undefined && (!Number.isInteger(value) || value < min || value > max)) throw new ConfigurationError(`${this.where()}: ${field} must be a whole number from ${min} to ${max}`);
    }
    this.resolve = options.resolve;
  }

  protected where(): string {
    return `remote source "${this.options.id}"`;
  }

  /** Builds the HTTP client for these origins. */
  protected makeHttp(origins: readonly string[], secrets: () => readonly (string | undefined)[]): SourceHttp {
    return new SourceHttp({
      sourceId: this.id,
      type: this.type,
      origins,
      timeoutMs: this.options.timeoutMs ?? DEFAULTS.timeoutMs,
      connectTimeoutMs: this.options.connectTimeoutMs ?? DEFAULTS.connectTimeoutMs,
      maxRetries: this.options.maxRetries ?? DEFAULTS.maxRetries,
      maxRetryDelayMs: this.options.maxRetryDelayMs ?? DEFAULTS.maxRetryDelayMs,
      logger: this.options.logger,
      secrets,
      resolve: this.resolve,
    });
  }

  private normalisePrefix(raw: string): string {
    if (typeof raw !== 'string') throw new ConfigurationError(`${this.where()}: prefix must be a string`);
    const problem = pathProblem(raw.replace(/^\/+/, ''));
    if (problem) throw new ConfigurationError(`${this.where()}: prefix ${problem}`);
    const trimmed = raw.replace(/^\/+/, '');
    return trimmed === '' ? '' : trimmed.endsWith('/') ? trimmed : `${trimmed}/`;
  }

  /** Characters a kind refuses in a path beyond the generic rules (SharePoint's reserved ones). */
  protected pathRule(_path: string): string | undefined {
    return undefined;
  }

  check(path: string, params?: Readonly<Record<string, unknown>>): string {
    this.checkParams(params);
    if (typeof path !== 'string') throw this.http.invalid(String(path), 'the path must be a string');
    const trimmed = path.replace(/^\/+/, '');
    const problem = pathProblem(trimmed) ?? this.pathRule(trimmed);
    if (problem) throw this.http.invalid(path.slice(0, 200), `the path ${problem}`);
    const root = this.prefix ?? '';
    if (trimmed === '') return root;
    if (!trimmed.startsWith(root)) throw this.http.invalid(trimmed, `the path is outside the source's prefix "${root}"`);
    return trimmed;
  }

  /** source_params: none unless the kind names some (GitHub's repo and branch). */
  protected checkParams(params: Readonly<Record<string, unknown>> | undefined): void {
    if (params === undefined || params === null) return;
    if (typeof params !== 'object' || Array.isArray(params)) throw this.http.invalid('', 'source_params must be a JSON object');
    const keys = Object.keys(params);
    if (keys.length === 0) return;
    if (this.paramNames.length === 0) throw this.http.invalid('', `source type '${this.type}' does not accept source_params`);
    const unknown = keys.filter((k) => !this.paramNames.includes(k));
    if (unknown.length > 0) throw this.http.invalid('', `unknown source_params ${unknown.map((k) => `'${k}'`).join(', ')}; allowed: ${this.paramNames.map((k) => `'${k}'`).join(', ')}`);
  }

  /** The folder a listing is for: "" (or none) is the source's root. */
  protected folderFor(options: RemoteListOptions): string {
    const folder = this.check(options.prefix ?? '', options.params);
    // A listing prefix need not be a whole folder ("reports/2024-" lists what starts with it).
    return folder;
  }

  protected listLimit(limit: number | undefined): number {
    const value = limit ?? DEFAULT_LIST_LIMIT;
    if (!Number.isInteger(value) || value < 1 || value > MAX_LIST_LIMIT) throw this.http.invalid('', `limit must be a whole number from 1 to ${MAX_LIST_LIMIT}`);
    return value;
  }

  protected checkDelimiter(delimiter: string | undefined, only?: readonly string[]): string {
    const value = delimiter ?? '/';
    if (typeof value !== 'string' || value.length > 8 || [...value].some((c) => c.charCodeAt(0) < 0x20)) throw this.http.invalid('', 'the delimiter must be at most 8 printable characters');
    if (only && !only.includes(value)) throw this.http.invalid('', `a ${this.type} source lists with the delimiter ${only.map((d) => `"${d}"`).join(' or ')}`);
    return value;
  }

  abstract list(options: RemoteListOptions): Promise<RemoteListPage>;
  abstract download(path: string, options: RemoteCallOptions & { maxBytes: number }): Promise<RemoteDownload>;
  abstract identity(path: string, params?: Readonly<Record<string, unknown>>): string;
  abstract describe(file: RemoteFile, params?: Readonly<Record<string, unknown>>): Record<string, unknown>;

  /** Flat listings of everything under the folder, page by page, in the provider's key order. */
  async *walk(folder: string, options: RemoteCallOptions & { maxFiles?: number } = {}): AsyncIterable<RemoteFile> {
    const prefix = this.check(folder, options.params);
    const max = options.maxFiles ?? Number.POSITIVE_INFINITY;
    let yielded = 0;
    let token: string | undefined;
    do {
      const page = await this.list({ ...options, prefix, delimiter: '', limit: this.options.pageSize ?? MAX_LIST_LIMIT, ...(token ? { page_token: token } : {}) });
      for (const file of page.files) {
        if (yielded >= max) return;
        yielded++;
        yield file;
      }
      token = page.next_page;
    } while (token && yielded < max);
  }
}

/** Why a (leading-slash-free) path is refused, or undefined. */
export function pathProblem(path: string): string | undefined {
  if (path.length > MAX_PATH) return `is longer than ${MAX_PATH} characters`;
  if ([...path].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f)) return 'contains a control character';
  const segments = path.split('/');
  // The last segment is empty for a folder ("a/b/").
  if (segments.slice(0, -1).some((s) => s === '')) return 'has an empty segment ("//")';
  if (segments.some((s) => s === '.' || s === '..')) return 'has a "." or ".." segment';
  return undefined;
}

/** The last segment of a path, without a trailing slash. */
export function baseName(path: string): string {
  const trimmed = path.endsWith('/') ? path.slice(0, -1) : path;
  return trimmed.slice(trimmed.lastIndexOf('/') + 1);
}

/** Picks `key` out of settings, as a non-empty trimmed string. */
export function requiredText(value: unknown, field: string, where: string): string {
  if (typeof value !== 'string' || value.trim() === '') throw new ConfigurationError(`${where}: ${field} is required`);
  return value.trim();
}

export function optionalText(value: unknown, field: string, where: string): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw new ConfigurationError(`${where}: ${field} must be a string`);
  return value.trim() === '' ? undefined : value.trim();
}
