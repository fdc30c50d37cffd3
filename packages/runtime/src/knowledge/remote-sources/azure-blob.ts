/**
 * @module knowledge/remote-sources/azure-blob
 * Azure Blob Storage through its REST API with plain fetch.
 *
 * List Blobs (XML; `prefix`, `delimiter`, `marker` from `NextMarker`, `maxresults`) and Get
 * Blob, each with `x-ms-version`.
 *
 * Auth is exactly one of a SAS token (its query parameters added to every request URL, so it is
 * cut out of every message like any secret) and a service principal: a client-credentials token
 * for `https://storage.azure.com/.default` from the Microsoft identity platform at the
 * configured authority host, sent as a bearer token and cached until shortly before expiry.
 *
 * The endpoint may carry a path: Azurite and other emulators put the account in it
 * (`http://127.0.0.1:10000/devstoreaccount1`).
 */
import { XMLParser } from 'fast-xml-parser';
import { ConfigurationError } from '../../errors.js';
import type { FetchedResource } from '../../net/safe-fetch.js';
import { BaseRemoteSource, baseName, optionalText, requiredText } from './base.js';
import { encodePath, settingUrl, textOf, type SourceRequest } from './http.js';
import { defineRemoteSource } from './kind.js';
import type { RemoteCallOptions, RemoteDownload, RemoteFile, RemoteFolder, RemoteListOptions, RemoteListPage, RemoteSourceBaseOptions } from './remote-source.js';
import { TokenCache, requestToken } from './tokens.js';

export interface AzureServicePrincipal {
  tenantId: string;
  clientId: string;
  clientSecret: string;
}

export interface AzureBlobSourceOptions extends RemoteSourceBaseOptions {
  account: string;
  container: string;
  /** Exactly one of a SAS token and a service principal. */
  sasToken?: string;
  servicePrincipal?: AzureServicePrincipal;
  /** Default https://{account}.blob.core.windows.net. */
  endpoint?: string;
  /** Default https://login.microsoftonline.com. */
  authorityHost?: string;
}

export const AZURE_STORAGE_VERSION = '2023-11-03';
const MAX_LISTING_BYTES = 16 * 1024 * 1024;

const xml = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@',
  parseTagValue: false,
  processEntities: true,
  isArray: (name) => name === 'Blob' || name === 'BlobPrefix',
});

type XmlNode = Record<string, unknown>;

/** A `<Name>` element: text, or `{#text, @Encoded}` when the service percent-encoded a name XML cannot carry. */
function nameOf(node: unknown): string | undefined {
  if (typeof node === 'string') return node;
  if (typeof node === 'object' && node !== null) {
    const text = (node as XmlNode)['#text'];
    if (typeof text !== 'string') return undefined;
    return (node as XmlNode)['@Encoded'] === 'true' ? decodeURIComponent(text) : text;
  }
  return undefined;
}

/** `BlobNotFound: The specified blob does not exist.` (the message's first line; the rest is a request id and a time). */
function azureErrorText(response: FetchedResource): string | undefined {
  const text = textOf(response);
  const code = /<Code>([^<]*)<\/Code>/.exec(text)?.[1] ?? response.headers['x-ms-error-code'];
  const message = /<Message>([^<]*)<\/Message>/.exec(text)?.[1]?.split(/\r?\n/)[0];
  return code ? `${code}${message ? `: ${message}` : ''}` : undefined;
}

export class AzureBlobSource extends BaseRemoteSource {
  readonly type = 'azureblob' as const;
  readonly account: string;
  readonly container: string;
  private readonly containerUrl: URL;
  private readonly sas: URLSearchParams | undefined;
  private readonly tokens: TokenCache | undefined;

  constructor(options: AzureBlobSourceOptions) {
    super(options, 'azureblob');
    const where = this.where();
    this.account = requiredText(options.account, 'account', where);
    if (!/^[a-z0-9]{3,24}$/.test(this.account)) throw new ConfigurationError(`${where}: account "${this.account}" is not a storage account name (3-24 lower-case letters and digits)`);
    this.container = requiredText(options.container, 'container', where);
    if (!/^[a-z0-9](?:[a-z0-9]|-(?!-)){1,61}[a-z0-9]$/.test(this.container)) throw new ConfigurationError(`${where}: container "${this.container}" is not a container name`);
    const endpoint = settingUrl(options.endpoint ?? `https://${this.account}.blob.core.windows.net`, 'endpoint', where);
    this.containerUrl = new URL(`${endpoint.href.replace(/\/+$/, '')}/${this.container}`);
    const sasToken = optionalText(options.sasToken, 'sasToken', where);
    const principal = options.servicePrincipal;
    if ((sasToken === undefined) === (principal === undefined)) throw new ConfigurationError(`${where}: give exactly one of sasToken and servicePrincipal (tenantId, clientId, clientSecret)`);
    let tokenUrl: URL | undefined;
    let clientSecret: string | undefined;
    if (sasToken !== undefined) {
      this.sas = new URLSearchParams(sasToken.replace(/^\?/, ''));
      if (!this.sas.get('sig')) throw new ConfigurationError(`${where}: sasToken has no signature (sig); give the token's query string`);
    } else {
      const tenantId = requiredText(principal?.tenantId, 'servicePrincipal.tenantId', where);
      const clientId = requiredText(principal?.clientId, 'servicePrincipal.clientId', where);
      clientSecret = requiredText(principal?.clientSecret, 'servicePrincipal.clientSecret', where);
      if (!/^[A-Za-z0-9.-]{1,100}$/.test(tenantId)) throw new ConfigurationError(`${where}: servicePrincipal.tenantId must be a tenant id or domain`);
      const authority = settingUrl(options.authorityHost ?? 'https://login.microsoftonline.com', 'authorityHost', where);
      tokenUrl = new URL(`${authority.href.replace(/\/+$/, '')}/${tenantId}/oauth2/v2.0/token`);
      const secret = clientSecret;
      this.tokens = new TokenCache(() =>
        requestToken(this.http, tokenUrl!.href, { grant_type: 'client_credentials', client_id: clientId, client_secret: secret, scope: 'https://storage.azure.com/.default' }, undefined),
      );
    }
    const sasValues = this.sas ? [sasToken, this.sas.get('sig') ?? undefined] : [];
    this.http = this.makeHttp([endpoint.origin, ...(tokenUrl ? [tokenUrl.origin] : [])], () => [...sasValues, clientSecret, ...this.issued]);
  }

  private issued: string[] = [];

  private url(path: string, query: Record<string, string | undefined>): string {
    const url = new URL(this.containerUrl.href);
    if (path) url.pathname = `${url.pathname}/${encodePath(path)}`;
    for (const [k, v] of Object.entries(query)) if (v !== undefined) url.searchParams.set(k, v);
    if (this.sas) for (const [k, v] of this.sas) url.searchParams.set(k, v);
    return url.href;
  }

  private call(url: string, path: string, maxBytes: number, signal: AbortSignal | undefined): Promise<FetchedResource> {
    const request: SourceRequest = {
      url,
      path,
      maxBytes,
      signal,
      headers: { 'x-ms-version': AZURE_STORAGE_VERSION },
      credentials: this.sas !== undefined,
      explain: azureErrorText,
      ...(this.tokens
        ? {
            auth: async () => {
              const token = await this.tokens!.get();
              if (!this.issued.includes(token)) this.issued = [token, ...this.issued].slice(0, 4);
              return { authorization: `Bearer ${token}` };
            },
            reauth: () => this.tokens!.invalidate(),
          }
        : {}),
    };
    return this.http.request(request);
  }

  async list(options: RemoteListOptions): Promise<RemoteListPage> {
    const prefix = this.folderFor(options);
    const limit = this.listLimit(options.limit);
    const delimiter = this.checkDelimiter(options.delimiter);
    const url = this.url('', {
      restype: 'container',
      comp: 'list',
      prefix: prefix || undefined,
      delimiter: delimiter || undefined,
      marker: options.page_token,
      maxresults: String(limit),
    });
    const answer = await this.call(url, prefix, MAX_LISTING_BYTES, options.signal);
    let root: XmlNode | undefined;
    try {
      root = (xml.parse(textOf(answer)) as XmlNode).EnumerationResults as XmlNode | undefined;
    } catch {
      root = undefined;
    }
    if (!root || typeof root !== 'object') throw this.http.badAnswer(prefix, 'the blob list is not an EnumerationResults document');
    const blobs = (root.Blobs ?? {}) as XmlNode;
    const files: RemoteFile[] = [];
    for (const blob of (blobs.Blob ?? []) as XmlNode[]) {
      const name = nameOf(blob.Name);
      if (!name || name.endsWith('/')) continue;
      const props = (blob.Properties ?? {}) as XmlNode;
      const size = Number(props['Content-Length']);
      const modified = typeof props['Last-Modified'] === 'string' ? Date.parse(props['Last-Modified']) : NaN;
      const etag = typeof props.Etag === 'string' ? props.Etag.replace(/^"|"$/g, '') : undefined;
      const type = typeof props['Content-Type'] === 'string' && props['Content-Type'] !== '' ? props['Content-Type'] : undefined;
      files.push({
        path: name,
        name: baseName(name),
        ...(Number.isFinite(size) && props['Content-Length'] !== undefined ? { size } : {}),
        ...(etag ? { version: etag } : {}),
        ...(Number.isFinite(modified) ? { modified_at: modified } : {}),
        ...(type ? { content_type: type } : {}),
      });
    }
    const folders: RemoteFolder[] = [];
    for (const entry of (blobs.BlobPrefix ?? []) as XmlNode[]) {
      const name = nameOf(entry.Name);
      if (name) folders.push({ path: name, name: baseName(name) });
    }
    const next = typeof root.NextMarker === 'string' && root.NextMarker !== '' ? root.NextMarker : undefined;
    return { files, folders, ...(next ? { next_page: next } : {}) };
  }

  async download(path: string, options: RemoteCallOptions & { maxBytes: number }): Promise<RemoteDownload> {
    const name = this.check(path, options.params);
    if (name === '' || name.endsWith('/')) throw this.http.invalid(name, 'the path is a folder, not a blob');
    const answer = await this.call(this.url(name, {}), name, options.maxBytes, options.signal);
    const version = answer.headers.etag?.replace(/^"|"$/g, '');
    const type = answer.headers['content-type'];
    return { bytes: answer.body, ...(type ? { content_type: type } : {}), ...(version ? { version } : {}) };
  }

  identity(path: string, params?: Readonly<Record<string, unknown>>): string {
    return `azureblob:${this.account}/${this.container}:${this.check(path, params)}`;
  }

  describe(file: RemoteFile): Record<string, unknown> {
    return {
      source_type: 'azureblob',
      source_config_id: this.id,
      source_config_name: this.name,
      azure_storage_account: this.account,
      azure_container: this.container,
      azure_blob_name: file.path,
      ...(file.version ? { version: file.version } : {}),
    };
  }
}

/**
 * Azure Blob Storage as `KNOWLEDGE_CONTENT_SOURCES` configures it: `storage_account` (or `account`),
 * `container`, `endpoint`, and `sas_token_env` or a service principal (`tenant_id`, `client_id`,
 * `client_secret_env`, `authority_host`).
 */
export const AZURE_BLOB_KIND = defineRemoteSource({
  type: 'azureblob',
  aliases: ['azure_blob', 'azure'],
  fromSettings: (e) => {
    const sasToken = e.secret('sas_token');
    const tenantId = e.text('tenant_id');
    const clientId = e.text('client_id');
    const clientSecret = e.secret('client_secret');
    const endpoint = e.text('endpoint');
    const authorityHost = e.text('authority_host');
    const principal = tenantId !== undefined || clientId !== undefined || clientSecret !== undefined;
    if (principal && (tenantId === undefined || clientId === undefined || clientSecret === undefined)) {
      throw new ConfigurationError(`${e.where}: a service principal needs tenant_id, client_id and client_secret_env together`);
    }
    return new AzureBlobSource({
      ...e.base(),
      account: e.text('account') ?? e.required('storage_account'),
      container: e.required('container'),
      ...(sasToken ? { sasToken } : {}),
      ...(principal ? { servicePrincipal: { tenantId: tenantId!, clientId: clientId!, clientSecret: clientSecret! } } : {}),
      ...(endpoint ? { endpoint } : {}),
      ...(authorityHost ? { authorityHost } : {}),
    });
  },
});
