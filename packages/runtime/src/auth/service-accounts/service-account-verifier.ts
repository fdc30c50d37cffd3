/**
 * @module auth/service-accounts/service-account-verifier
 * Turns a `svc_pat_` bearer into a principal. By default every request looks the token up in
 * the database (one indexed read), so a revocation by any runtime sharing the database takes
 * effect on the token's next request. A positive cache can be enabled with a TTL for
 * deployments that accept that delay.
 */
import { timingSafeEqual } from 'node:crypto';
import { RuntimeError } from '../../errors.js';
import type { Logger } from '../../server/logger.js';
import { BoundedCache } from '../bounded-cache.js';
import { sha256Hex } from '../credentials.js';
import type { Principal } from '../principal.js';
import type { ServiceAccountStore } from './service-account-store.js';
import { isActive, principalOf, type ServiceAccount } from './types.js';

export interface ServiceAccountVerifierOptions {
  /** Keep verified accounts this long (0, the default, looks up every request). */
  cacheTtlMs?: number;
  /** At most one `last_used_at` write per account per this interval, per process. */
  touchIntervalMs?: number;
}

export class ServiceAccountVerifier {
  private readonly cache = new BoundedCache<ServiceAccount>(2048);
  private readonly touched = new BoundedCache<true>(2048);
  private readonly cacheTtlMs: number;
  private readonly touchIntervalMs: number;

  constructor(
    private readonly store: ServiceAccountStore,
    private readonly log: Logger,
    options: ServiceAccountVerifierOptions = {},
  ) {
    this.cacheTtlMs = options.cacheTtlMs ?? 0;
    this.touchIntervalMs = options.touchIntervalMs ?? 60_000;
  }

  /**
   * The principal of a valid token; undefined for an unknown, revoked or expired one (callers
   * answer all three alike, so a token's state is not revealed). A database failure is a 503.
   */
  async verify(token: string, now = Date.now()): Promise<Principal | undefined> {
    const hash = sha256Hex(token);
    let account = this.cache.get(hash, now);
    if (!account) {
      try {
        account = await this.store.findByTokenHash(hash);
      } catch (error) {
        this.log.error('service-account lookup failed', error);
        throw new RuntimeError('SERVICE_UNAVAILABLE', 'Authentication is temporarily unavailable');
      }
      if (!account || !sameHash(account.token_hash, hash)) return undefined;
      if (this.cacheTtlMs > 0 && account.revoked_at === null) this.cache.set(hash, account, now + this.cacheTtlMs);
    }
    // Checked on cache hits too, so a token expiring while cached stops at once.
    if (!isActive(account, Math.floor(now / 1000))) {
      this.cache.delete(hash);
      return undefined;
    }
    this.touch(account, now);
    return {
      kind: 'service_account',
      userId: principalOf(account.name),
      scopes: account.scopes,
      enforceScopes: true,
      serviceAccount: account.name,
    };
  }

  /** Drops a revoked account from this process's cache at once. */
  forget(tokenHash: string): void {
    this.cache.delete(tokenHash);
  }

  private touch(account: ServiceAccount, now: number): void {
    if (this.touched.get(account.id, now)) return;
    this.touched.set(account.id, true, now + this.touchIntervalMs);
    // Off the request path: a slow or failed write must not delay or fail the request.
    this.store.touch(account.id, Math.floor(now / 1000)).catch(() => this.log.warn(`could not record last_used_at of service account ${account.id}`));
  }
}

function sameHash(stored: string, computed: string): boolean {
  const a = Buffer.from(stored, 'utf8');
  const b = Buffer.from(computed, 'utf8');
  return a.length === b.length && timingSafeEqual(a, b);
}
