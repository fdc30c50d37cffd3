/**
 * A loopback Azure Blob Storage service for one container, for the Azure source's unit tests and
 * the remote-content end-to-end tests: List Blobs (`?restype=container&comp=list` with prefix,
 * delimiter, maxresults and marker) answered in the service's XML (a BOM, escaped names, names
 * XML cannot carry sent `Encoded="true"`), Get Blob with its ETag, XML errors with
 * `x-ms-error-code`, a required `x-ms-version`, a SAS `sig` or a bearer token from the Microsoft
 * identity platform's client-credentials endpoint (`/{tenant}/oauth2/v2.0/token`). Blobs are
 * mutable (a blob's ETag follows its bytes), and every blob whose bytes were served is recorded
 * in `served`.
 */
import { createHash } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { AZURE_STORAGE_VERSION } from '../../src/knowledge/remote-sources/azure-blob.js';
import { listKeys, sendJson, startLoopback, type SeenRequest } from './fake-remote.js';

export interface FakeAzureBlob {
  url: string;
  /** The account's blob endpoint: `{url}/{account}` (path-style, as Azurite serves it). */
  endpoint: string;
  seen: SeenRequest[];
  blobs: Map<string, { body: Buffer; type: string }>;
  /** Names of the blobs whose bytes were served, in order. */
  served: string[];
  readonly issued: number;
  throttle: ((request: SeenRequest) => { status: number; retryAfter?: string } | undefined) | undefined;
  put(name: string, body: string | Buffer, type?: string): void;
  remove(name: string): void;
  /** A blob's ETag header value (quoted). */
  etag(name: string): string;
  close(): Promise<void>;
}

function xmlEscape(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** A name XML 1.0 cannot carry (a control character) is sent percent-encoded with Encoded="true", as the service does. */
function nameElement(name: string): string {
  return [...name].some((c) => c.charCodeAt(0) < 0x20) ? `<Name Encoded="true">${encodeURIComponent(name)}</Name>` : `<Name>${xmlEscape(name)}</Name>`;
}

function storageError(response: ServerResponse, status: number, code: string, message: string, headers: Record<string, string> = {}): void {
  response.writeHead(status, { 'content-type': 'application/xml', 'x-ms-error-code': code, ...headers });
  response.end(`\uFEFF<?xml version="1.0" encoding="utf-8"?><Error><Code>${code}</Code><Message>${message}\nRequestId:5f2c-0001\nTime:2024-05-01T10:00:00.0000000Z</Message></Error>`);
}

export async function startFakeAzureBlob(options: {
  account: string;
  container: string;
  /** The SAS signature the service accepts (the `sig` query parameter, decoded). */
  sig: string;
  /** A service principal the token endpoint accepts. */
  principal?: { tenantId: string; clientId: string; clientSecret: string };
  blobs?: Record<string, { body: string | Buffer; type: string }>;
}): Promise<FakeAzureBlob> {
  const { account, container, principal } = options;
  const blobs = new Map(Object.entries(options.blobs ?? {}).map(([name, b]) => [name, { body: Buffer.from(b.body), type: b.type }]));
  const etag = (name: string) => `"0x8DC${createHash('sha1').update(name).update('\n').update(blobs.get(name)!.body).digest('hex').slice(0, 10).toUpperCase()}"`;
  let issued = 0;
  let state!: FakeAzureBlob;
  const server = await startLoopback((request, response) => {
    if (principal && request.method === 'POST' && request.path === `/${principal.tenantId}/oauth2/v2.0/token`) {
      const form = new URLSearchParams(request.body);
      if (form.get('client_id') !== principal.clientId || form.get('client_secret') !== principal.clientSecret) {
        return sendJson(response, 401, { error: 'invalid_client', error_description: `AADSTS7000215: Invalid client secret provided.\r\nTrace ID: abc\r\nTimestamp: 2024-05-01` });
      }
      if (form.get('grant_type') !== 'client_credentials' || form.get('scope') !== 'https://storage.azure.com/.default') return sendJson(response, 400, { error: 'invalid_scope' });
      return sendJson(response, 200, { token_type: 'Bearer', expires_in: 3599, access_token: `eyJ.azure-token-${++issued}` });
    }
    if (request.headers['x-ms-version'] !== AZURE_STORAGE_VERSION) return storageError(response, 400, 'MissingRequiredHeader', 'x-ms-version is required');
    const bearer = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1];
    if (!(request.query.get('sig') === options.sig || bearer?.startsWith('eyJ.azure-token-'))) return storageError(response, 403, 'AuthenticationFailed', 'Server failed to authenticate the request.');
    const limited = state.throttle?.(request);
    if (limited) return storageError(response, limited.status, 'ServerBusy', 'The server is busy.', limited.retryAfter ? { 'retry-after': limited.retryAfter } : {});
    const base = `/${account}/${container}`;
    if (request.path === base && request.query.get('restype') === 'container' && request.query.get('comp') === 'list') {
      const q = request.query;
      const prefix = q.get('prefix') ?? '';
      const page = listKeys([...blobs.keys()], prefix, q.get('delimiter') ?? '', Number(q.get('marker') || '0'), Number(q.get('maxresults') ?? '5000'));
      const listed = page.keys
        .map(
          (name) =>
            `<Blob>${nameElement(name)}<Properties><Last-Modified>Wed, 01 May 2024 10:00:00 GMT</Last-Modified><Etag>${etag(name)}</Etag><Content-Length>${blobs.get(name)!.body.length}</Content-Length><Content-Type>${blobs.get(name)!.type}</Content-Type><BlobType>BlockBlob</BlobType></Properties></Blob>`,
        )
        .join('');
      const prefixes = page.prefixes.map((p) => `<BlobPrefix><Name>${xmlEscape(p)}</Name></BlobPrefix>`).join('');
      response.writeHead(200, { 'content-type': 'application/xml' });
      return response.end(
        `\uFEFF<?xml version="1.0" encoding="utf-8"?><EnumerationResults ServiceEndpoint="${server.url}/${account}" ContainerName="${container}"><Prefix>${xmlEscape(prefix)}</Prefix>${q.get('marker') ? `<Marker>${q.get('marker')}</Marker>` : ''}<MaxResults>${q.get('maxresults')}</MaxResults><Delimiter>${q.get('delimiter') ?? ''}</Delimiter><Blobs>${listed}${prefixes}</Blobs><NextMarker>${page.next ?? ''}</NextMarker></EnumerationResults>`,
      );
    }
    if (request.path.startsWith(`${base}/`)) {
      const name = decodeURIComponent(request.path.slice(base.length + 1));
      const blob = blobs.get(name);
      if (!blob) return storageError(response, 404, 'BlobNotFound', 'The specified blob does not exist.');
      state.served.push(name);
      response.writeHead(200, { 'content-type': blob.type, etag: etag(name), 'content-length': String(blob.body.length), 'x-ms-blob-type': 'BlockBlob' });
      return response.end(blob.body);
    }
    storageError(response, 404, 'ContainerNotFound', 'The specified container does not exist.');
  });
  state = {
    url: server.url,
    endpoint: `${server.url}/${account}`,
    seen: server.seen,
    blobs,
    served: [],
    get issued() {
      return issued;
    },
    throttle: undefined,
    put(name, body, type = 'text/plain') {
      blobs.set(name, { body: Buffer.from(body), type });
    },
    remove(name) {
      blobs.delete(name);
    },
    etag,
    close: () => server.close(),
  };
  return state;
}
