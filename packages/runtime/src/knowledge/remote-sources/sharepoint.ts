/**
 * @module knowledge/remote-sources/sharepoint
 * A SharePoint document library through Microsoft Graph with plain fetch.
 *
 * Auth: an app registration's client-credentials token (scope `{graph origin}/.default`) from
 * the Microsoft identity platform at the configured authority host, cached until shortly before
 * it expires. The site is `siteId`, or looked up once by `hostname` and `sitePath`
 * (`GET /sites/{hostname}:{path}`, the root site without a path); the drive is `driveId`, or
 * the site's default document library (`GET /sites/{id}/drive`).
 *
 * A folder is listed with its `children`, paged by `@odata.nextLink`. Only the link's
 * `$skiptoken` travels as the page token, and the next URL is rebuilt from settings: a caller
 * cannot steer a request anywhere else. Graph has no recursive listing of a folder, so a walk
 * descends folder by folder (depth first, in the order Graph lists children).
 *
 * A download reads the item's metadata first (a folder, or a file over the cap, is refused
 * before any byte is read; the version is its cTag, which changes with the content only) and
 * then its `/content`, which answers 302 with a pre-authenticated URL on a SharePoint host. That
 * URL is followed without credentials, only over https (loopback excepted, for tests), and with
 * the address checks of any fetch.
 */
import { ConfigurationError } from '../../errors.js';
import type { FetchedResource } from '../../net/safe-fetch.js';
import { BaseRemoteSource, baseName, optionalText, requiredText } from './base.js';
import { encodePath, jsonOf, settingUrl, under, type SourceRequest } from './http.js';
import { defineRemoteSource } from './kind.js';
import type { RemoteCallOptions, RemoteDownload, RemoteFile, RemoteFolder, RemoteListOptions, RemoteListPage, RemoteSourceBaseOptions } from './remote-source.js';
import { TokenCache, requestToken } from './tokens.js';

export interface SharePointSourceOptions extends RemoteSourceBaseOptions {
  tenantId: string;
  clientId: string;
  clientSecret: string;
  /** `contoso.sharepoint.com`. */
  hostname: string;
  /** `/sites/handbook`; default the root site. Ignored when siteId is given. */
  sitePath?: string;
  /** `contoso.sharepoint.com,{site collection id},{site id}`. */
  siteId?: string;
  /** Default the site's default document library. */
  driveId?: string;
  /** Default https://graph.microsoft.com/v1.0. */
  graphUrl?: string;
  /** Default https://login.microsoftonline.com. */
  authorityHost?: string;
}

const MAX_JSON_BYTES = 8 * 1024 * 1024;
/** Characters SharePoint refuses in file and folder names. */
const RESERVED = /["*:<>?\\|]/;

interface DriveItem {
  id?: unknown;
  name?: unknown;
  size?: unknown;
  eTag?: unknown;
  cTag?: unknown;
  lastModifiedDateTime?: unknown;
  file?: { mimeType?: unknown } | null;
  folder?: { childCount?: unknown } | null;
}

/** `itemNotFound: The resource could not be found.` from a Graph error body. */
function graphErrorText(response: FetchedResource): string | undefined {
  const error = (jsonOf(response) as { error?: { code?: unknown; message?: unknown } } | undefined)?.error;
  if (typeof error?.code !== 'string') return undefined;
  return `${error.code}${typeof error.message === 'string' ? `: ${error.message}` : ''}`;
}

export class SharePointSource extends BaseRemoteSource {
  readonly type = 'sharepoint' as const;
  readonly hostname: string;
  readonly sitePath: string | undefined;
  private siteId: string | undefined;
  private driveId: string | undefined;
  private readonly graph: URL;
  private readonly tokens: TokenCache;
  private issued: string[] = [];
  private resolving: Promise<string> | undefined;
  /** The site and drive as configured, for identities that do not change once they are looked up. */
  private readonly configured: string;

  constructor(options: SharePointSourceOptions) {
    super(options, 'sharepoint');
    const where = this.where();
    const tenantId = requiredText(options.tenantId, 'tenantId', where);
    if (!/^[A-Za-z0-9.-]{1,100}$/.test(tenantId)) throw new ConfigurationError(`${where}: tenantId must be a tenant id or domain`);
    const clientId = requiredText(options.clientId, 'clientId', where);
    const clientSecret = requiredText(options.clientSecret, 'clientSecret', where);
    this.hostname = requiredText(options.hostname, 'hostname', where).toLowerCase();
    if (!/^[a-z0-9-]+(\.[a-z0-9-]+)+$/.test(this.hostname)) throw new ConfigurationError(`${where}: hostname "${this.hostname}" must be a host name such as contoso.sharepoint.com`);
    const sitePath = optionalText(options.sitePath, 'sitePath', where);
    if (sitePath !== undefined && !/^\/?[A-Za-z0-9._~%/ -]{1,400}$/.test(sitePath)) throw new ConfigurationError(`${where}: sitePath must be a path such as /sites/handbook`);
    this.sitePath = sitePath === undefined ? undefined : `/${sitePath.replace(/^\/+|\/+$/g, '')}`;
    this.siteId = optionalText(options.siteId, 'siteId', where);
    if (this.siteId !== undefined && !/^[A-Za-z0-9.,-]{1,300}$/.test(this.siteId)) throw new ConfigurationError(`${where}: siteId must be a Graph site id (hostname,guid,guid)`);
    this.driveId = optionalText(options.driveId, 'driveId', where);
    if (this.driveId !== undefined && !/^[A-Za-z0-9!_-]{1,200}$/.test(this.driveId)) throw new ConfigurationError(`${where}: driveId must be a Graph drive id`);
    this.configured = `${this.siteId ?? `${this.hostname}${this.sitePath ?? ''}`}/${this.driveId ?? 'default'}`;
    this.graph = settingUrl(options.graphUrl ?? 'https://graph.microsoft.com/v1.0', 'graphUrl', where);
    const authority = settingUrl(options.authorityHost ?? 'https://login.microsoftonline.com', 'authorityHost', where);
    const tokenUrl = new URL(`${authority.href.replace(/\/+$/, '')}/${tenantId}/oauth2/v2.0/token`);
    const scope = `${this.graph.origin}/.default`;
    this.tokens = new TokenCache(() => requestToken(this.http, tokenUrl.href, { grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret, scope }, undefined));
    this.http = this.makeHttp([this.graph.origin, tokenUrl.origin], () => [clientSecret, ...this.issued]);
  }

  protected override pathRule(path: string): string | undefined {
    return RESERVED.test(path) ? 'has a character SharePoint refuses in names (" * : < > ? \\ |)' : undefined;
  }

  private request(url: string, path: string, options: { maxBytes: number; signal: AbortSignal | undefined; redirect?: boolean }): Promise<FetchedResource> {
    const request: SourceRequest = {
      url,
      path,
      maxBytes: options.maxBytes,
      signal: options.signal,
      headers: { accept: 'application/json' },
      explain: graphErrorText,
      ...(options.redirect ? { accept: (status: number) => status === 302 || status === 303 || status === 307, returnRedirects: true } : {}),
      auth: async () => {
        const token = await this.tokens.get();
        if (!this.issued.includes(token)) this.issued = [token, ...this.issued].slice(0, 4);
        return { authorization: `Bearer ${token}` };
      },
      reauth: () => this.tokens.invalidate(),
    };
    return this.http.request(request);
  }

  private async json(url: string, path: string, signal: AbortSignal | undefined): Promise<Record<string, unknown>> {
    const body = jsonOf(await this.request(url, path, { maxBytes: MAX_JSON_BYTES, signal }));
    if (typeof body !== 'object' || body === null) throw this.http.badAnswer(path, 'the answer is not a JSON object');
    return body as Record<string, unknown>;
  }

  /** The drive id, looked up once (concurrent callers share the lookup). */
  private drive(path: string, signal: AbortSignal | undefined): Promise<string> {
    if (this.driveId !== undefined) return Promise.resolve(this.driveId);
    this.resolving ??= (async () => {
      if (this.siteId === undefined) {
        const site = await this.json(under(this.graph, `/sites/${this.hostname}${this.sitePath ? `:${encodePath(this.sitePath)}` : ''}`), path, signal);
        if (typeof site.id !== 'string' || site.id === '') throw this.http.badAnswer(path, 'the site answer has no id');
        this.siteId = site.id;
      }
      const drive = await this.json(under(this.graph, `/sites/${encodeURIComponent(this.siteId)}/drive`), path, signal);
      if (typeof drive.id !== 'string' || drive.id === '') throw this.http.badAnswer(path, 'the drive answer has no id');
      this.driveId = drive.id;
      return drive.id;
    })().finally(() => {
      this.resolving = undefined;
    });
    return this.resolving;
  }

  /** `/drives/{id}/root` or `/drives/{id}/root:/{path}:` (a path without its trailing slash). */
  private itemPath(drive: string, path: string): string {
    const trimmed = path.replace(/\/+$/, '');
    return `/drives/${encodeURIComponent(drive)}/root${trimmed ? `:/${encodePath(trimmed)}:` : ''}`;
  }

  async list(options: RemoteListOptions): Promise<RemoteListPage> {
    const prefix = this.folderFor(options);
    const limit = this.listLimit(options.limit);
    this.checkDelimiter(options.delimiter, ['/']);
    if (options.page_token !== undefined && !/^[A-Za-z0-9!*'()._~%+=/-]{1,2000}$/.test(options.page_token)) throw this.http.invalid(prefix, 'the page token is not one this source gave');
    const folder = prefix.slice(0, prefix.lastIndexOf('/') + 1);
    const drive = await this.drive(prefix, options.signal);
    const url = under(this.graph, `${this.itemPath(drive, folder)}/children`, {
      $top: String(limit),
      $select: 'id,name,size,eTag,cTag,lastModifiedDateTime,file,folder',
      $skiptoken: options.page_token,
    });
    const body = await this.json(url, prefix, options.signal);
    if (!Array.isArray(body.value)) throw this.http.badAnswer(prefix, 'the children answer has no value');
    const files: RemoteFile[] = [];
    const folders: RemoteFolder[] = [];
    for (const item of body.value as DriveItem[]) {
      if (typeof item.name !== 'string' || item.name === '') continue;
      const path = `${folder}${item.name}`;
      if (!path.startsWith(prefix)) continue;
      if (item.folder) {
        const count = typeof item.folder.childCount === 'number' ? item.folder.childCount : undefined;
        folders.push({ path: `${path}/`, name: item.name, ...(count !== undefined ? { is_empty: count === 0 } : {}) });
      } else if (item.file) {
        files.push(this.fileOf(path, item));
      }
      // Anything else (a OneNote package, a deleted item) is not content to ingest.
    }
    const next = typeof body['@odata.nextLink'] === 'string' ? this.skipToken(body['@odata.nextLink'], prefix) : undefined;
    return { files, folders, ...(next ? { next_page: next } : {}) };
  }

  private skipToken(link: string, path: string): string {
    let token: string | null;
    try {
      token = new URL(link).searchParams.get('$skiptoken');
    } catch {
      token = null;
    }
    if (!token) throw this.http.badAnswer(path, 'the next page link has no $skiptoken');
    return token;
  }

  private fileOf(path: string, item: DriveItem): RemoteFile {
    const version = typeof item.cTag === 'string' ? item.cTag : typeof item.eTag === 'string' ? item.eTag : undefined;
    const modified = typeof item.lastModifiedDateTime === 'string' ? Date.parse(item.lastModifiedDateTime) : NaN;
    const type = typeof item.file?.mimeType === 'string' ? item.file.mimeType : undefined;
    return {
      path,
      name: baseName(path),
      ...(typeof item.size === 'number' ? { size: item.size } : {}),
      ...(version ? { version } : {}),
      ...(Number.isFinite(modified) ? { modified_at: modified } : {}),
      ...(type ? { content_type: type } : {}),
    };
  }

  /** Depth first, a folder's files before its sub-folders, each in Graph's order. */
  override async *walk(folder: string, options: RemoteCallOptions & { maxFiles?: number } = {}): AsyncIterable<RemoteFile> {
    const start = this.check(folder, options.params);
    const max = options.maxFiles ?? Number.POSITIVE_INFINITY;
    let yielded = 0;
    const pending = [start];
    while (pending.length > 0 && yielded < max) {
      const current = pending.shift()!;
      const subfolders: string[] = [];
      let token: string | undefined;
      do {
        const page = await this.list({ ...options, prefix: current, limit: this.options.pageSize ?? 1000, ...(token ? { page_token: token } : {}) });
        for (const file of page.files) {
          if (yielded >= max) return;
          yielded++;
          yield file;
        }
        for (const sub of page.folders) if (sub.is_empty !== true) subfolders.push(sub.path);
        token = page.next_page;
      } while (token);
      pending.unshift(...subfolders);
    }
  }

  async download(path: string, options: RemoteCallOptions & { maxBytes: number }): Promise<RemoteDownload> {
    const file = this.check(path, options.params);
    if (file === '' || file.endsWith('/')) throw this.http.invalid(file, 'the path is a folder, not a file');
    const drive = await this.drive(file, options.signal);
    const item = (await this.json(under(this.graph, this.itemPath(drive, file), { $select: 'id,name,size,eTag,cTag,lastModifiedDateTime,file,folder' }), file, options.signal)) as DriveItem;
    if (item.folder) throw this.http.invalid(file, 'the path is a folder, not a file');
    if (!item.file || typeof item.id !== 'string') throw this.http.invalid(file, 'the path is not a file SharePoint hands out');
    if (typeof item.size === 'number' && item.size > options.maxBytes) throw this.http.tooLarge(file, options.maxBytes, item.size);
    const described = this.fileOf(file, item);
    const content = await this.request(under(this.graph, `/drives/${encodeURIComponent(drive)}/items/${encodeURIComponent(item.id)}/content`), file, {
      maxBytes: options.maxBytes,
      signal: options.signal,
      redirect: true,
    });
    let bytes = content.body;
    if (content.status >= 300) {
      const location = content.headers.location;
      if (!location) throw this.http.badAnswer(file, 'the download redirect has no Location');
      let target: URL;
      try {
        target = new URL(location, under(this.graph, ''));
      } catch {
        throw this.http.badAnswer(file, 'the download redirect is not a URL');
      }
      const downloaded = await this.http.request({ url: target.href, path: file, maxBytes: options.maxBytes, signal: options.signal, handedOut: true });
      bytes = downloaded.body;
    }
    return { bytes, ...(described.content_type ? { content_type: described.content_type } : {}), ...(described.version ? { version: described.version } : {}) };
  }

  identity(path: string, params?: Readonly<Record<string, unknown>>): string {
    return `sharepoint:${this.id}:${this.configured}:${this.check(path, params)}`;
  }

  describe(file: RemoteFile): Record<string, unknown> {
    return {
      source_type: 'sharepoint',
      source_config_id: this.id,
      source_config_name: this.name,
      sharepoint_hostname: this.hostname,
      ...(this.sitePath ? { sharepoint_site_path: this.sitePath } : {}),
      ...(this.siteId ? { sharepoint_site_id: this.siteId } : {}),
      ...(this.driveId ? { sharepoint_drive_id: this.driveId } : {}),
      sharepoint_path: file.path,
      ...(file.version ? { version: file.version } : {}),
    };
  }
}

/**
 * A SharePoint library as `KNOWLEDGE_CONTENT_SOURCES` configures it: `tenant_id`, `client_id`,
 * `client_secret_env`, `hostname`, `site_path` or `site_id`, `drive_id`, `folder_path` (or
 * `prefix`), `graph_url`, `authority_host`.
 */
export const SHAREPOINT_KIND = defineRemoteSource({
  type: 'sharepoint',
  fromSettings: (e) => {
    const sitePath = e.text('site_path');
    const siteId = e.text('site_id');
    const driveId = e.text('drive_id');
    const graphUrl = e.text('graph_url');
    const authorityHost = e.text('authority_host');
    const folder = e.text('folder_path');
    const base = e.base();
    if (folder !== undefined && base.prefix !== undefined) throw new ConfigurationError(`${e.where}: give prefix or folder_path, not both`);
    return new SharePointSource({
      ...base,
      ...(folder !== undefined ? { prefix: folder } : {}),
      tenantId: e.required('tenant_id'),
      clientId: e.required('client_id'),
      clientSecret: e.requiredSecret('client_secret'),
      hostname: e.required('hostname'),
      ...(sitePath ? { sitePath } : {}),
      ...(siteId ? { siteId } : {}),
      ...(driveId ? { driveId } : {}),
      ...(graphUrl ? { graphUrl } : {}),
      ...(authorityHost ? { authorityHost } : {}),
    });
  },
});
