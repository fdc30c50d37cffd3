/**
 * A loopback Microsoft Graph for one SharePoint document library, for the SharePoint source's
 * unit tests and the remote-content end-to-end tests: the identity platform's client-credentials
 * token endpoint (`/{tenant}/oauth2/v2.0/token`), the site by path, its default drive, items by
 * path (`root:/{path}:`) and their `children` paged with `@odata.nextLink` and a base64
 * `$skiptoken`, `/content` answering 302 to a pre-authenticated download URL (`tempauth` in the
 * query, no bearer), and Graph's `{error: {code, message}}` errors. Items are mutable: a file's
 * cTag carries a revision that a change bumps, and every file whose bytes were served is recorded
 * in `served`. A key ending in "/" is an (empty) folder; a null text is a OneNote package.
 */
import { sendJson, startLoopback, type SeenRequest } from './fake-remote.js';

export interface FakeSharePoint {
  url: string;
  /** The Graph base URL the source is given: `{url}/v1.0`. */
  graphUrl: string;
  seen: SeenRequest[];
  items: Map<string, string | null>;
  /** Paths of the files whose bytes were served, in order. */
  served: string[];
  readonly issued: number;
  /** Tokens Graph accepts; tokens the endpoint issues are added. */
  valid: Set<string>;
  /** A Retry-After to answer 429 with, instead of the API. */
  throttle: ((request: SeenRequest) => string | undefined) | undefined;
  /** Where /content redirects to, instead of the fake's own download URL. */
  redirectTo: ((id: string) => string) | undefined;
  put(path: string, text: string): void;
  remove(path: string): void;
  idOf(path: string): string;
  /** A file's cTag (its version), as Graph reports it. */
  cTag(path: string): string;
  close(): Promise<void>;
}

export const graphError = (code: string, message: string) => ({ error: { code, message, innerError: { 'request-id': 'r1', date: '2024-05-01T10:00:00' } } });

const idOf = (path: string) => `01${Buffer.from(path).toString('hex').toUpperCase()}`;
const pathOf = (id: string) => Buffer.from(id.slice(2), 'hex').toString();

export async function startFakeSharePoint(options: {
  tenantId: string;
  clientId: string;
  clientSecret: string;
  /** e.g. "contoso.sharepoint.com" */
  hostname: string;
  /** e.g. "/sites/handbook" */
  sitePath: string;
  siteId: string;
  driveId: string;
  tempauth: string;
  items?: Record<string, string | null>;
}): Promise<FakeSharePoint> {
  const { tenantId, clientId, clientSecret, siteId, driveId, tempauth } = options;
  const items = new Map(Object.entries(options.items ?? {}));
  /** Bumped when a file changes, so its cTag does. */
  const revisions = new Map<string, number>();
  const cTag = (path: string) => {
    const revision = revisions.get(path);
    return `"c:{${idOf(path)}},${Buffer.byteLength(items.get(path) ?? '')}${revision ? `-r${revision}` : ''}"`;
  };
  let issued = 0;
  let state!: FakeSharePoint;

  const isFolder = (path: string) => path.endsWith('/') || [...items.keys()].some((p) => p.startsWith(`${path}/`));
  const itemJson = (path: string, name: string) => {
    const text = items.get(path);
    if (isFolder(path)) {
      const folder = path.endsWith('/') ? path : `${path}/`;
      const count = new Set([...items.keys()].filter((p) => p.startsWith(folder) && p !== folder).map((p) => p.slice(folder.length).split('/')[0])).size;
      return { id: idOf(folder), name, folder: { childCount: count }, eTag: `"{${idOf(folder)}},1"` };
    }
    if (text === null) return { id: idOf(path), name, package: { type: 'oneNote' } };
    return {
      id: idOf(path),
      name,
      size: Buffer.byteLength(text!),
      eTag: `"{${idOf(path)}},3"`,
      cTag: cTag(path),
      lastModifiedDateTime: '2024-05-01T10:00:00Z',
      file: { mimeType: name.endsWith('.md') ? 'text/markdown' : 'application/octet-stream', hashes: { quickXorHash: 'AAAA' } },
    };
  };
  const childrenOf = (folder: string): { path: string; name: string }[] => {
    const names = new Map<string, string>();
    for (const key of items.keys()) {
      if (!key.startsWith(folder) || key === folder) continue;
      const name = key.slice(folder.length).split('/')[0]!;
      names.set(name, `${folder}${name}`);
    }
    return [...names.entries()].map(([name, path]) => ({ name, path })).sort((a, b) => a.name.localeCompare(b.name));
  };

  const server = await startLoopback((request, response) => {
    if (request.method === 'POST' && request.path === `/${tenantId}/oauth2/v2.0/token`) {
      const form = new URLSearchParams(request.body);
      if (form.get('client_secret') !== clientSecret) return sendJson(response, 401, { error: 'invalid_client', error_description: 'AADSTS7000215: Invalid client secret provided.\r\nTrace ID: x' });
      if (form.get('scope') !== `${server.url}/.default` || form.get('grant_type') !== 'client_credentials' || form.get('client_id') !== clientId) return sendJson(response, 400, { error: 'invalid_request' });
      const token = `eyJ.graph-token-${++issued}`;
      state.valid.add(token);
      return sendJson(response, 200, { token_type: 'Bearer', expires_in: 3599, access_token: token });
    }
    if (request.path.startsWith('/_layouts/15/download.aspx')) {
      if (request.headers.authorization !== undefined) return sendJson(response, 400, { error: 'credentials sent to the download URL' });
      if (request.query.get('tempauth') !== tempauth) return sendJson(response, 401, { error: 'bad tempauth' });
      const path = pathOf(request.query.get('UniqueId') ?? '');
      const text = items.get(path);
      if (typeof text === 'string') state.served.push(path);
      response.writeHead(200, { 'content-type': 'application/octet-stream' });
      return response.end(text ?? '');
    }
    const bearer = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1];
    if (!bearer || !state.valid.has(bearer)) return sendJson(response, 401, graphError('InvalidAuthenticationToken', 'Access token has expired or is not yet valid.'));
    const limited = state.throttle?.(request);
    if (limited) return sendJson(response, 429, graphError('TooManyRequests', 'Please retry later.'), { 'retry-after': limited });
    const path = decodeURIComponent(request.path);
    if (path === `/v1.0/sites/${options.hostname}:${options.sitePath}`) {
      return sendJson(response, 200, { id: siteId, name: options.sitePath.split('/').pop(), webUrl: `https://${options.hostname}${options.sitePath}` });
    }
    if (path === `/v1.0/sites/${siteId}/drive`) return sendJson(response, 200, { id: driveId, driveType: 'documentLibrary', name: 'Documents' });
    const content = /^\/v1\.0\/drives\/([^/]+)\/items\/([^/]+)\/content$/.exec(path);
    if (content) {
      response.writeHead(302, { location: state.redirectTo ? state.redirectTo(content[2]!) : `${server.url}/_layouts/15/download.aspx?UniqueId=${content[2]}&tempauth=${tempauth}` });
      return response.end();
    }
    const item = /^\/v1\.0\/drives\/([^/]+)\/root(?::\/(.+?):)?(\/children)?$/.exec(path);
    if (!item || item[1] !== driveId) return sendJson(response, 404, graphError('itemNotFound', 'The resource could not be found.'));
    const target = item[2] ?? '';
    const exists = target === '' || items.has(target) || [...items.keys()].some((p) => p.startsWith(`${target}/`));
    if (!exists) return sendJson(response, 404, graphError('itemNotFound', 'The resource could not be found.'));
    if (!item[3]) return sendJson(response, 200, itemJson(target, target.split('/').pop()!));
    const all = childrenOf(target === '' ? '' : `${target}/`);
    const top = Number(request.query.get('$top') ?? '200');
    const start = Number(request.query.get('$skiptoken') ? Buffer.from(request.query.get('$skiptoken')!, 'base64url').toString().split(':')[1] : '0');
    const page = all.slice(start, start + top).map((c) => itemJson(c.path, c.name));
    const next = start + top < all.length ? `${server.url}${request.path}?$top=${top}&$skiptoken=${Buffer.from(`Paged=TRUE&p_ID:${start + top}`).toString('base64url')}` : undefined;
    return sendJson(response, 200, { '@odata.context': 'x', value: page, ...(next ? { '@odata.nextLink': next } : {}) });
  });
  state = {
    url: server.url,
    graphUrl: `${server.url}/v1.0`,
    seen: server.seen,
    items,
    served: [],
    get issued() {
      return issued;
    },
    valid: new Set<string>(),
    throttle: undefined,
    redirectTo: undefined,
    put(path, text) {
      if (items.has(path)) revisions.set(path, (revisions.get(path) ?? 0) + 1);
      items.set(path, text);
    },
    remove(path) {
      items.delete(path);
    },
    idOf,
    cTag,
    close: () => server.close(),
  };
  return state;
}
