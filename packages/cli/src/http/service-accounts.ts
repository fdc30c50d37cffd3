/**
 * The runtime's service-accounts API (POST/GET /service-accounts, DELETE /service-accounts/{id}).
 * Every response is turned into an Account or a CliError with a next step; the credential
 * travels only in the Authorization header and never appears in a message.
 */
import { parseAccount, type Account } from '../accounts/account.js';
import type { Expiry } from '../accounts/expires.js';
import { CliError } from '../errors.js';
import { isObject, parseJson } from '../util/json.js';
import { httpRequest, joinUrl, type HttpResponse } from './request.js';

export const API_TIMEOUT_MS = 10_000;
const PAGE_LIMIT = 100;

export const ADMIN_HINT =
  'Create a short-lived admin token on the runtime, or set SVC_ADMIN_TOKEN (or OS_SECURITY_KEY) to a credential with admin access.';

export const FORBIDDEN_HINT =
  'Use a credential that holds the service_accounts scopes (or admin), via SVC_ADMIN_TOKEN (or OS_SECURITY_KEY).';

export const GRANT_HINT = 'Request only scopes your credential holds (--scopes), or use a credential that holds them.';

export interface CreateRequest {
  name: string;
  scopes: string[] | undefined;
  expiry: Expiry;
  privileged: boolean;
}

/** The server's error text: `detail`, the first validation message, or the status code. */
export function errorDetail(res: HttpResponse): string {
  const body = parseJson(res.body);
  if (isObject(body)) {
    if (typeof body.detail === 'string' && body.detail !== '') return body.detail;
    if (Array.isArray(body.detail) && isObject(body.detail[0]) && typeof body.detail[0].msg === 'string') {
      const loc = body.detail[0].loc;
      return Array.isArray(loc) && loc.length > 0 ? `${body.detail[0].msg} (at ${loc.join('.')})` : body.detail[0].msg;
    }
  }
  return `HTTP ${res.status}`;
}

export class ServiceAccountsClient {
  constructor(
    private readonly base: string,
    private readonly credential: string | undefined,
    private readonly env: NodeJS.ProcessEnv,
  ) {}

  /**
   * 401 means the credential itself was refused; 403 means it was accepted but lacks the
   * permission (the caller may claim a 403 it can explain better, such as a refused grant).
   */
  private async call(method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown, explain403 = false): Promise<HttpResponse> {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (this.credential) headers.authorization = `Bearer ${this.credential}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    let res: HttpResponse;
    try {
      res = await httpRequest({
        method,
        url: joinUrl(this.base, path),
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        timeoutMs: API_TIMEOUT_MS,
        env: this.env,
      });
    } catch (error) {
      throw new CliError('UNREACHABLE', `Could not reach the runtime at ${this.base}: ${error instanceof Error ? error.message : String(error)}`, {
        hint: 'Check that the runtime is running and reachable, or pass --url.',
      });
    }
    if (res.status === 401) {
      throw new CliError('CREDENTIAL_REJECTED', `The runtime rejected the admin credential (${errorDetail(res)}).`, {
        hint: ADMIN_HINT,
        status: res.status,
      });
    }
    if (res.status === 403 && !explain403) {
      throw new CliError('FORBIDDEN', `The admin credential is not allowed to do this (${errorDetail(res)}).`, { hint: FORBIDDEN_HINT, status: 403 });
    }
    return res;
  }

  private json(res: HttpResponse): unknown {
    const body = parseJson(res.body);
    if (body === undefined) {
      throw new CliError('BAD_RESPONSE', `The server at ${this.base} returned a non-JSON response (HTTP ${res.status}) - is this really a runtime?`, {
        hint: 'Check the URL (--url or RUNTIME_URL).',
      });
    }
    return body;
  }

  async create(req: CreateRequest): Promise<{ account: Account; token: string }> {
    const payload: Record<string, unknown> = { name: req.name };
    if (req.scopes && req.scopes.length > 0) payload.scopes = req.scopes.map((scope) => ({ scope, effect: 'allow' }));
    if (req.expiry.neverExpires) payload.never_expires = true;
    else payload.expires_in_days = req.expiry.days;
    if (req.privileged) payload.allow_privileged_scopes = true;
    const res = await this.call('POST', '/service-accounts', payload, true);
    if (res.status === 403) {
      const detail = errorDetail(res);
      // The credential may mint, but only scopes it holds itself.
      if (/^Cannot grant/i.test(detail)) {
        throw new CliError('API_ERROR', `Could not create service account '${req.name}': ${detail}`, { hint: GRANT_HINT, status: 403 });
      }
      throw new CliError('FORBIDDEN', `The admin credential is not allowed to do this (${detail}).`, { hint: FORBIDDEN_HINT, status: 403 });
    }
    if (res.status === 409) {
      throw new CliError('CONFLICT', `A service account named '${req.name}' already exists.`, {
        hint: `Revoke it first (svc tokens revoke ${req.name}) or pick a different name.`,
        status: 409,
      });
    }
    if (res.status !== 200 && res.status !== 201) {
      throw new CliError('API_ERROR', `Could not create service account '${req.name}': ${errorDetail(res)}`, {
        hint: res.status === 400 && /privileged/i.test(errorDetail(res)) ? 'Re-run with --privileged if you really mean to grant these scopes.' : 'Fix the request and re-run.',
        status: res.status,
      });
    }
    const body = this.json(res);
    const token = isObject(body) && typeof body.token === 'string' ? body.token : undefined;
    if (!token) {
      throw new CliError('BAD_RESPONSE', 'The runtime created the account but returned no token.', {
        hint: `Revoke it (svc tokens revoke ${req.name}) and try again.`,
      });
    }
    return { account: parseAccount(body), token };
  }

  /** Every account (revoked ones too, unless activeOnly), across all pages. */
  async list(options: { activeOnly?: boolean; until?: (a: Account) => boolean } = {}): Promise<Account[]> {
    const accounts: Account[] = [];
    for (let page = 1; ; page += 1) {
      const query = `page=${page}&limit=${PAGE_LIMIT}${options.activeOnly ? '&include_revoked=false' : ''}`;
      const res = await this.call('GET', `/service-accounts?${query}`);
      if (res.status !== 200) {
        throw new CliError('API_ERROR', `Could not list service accounts: ${errorDetail(res)}`, {
          hint: 'Check the runtime logs, or re-run with --url pointing at the right runtime.',
          status: res.status,
        });
      }
      const body = this.json(res);
      const items = Array.isArray(body) ? body : isObject(body) ? body.data : undefined;
      if (!Array.isArray(items)) break;
      for (const item of items) {
        if (!isObject(item)) continue;
        const account = parseAccount(item);
        accounts.push(account);
        if (options.until?.(account)) return accounts;
      }
      const meta = isObject(body) && isObject(body.meta) ? body.meta : undefined;
      const totalPages = typeof meta?.total_pages === 'number' ? meta.total_pages : 0;
      if (Array.isArray(body) || page >= totalPages) break;
    }
    return accounts;
  }

  async findActive(name: string): Promise<Account | undefined> {
    const found = await this.list({ activeOnly: true, until: (a) => a.name === name && a.revoked_at === null });
    return found.find((a) => a.name === name && a.revoked_at === null);
  }

  async revoke(id: string): Promise<void> {
    const res = await this.call('DELETE', `/service-accounts/${encodeURIComponent(id)}`);
    if (res.status !== 200 && res.status !== 204) {
      throw new CliError('API_ERROR', `Could not revoke service account: ${errorDetail(res)}`, {
        hint: 'Run svc tokens list to check the account, then re-run.',
        status: res.status,
      });
    }
  }

  /** One cheap authenticated call, so a wrong credential fails before anything is minted. */
  async preflight(): Promise<void> {
    const res = await this.call('GET', '/service-accounts?page=1&limit=1');
    if (res.status !== 200) {
      throw new CliError('API_ERROR', `Could not verify the admin credential: ${errorDetail(res)}`, { hint: ADMIN_HINT, status: res.status });
    }
  }

  /** Whether the API answers without any credential: an open plane that cannot mint. */
  async isOpen(): Promise<boolean> {
    try {
      const res = await httpRequest({ method: 'GET', url: joinUrl(this.base, '/service-accounts?page=1&limit=1'), timeoutMs: API_TIMEOUT_MS, env: this.env });
      return res.status === 200;
    } catch {
      return false;
    }
  }
}
