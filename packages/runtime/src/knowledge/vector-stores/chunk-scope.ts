/**
 * @module knowledge/vector-stores/chunk-scope
 * Which chunk rows a search or key listing may see: the caller's user (shared chunks, without
 * an owner, and its own) and its tenant (that tenant's chunks only: never another tenant's, nor
 * those stored without a tenant). Both are columns of the chunk rows, put in the same WHERE as
 * the filters, so `limit` is still met whenever that many chunks are visible. An absent field
 * confines nothing.
 */
export interface ChunkScope {
  readonly user?: string | undefined;
  readonly tenant?: string | undefined;
}

/** The scope of a user id and a tenant as the SDK takes them, or undefined when neither confines. */
export function chunkScope(user: string | undefined, tenant: string | undefined): ChunkScope | undefined {
  if (user === undefined && tenant === undefined) return undefined;
  return { ...(user !== undefined ? { user } : {}), ...(tenant !== undefined ? { tenant } : {}) };
}

/** A store's argument as callers give it: a user id alone (as before tenants) or a scope. */
export function asScope(visibleTo: string | ChunkScope | undefined): ChunkScope | undefined {
  return typeof visibleTo === 'string' ? { user: visibleTo } : visibleTo;
}

/** A stable key for caching what one scope sees. */
export function scopeKey(scope: ChunkScope | undefined): string {
  return scope === undefined ? '' : JSON.stringify([scope.user ?? null, scope.tenant ?? null]);
}
