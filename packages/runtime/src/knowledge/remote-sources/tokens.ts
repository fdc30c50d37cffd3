/**
 * @module knowledge/remote-sources/tokens
 * Access tokens a source obtains, cached until shortly before they expire.
 *
 * An OAuth client-credentials or JWT-bearer grant, or a GitHub App installation token.
 * Concurrent callers share one request; a failed request is not cached. RS256 JWTs are signed
 * by jose, through WebCrypto, which runs in libuv's thread pool rather than on the event loop.
 */
import { createPrivateKey, type KeyObject } from 'node:crypto';
import { SignJWT } from 'jose';
import { ConfigurationError } from '../../errors.js';
import { RemoteSourceError } from './errors.js';
import { jsonOf, type SourceHttp } from './http.js';

export interface IssuedToken {
  token: string;
  /** Epoch ms. */
  expiresAt: number;
}

/** Tokens are renewed this long before they expire, so one never lapses mid-request. */
const EARLY_MS = 60_000;

export class TokenCache {
  private current: IssuedToken | undefined;
  private pending: Promise<IssuedToken> | undefined;

  constructor(
    private readonly issue: () => Promise<IssuedToken>,
    private readonly now: () => number = Date.now,
  ) {}

  async get(): Promise<string> {
    const current = this.current;
    if (current && current.expiresAt - Math.min(EARLY_MS, (current.expiresAt - this.now()) / 2) > this.now()) return current.token;
    this.pending ??= this.issue().then(
      (issued) => {
        this.current = issued;
        this.pending = undefined;
        return issued;
      },
      (error: unknown) => {
        this.pending = undefined;
        throw error;
      },
    );
    return (await this.pending).token;
  }

  invalidate(): void {
    this.current = undefined;
  }
}

/**
 * Parses a PEM private key once, at construction, naming the setting when it is not one.
 * node:crypto rather than jose's importPKCS8: GitHub hands out App keys as PKCS#1
 * (`BEGIN RSA PRIVATE KEY`), which importPKCS8 refuses; jose signs with the KeyObject as is.
 */
export function privateKeyFrom(pem: string, where: string): KeyObject {
  if (!/-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(pem)) throw new ConfigurationError(`${where} is not a PEM private key (it must start with -----BEGIN)`);
  try {
    const key = createPrivateKey(pem);
    if (key.asymmetricKeyType !== 'rsa') throw new ConfigurationError(`${where} must be an RSA key (RS256)`);
    // jose refuses to sign RS256 with less, and would only say so at the first token request.
    if ((key.asymmetricKeyDetails?.modulusLength ?? 0) < 2048) throw new ConfigurationError(`${where} must be an RSA key of at least 2048 bits (RS256)`);
    return key;
  } catch (error) {
    if (error instanceof ConfigurationError) throw error;
    throw new ConfigurationError(`${where} cannot be read as a private key`);
  }
}

/** A compact RS256 JWT with `{alg, typ, ...header}` and the claims in the order given. */
export function signJwt(header: { kid?: string }, claims: Record<string, unknown>, key: KeyObject): Promise<string> {
  return new SignJWT(claims).setProtectedHeader({ alg: 'RS256', typ: 'JWT', ...header }).sign(key);
}

/**
 * An OAuth 2.0 token request (client credentials, or a JWT bearer assertion): a form POST whose
 * answer is `{access_token, expires_in}`. The provider turning the credentials down (400
 * invalid_client, invalid_grant...) is reported as refused credentials, with its error code.
 */
export async function requestToken(http: SourceHttp, url: string, form: Record<string, string>, signal: AbortSignal | undefined): Promise<IssuedToken> {
  let answer;
  try {
    answer = await http.request({
      url,
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: new URLSearchParams(form).toString(),
      maxBytes: 1024 * 1024,
      path: '(access token)',
      signal,
      credentials: true,
      explain: (response) => {
        const body = jsonOf(response) as { error?: unknown; error_description?: unknown } | undefined;
        if (typeof body?.error !== 'string') return undefined;
        // Microsoft's descriptions carry trace ids and timestamps after the first line.
        const description = typeof body.error_description === 'string' ? body.error_description.split(/\r?\n/)[0] : undefined;
        return `${body.error}${description ? `: ${description}` : ''}`;
      },
    });
  } catch (error) {
    if (error instanceof RemoteSourceError && (error.reason === 'refused' || error.reason === 'forbidden')) {
      throw http.failure('unauthorized', error.path, error.message.replace(/^.*?\((.*)\)$/s, '$1'));
    }
    throw error;
  }
  const body = jsonOf(answer) as { access_token?: unknown; expires_in?: unknown } | undefined;
  if (typeof body?.access_token !== 'string' || body.access_token === '') throw http.badAnswer('(access token)', 'the token answer has no access_token');
  const seconds = typeof body.expires_in === 'number' ? body.expires_in : typeof body.expires_in === 'string' ? Number(body.expires_in) : 3600;
  return { token: body.access_token, expiresAt: Date.now() + (Number.isFinite(seconds) && seconds > 0 ? seconds : 3600) * 1000 };
}
