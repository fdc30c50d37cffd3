/**
 * @module auth/service-accounts/service-account-verifier
 * Turns a `svc_pat_` bearer into a principal. Verified tokens are cached in memory, and a
 * revocation by any runtime sharing the database reaches every cache before the revoking request
 * returns (see revocations.ts). Whenever that cannot be guaranteed (the notification bus is down,
 * the heartbeat is stale) the cache is bypassed and the token is looked up in the database.
 */
import { timingSafeEqual } from 'node:crypto';
import { RuntimeError } from '../../errors.js';
import type { Logger } from '../../util/logger.js';
import { BoundedCache } from '../bounded-cache.js';
import { sha256Hex } from '../credentials.js';
import type { Principal } from '../principal.js';
import type { Revocations } from './revocations.js';
import type { ServiceAccountStore } from './service-account-store.js';
import { isActive, principalOf, type ServiceAccount } from './types.js';

export interface ServiceAccountVerifierOptions {
  /** Keep verified accounts this long; 0 looks up every request. */
  cacheTtlMs?: number;
  /** Makes the cache coherent across runtimes; without it, cached tokens live out their TTL. */
  revocations?: Revocations | undefined;
  /** At most one `last_used_at` write per account per this interval, per process. */
  touchIntervalMs?: number;
}

export class ServiceAccountVerifier {
  /** Verified accounts with the principal built for them, by token hash. */
  private readonly cache = new BoundedCache<{ account: ServiceAccount; principal: Principal }>(2048);
  private readonly touched = new BoundedCache<true>(2048);
  private readonly cacheTtlMs: number;
  private readonly touchIntervalMs: number;
  private readonly revocations: Revocations | undefined;

  constructor(
    private readonly store: ServiceAccountStore,
    private readonly log: Logger,
    options: ServiceAccountVerifierOptions = {},
  ) {
    this.cacheTtlMs = options.cacheTtlMs ?? 0;
    this.touchIntervalMs = options.touchIntervalMs ?? 60_000;
    this.revocations = options.revocations;
    this.revocations?.onEvict((hash) => (hash === undefined ? this.cache.clear() : this.cache.delete(hash)));
  }

  /**
   * The principal of a valid token; undefined for an unknown, revoked or expired one (callers
   * answer all three alike, so a token's state is not revealed). A database failure is a 503.
   */
  async verify(token: string, now = Date.now()): Promise<Principal | undefined> {
    const hash = sha256Hex(token);
    const cacheable = this.cacheTtlMs > 0 && (this.revocations?.trusted(now) ?? true);
    const cached = cacheable ? this.cache.get(hash, now) : undefined;
    let account = cached?.account;
    if (!account) {
      try {
        account = await this.store.findByTokenHash(hash);
      } catch (error) {
        this.log.error('service-account lookup failed', error);
        throw new RuntimeError('SERVICE_UNAVAILABLE', 'Authentication is temporarily unavailable');
      }
      if (!account || !sameHash(account.token_hash, hash)) return undefined;
    }
    // Checked on cache hits too, so a token expiring while cached stops at once.
    if (!isActive(account, Math.floor(now / 1000))) {
      this.cache.delete(hash);
      return undefined;
    }
    this.touch(account, now);
    if (cached) return cached.principal;
    const principal: Principal = {
      kind: 'service_account',
      userId: principalOf(account.name),
      scopes: account.scopes,
      enforceScopes: true,
      serviceAccount: account.name,
      // Its tokens act in the tenant that minted it (auth/tenancy.ts).
      ...(account.tenant_id !== null ? { tenantId: account.tenant_id } : {}),
    };
    if (cacheable && account.revoked_at === null) this.cache.set(hash, { account, principal }, now + this.cacheTtlMs);
    return principal;
  }

  /** The principal of a token verified before and still trustworthy in the cache, else undefined. */
  cached(token: string, now = Date.now()): Principal | undefined {
    if (this.cacheTtlMs === 0 || !(this.revocations?.trusted(now) ?? true)) return undefined;
    const hit = this.cache.get(sha256Hex(token), now);
    if (!hit || !isActive(hit.account, Math.floor(now / 1000))) return undefined;
    this.touch(hit.account, now);
    return hit.principal;
  }

  /**
   * Drops a revoked token from this process's cache and, through the notification bus, from
   * every other runtime's, resolving once they have confirmed (bounded).
   */
  async revoked(tokenHash: string): Promise<void> {
    this.cache.delete(tokenHash);
    await this.revocations?.announce(tokenHash);
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
