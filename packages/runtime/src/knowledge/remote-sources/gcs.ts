/**
 * @module knowledge/remote-sources/gcs
 * Google Cloud Storage through its JSON API with plain fetch.
 *
 * The client library would bring in dozens of packages for three calls: objects.list (`prefix`,
 * `delimiter`, `pageToken`, `maxResults`) and the media download (`alt=media`).
 *
 * Auth: an access token given as is, or a service-account key: an RS256 JWT assertion
 * (`iss` the client email, `scope` read-only storage, `aud` the key's token_uri) exchanged at the
 * key's `token_uri` for an access token, cached until shortly before it expires. The token URI
 * comes from the operator's key file and is held to the same rule as the endpoint (https, or
 * loopback for emulators and tests).
 */
import type { KeyObject } from 'node:crypto';
import { ConfigurationError } from '../../errors.js';
import type { FetchedResource } from '../../net/safe-fetch.js';
import { BaseRemoteSource, baseName, optionalText, requiredText } from './base.js';
import { jsonOf, settingUrl, under, type SourceRequest } from './http.js';
import { defineRemoteSource } from './kind.js';
import type { RemoteCallOptions, RemoteDownload, RemoteFile, RemoteListOptions, RemoteListPage, RemoteSourceBaseOptions } from './remote-source.js';
import { TokenCache, privateKeyFrom, requestToken, signJwt } from './tokens.js';

/** The fields of a service-account key file the runtime uses. */
export interface GcsServiceAccountKey {
  client_email: string;
  private_key: string;
  private_key_id?: string;
  /** Default https://oauth2.googleapis.com/token. */
  token_uri?: string;
}

export interface GcsSourceOptions extends RemoteSourceBaseOptions {
  bucket: string;
  /** Recorded with ingested content; requests do not need it. */
  project?: string;
  /** Exactly one of a service-account key and an access token. */
  serviceAccountKey?: GcsServiceAccountKey;
  accessToken?: string;
  /** Default https://storage.googleapis.com (an emulator, a test server). */
  endpoint?: string;
}

const SCOPE = 'https://www.googleapis.com/auth/devstorage.read_only';
const MAX_LISTING_BYTES = 16 * 1024 * 1024;
const BUCKET = /^[a-z0-9][a-z0-9._-]{1,220}[a-z0-9]$/;

interface GcsObject {
  name?: unknown;
  size?: unknown;
  md5Hash?: unknown;
  crc32c?: unknown;
  generation?: unknown;
  updated?: unknown;
  contentType?: unknown;
}

/** `notFound: No such object: b/k` from a JSON API error body. */
function gcsErrorText(body: unknown): string | undefined {
  const error = (body as { error?: { message?: unknown; errors?: { reason?: unknown }[] } } | undefined)?.error;
  if (!error) return undefined;
  const reason = error.errors?.[0]?.reason;
  const message = typeof error.message === 'string' ? error.message : undefined;
  return [typeof reason === 'string' ? reason : undefined, message].filter(Boolean).join(': ') || undefined;
}

/** The md5 (else crc32c) from `x-goog-hash: crc32c=...,md5=...`, matching the listing's version. */
function hashHeader(value: string | undefined, kind: 'md5' | 'crc32c'): string | undefined {
  for (const part of (value ?? '').split(',')) {
    const [name, ...rest] = part.trim().split('=');
    if (name === kind) return rest.join('=');
  }
  return undefined;
}

export class GcsSource extends BaseRemoteSource {
  readonly type = 'gcs' as const;
  readonly bucket: string;
  readonly project: string | undefined;
  private readonly endpoint: URL;
  private readonly tokenUrl: URL | undefined;
  private readonly tokens: TokenCache | undefined;
  private readonly staticToken: string | undefined;

  constructor(options: GcsSourceOptions) {
    super(options, 'gcs');
    const where = this.where();
    this.bucket = requiredText(options.bucket, 'bucket', where);
    if (!BUCKET.test(this.bucket) || this.bucket.includes('..')) throw new ConfigurationError(`${where}: bucket "${this.bucket}" is not a valid bucket name`);
    this.project = optionalText(options.project, 'project', where);
    this.endpoint = settingUrl(options.endpoint ?? 'https://storage.googleapis.com', 'endpoint', where);
    const key = options.serviceAccountKey;
    this.staticToken = optionalText(options.accessToken, 'accessToken', where);
    if ((key === undefined) === (this.staticToken === undefined)) throw new ConfigurationError(`${where}: give exactly one of serviceAccountKey and accessToken`);
    let privateKey: KeyObject | undefined;
    let email: string | undefined;
    let keyId: string | undefined;
    if (key !== undefined) {
      if (typeof key !== 'object' || key === null) throw new ConfigurationError(`${where}: serviceAccountKey must be the key file's JSON object`);
      email = requiredText(key.client_email, 'serviceAccountKey.client_email', where);
      privateKey = privateKeyFrom(requiredText(key.private_key, 'serviceAccountKey.private_key', where), `${where}: serviceAccountKey.private_key`);
      keyId = optionalText(key.private_key_id, 'serviceAccountKey.private_key_id', where);
      this.tokenUrl = settingUrl(optionalText(key.token_uri, 'serviceAccountKey.token_uri', where) ?? 'https://oauth2.googleapis.com/token', 'serviceAccountKey.token_uri', where);
    }
    const secretKey = key?.private_key;
    this.http = this.makeHttp([this.endpoint.origin, ...(this.tokenUrl ? [this.tokenUrl.origin] : [])], () => [this.staticToken, secretKey, ...this.liveTokens()]);
    if (privateKey && email && this.tokenUrl) {
      const tokenUrl = this.tokenUrl.href;
      const pem = privateKey;
      this.tokens = new TokenCache(async () => {
        const now = Math.floor(Date.now() / 1000);
        const assertion = await signJwt(keyId ? { kid: keyId } : {}, { iss: email, scope: SCOPE, aud: tokenUrl, iat: now, exp: now + 3600 }, pem);
        return requestToken(this.http, tokenUrl, { grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion }, undefined);
      });
    }
  }

  private issued: string[] = [];

  /** Tokens issued so far (the last few), to cut out of messages. */
  private liveTokens(): string[] {
    return this.issued;
  }

  private async authHeaders(): Promise<Record<string, string>> {
    const token = this.staticToken ?? (await this.tokens!.get());
    if (!this.issued.includes(token)) this.issued = [token, ...this.issued].slice(0, 4);
    return { authorization: `Bearer ${token}` };
  }

  private call(url: string, path: string, maxBytes: number, signal: AbortSignal | undefined): Promise<FetchedResource> {
    const request: SourceRequest = {
      url,
      path,
      maxBytes,
      signal,
      headers: { accept: 'application/json' },
      auth: () => this.authHeaders(),
      ...(this.tokens ? { reauth: () => this.tokens!.invalidate() } : {}),
      explain: (response) => gcsErrorText(jsonOf(response)),
    };
    return this.http.request(request);
  }

  async list(options: RemoteListOptions): Promise<RemoteListPage> {
    const prefix = this.folderFor(options);
    const limit = this.listLimit(options.limit);
    const delimiter = this.checkDelimiter(options.delimiter);
    const url = under(this.endpoint, `/storage/v1/b/${encodeURIComponent(this.bucket)}/o`, {
      prefix: prefix || undefined,
      delimiter: delimiter || undefined,
      maxResults: String(limit),
      pageToken: options.page_token,
    });
    const answer = await this.call(url, prefix, MAX_LISTING_BYTES, options.signal);
    const body = jsonOf(answer) as { items?: unknown; prefixes?: unknown; nextPageToken?: unknown } | undefined;
    if (!body || typeof body !== 'object') throw this.http.badAnswer(prefix, 'the objects list is not JSON');
    const items = Array.isArray(body.items) ? (body.items as GcsObject[]) : [];
    const files: RemoteFile[] = [];
    for (const item of items) {
      if (typeof item.name !== 'string' || item.name.endsWith('/')) continue;
      const size = typeof item.size === 'string' || typeof item.size === 'number' ? Number(item.size) : undefined;
      const version = [item.md5Hash, item.crc32c, item.generation].find((v): v is string => typeof v === 'string' && v !== '');
      const modified = typeof item.updated === 'string' ? Date.parse(item.updated) : NaN;
      files.push({
        path: item.name,
        name: baseName(item.name),
        ...(size !== undefined && Number.isFinite(size) ? { size } : {}),
        ...(version ? { version } : {}),
        ...(Number.isFinite(modified) ? { modified_at: modified } : {}),
        ...(typeof item.contentType === 'string' ? { content_type: item.contentType } : {}),
      });
    }
    const folders = (Array.isArray(body.prefixes) ? body.prefixes : []).filter((p): p is string => typeof p === 'string').map((p) => ({ path: p, name: baseName(p) }));
    const next = typeof body.nextPageToken === 'string' && body.nextPageToken !== '' ? body.nextPageToken : undefined;
    return { files, folders, ...(next ? { next_page: next } : {}) };
  }

  async download(path: string, options: RemoteCallOptions & { maxBytes: number }): Promise<RemoteDownload> {
    const name = this.check(path, options.params);
    if (name === '' || name.endsWith('/')) throw this.http.invalid(name, 'the path is a folder, not an object');
    const url = under(this.endpoint, `/storage/v1/b/${encodeURIComponent(this.bucket)}/o/${encodeURIComponent(name)}`, { alt: 'media' });
    const answer = await this.call(url, name, options.maxBytes, options.signal);
    const hash = answer.headers['x-goog-hash'];
    const version = hashHeader(hash, 'md5') ?? hashHeader(hash, 'crc32c') ?? answer.headers['x-goog-generation'];
    const type = answer.headers['content-type'];
    return { bytes: answer.body, ...(type ? { content_type: type } : {}), ...(version ? { version } : {}) };
  }

  identity(path: string, params?: Readonly<Record<string, unknown>>): string {
    return `gcs:${this.bucket}:${this.check(path, params)}`;
  }

  describe(file: RemoteFile): Record<string, unknown> {
    return {
      source_type: 'gcs',
      source_config_id: this.id,
      source_config_name: this.name,
      gcs_bucket: this.bucket,
      gcs_blob_name: file.path,
      ...(this.project ? { gcs_project: this.project } : {}),
      url: `gs://${this.bucket}/${file.path}`,
      ...(file.version ? { version: file.version } : {}),
    };
  }
}

/**
 * Google Cloud Storage as `KNOWLEDGE_CONTENT_SOURCES` configures it: `bucket_name` (or `bucket`),
 * `project`, `endpoint`, and `service_account_key_env` or `credentials_path` (a key file), or
 * `access_token_env`.
 */
export const GCS_KIND = defineRemoteSource({
  type: 'gcs',
  aliases: ['google_cloud_storage'],
  fromSettings: (e) => {
    const keyText = e.secret('service_account_key') ?? e.file('credentials_path');
    let serviceAccountKey: GcsServiceAccountKey | undefined;
    if (keyText !== undefined) {
      try {
        serviceAccountKey = JSON.parse(keyText) as GcsServiceAccountKey;
      } catch {
        throw new ConfigurationError(`${e.where}: the service account key is not JSON (a key file as Google issues it)`);
      }
    }
    const accessToken = e.secret('access_token');
    const project = e.text('project');
    const endpoint = e.text('endpoint');
    return new GcsSource({
      ...e.base(),
      bucket: e.text('bucket') ?? e.required('bucket_name'),
      ...(project ? { project } : {}),
      ...(endpoint ? { endpoint } : {}),
      ...(serviceAccountKey ? { serviceAccountKey } : {}),
      ...(accessToken ? { accessToken } : {}),
    });
  },
});
