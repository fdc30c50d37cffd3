/**
 * A loopback Google Cloud Storage JSON API for one bucket, for the GCS source's unit tests and
 * the remote-content end-to-end tests: the OAuth token endpoint for service-account JWT
 * assertions (checked against `serviceAccount.publicKey`), `GET /storage/v1/b/{bucket}/o` with
 * prefix, delimiter, maxResults and pageToken, and `?alt=media` downloads with x-goog-hash.
 * Errors are the API's `{error: {code, message, errors: [{reason}]}}`. The objects are mutable
 * (an object's md5Hash follows its bytes, so a changed object has a new version), and every
 * object whose bytes were served is recorded in `served`.
 */
import { createHash, type KeyObject } from 'node:crypto';
import { listKeys, sendJson, startLoopback, verifyRs256, type SeenRequest } from './fake-remote.js';

export interface FakeGcsObject {
  body: Buffer;
  type: string;
}

export interface FakeGcs {
  url: string;
  bucket: string;
  seen: SeenRequest[];
  objects: Map<string, FakeGcsObject>;
  /** Names of the objects whose bytes were served, in order. */
  served: string[];
  /** Bearer tokens the storage API accepts; tokens it issues are added. */
  valid: Set<string>;
  /** How many tokens the token endpoint issued. */
  readonly issued: number;
  /** Objects whose download is refused with 403 forbidden. */
  forbidden: Set<string>;
  /** Answers instead of the API (429/503 with an optional Retry-After). */
  throttle: ((request: SeenRequest) => { status: number; retryAfter?: string } | undefined) | undefined;
  /** When set, the token endpoint refuses every assertion with this invalid_grant description. */
  tokenRefusal: string | undefined;
  put(name: string, body: string | Buffer, type?: string): void;
  remove(name: string): void;
  /** An object's md5Hash, as the API reports it (its version). */
  md5(name: string): string;
  close(): Promise<void>;
}

export function gcsApiError(status: number, reason: string, message: string) {
  return { error: { code: status, message, errors: [{ message, domain: 'global', reason }] } };
}

const md5Of = (body: Buffer) => createHash('md5').update(body).digest('base64');

export async function startFakeGcs(options: {
  bucket: string;
  objects?: Record<string, { body: string | Buffer; type: string }>;
  serviceAccount?: { email: string; publicKey: KeyObject };
}): Promise<FakeGcs> {
  const { bucket } = options;
  const objects = new Map<string, FakeGcsObject>(Object.entries(options.objects ?? {}).map(([name, o]) => [name, { body: Buffer.from(o.body), type: o.type }]));
  let issued = 0;
  // Made once the server listens; the handler reads what tests change through it.
  let state!: FakeGcs;
  const server = await startLoopback(async (request, response) => {
    if (request.method === 'POST' && request.path === '/token') {
      const form = new URLSearchParams(request.body);
      if (state.tokenRefusal) return sendJson(response, 400, { error: 'invalid_grant', error_description: state.tokenRefusal });
      if (form.get('grant_type') !== 'urn:ietf:params:oauth:grant-type:jwt-bearer') return sendJson(response, 400, { error: 'unsupported_grant_type' });
      const account = options.serviceAccount;
      const { claims } = account ? await verifyRs256(form.get('assertion') ?? '', account.publicKey).catch(() => ({ claims: {} as Record<string, unknown> })) : { claims: {} as Record<string, unknown> };
      if (!account || claims.iss !== account.email || claims.aud !== `${server.url}/token` || claims.scope !== 'https://www.googleapis.com/auth/devstorage.read_only') {
        return sendJson(response, 400, { error: 'invalid_grant', error_description: 'Invalid JWT Signature.' });
      }
      const token = `ya29.token-${++issued}`;
      state.valid.add(token);
      return sendJson(response, 200, { access_token: token, expires_in: 3599, token_type: 'Bearer' });
    }
    const bearer = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1];
    if (!bearer || !state.valid.has(bearer)) {
      return sendJson(response, 401, gcsApiError(401, 'authError', 'Invalid Credentials'), { 'www-authenticate': 'Bearer realm="https://accounts.google.com/"' });
    }
    const limited = state.throttle?.(request);
    if (limited) return sendJson(response, limited.status, gcsApiError(limited.status, 'rateLimitExceeded', 'Rate limit exceeded'), limited.retryAfter ? { 'retry-after': limited.retryAfter } : {});
    if (request.path === `/storage/v1/b/${bucket}/o`) {
      const q = request.query;
      const page = listKeys([...objects.keys()], q.get('prefix') ?? '', q.get('delimiter') ?? '', Number(q.get('pageToken') ?? '0'), Number(q.get('maxResults') ?? '1000'));
      return sendJson(response, 200, {
        kind: 'storage#objects',
        ...(page.prefixes.length ? { prefixes: page.prefixes } : {}),
        items: page.keys.map((name) => ({
          kind: 'storage#object',
          name,
          bucket,
          generation: '1700000000000000',
          size: String(objects.get(name)!.body.length),
          md5Hash: md5Of(objects.get(name)!.body),
          crc32c: 'AAAAAA==',
          contentType: objects.get(name)!.type,
          updated: '2024-05-01T10:00:00.000Z',
        })),
        ...(page.next !== undefined ? { nextPageToken: String(page.next) } : {}),
      });
    }
    const object = new RegExp(`^/storage/v1/b/${bucket}/o/(.+)$`).exec(request.path);
    if (object && request.query.get('alt') === 'media') {
      const name = decodeURIComponent(object[1]!);
      if (state.forbidden.has(name)) return sendJson(response, 403, gcsApiError(403, 'forbidden', `${options.serviceAccount?.email ?? 'caller'} does not have storage.objects.get access`));
      const found = objects.get(name);
      if (!found) return sendJson(response, 404, gcsApiError(404, 'notFound', `No such object: ${bucket}/${name}`));
      state.served.push(name);
      response.writeHead(200, { 'content-type': found.type, 'x-goog-hash': `crc32c=AAAAAA==,md5=${md5Of(found.body)}`, 'x-goog-generation': '1700000000000000', 'content-length': String(found.body.length) });
      return response.end(found.body);
    }
    sendJson(response, 404, gcsApiError(404, 'notFound', 'Not Found'));
  });
  state = {
    url: server.url,
    bucket,
    seen: server.seen,
    objects,
    served: [],
    valid: new Set<string>(),
    forbidden: new Set<string>(),
    throttle: undefined,
    tokenRefusal: undefined,
    get issued() {
      return issued;
    },
    put(name, body, type = 'text/plain') {
      objects.set(name, { body: Buffer.from(body), type });
    },
    remove(name) {
      objects.delete(name);
    },
    md5(name) {
      return md5Of(objects.get(name)!.body);
    },
    close: () => server.close(),
  };
  return state;
}
