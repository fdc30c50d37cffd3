/**
 * @module auth/scopes
 * The scope vocabulary and the one matching rule shared by REST routes, MCP tools and token
 * minting. Grammar: the admin scope, `resource:action` (global) or `resource:<id>:action`
 * (per resource, `<id>` may be `*`). Anything else parses as unknown and matches nothing, so
 * a typo can never widen access.
 */

export const DEFAULT_ADMIN_SCOPE = 'agent_os:admin';

/** Resources whose routes carry an id in the second path segment (`/agents/{agent_id}`). */
export const ENTITY_RESOURCES = ['agents', 'teams', 'workflows'] as const;
export type EntityResource = (typeof ENTITY_RESOURCES)[number];

export const SCOPE_RESOURCES = [
  'config', 'registry', 'agents', 'teams', 'workflows', 'sessions', 'memories', 'learnings', 'knowledge',
  'metrics', 'evals', 'traces', 'service_accounts', 'schedules', 'approvals', 'components',
] as const;

export const SCOPE_ACTIONS = ['read', 'write', 'delete', 'run'] as const;

export type ParsedScope =
  | { kind: 'admin'; raw: string }
  | { kind: 'global'; raw: string; resource: string; action: string }
  | { kind: 'resource'; raw: string; resource: string; id: string; action: string }
  | { kind: 'unknown'; raw: string };

const PART = /^[A-Za-z0-9_.*@-]+$/;

/** `system` is the legacy name of `config`; both spellings grant the same thing. */
function canonicalResource(resource: string): string {
  return resource === 'system' ? 'config' : resource;
}

export function parseScope(raw: string, adminScope: string = DEFAULT_ADMIN_SCOPE): ParsedScope {
  if (raw === adminScope) return { kind: 'admin', raw };
  const parts = raw.split(':');
  if (!parts.every((p) => PART.test(p))) return { kind: 'unknown', raw };
  if (parts.length === 2 && parts[0] !== '*' && parts[1] !== '*') {
    return { kind: 'global', raw, resource: canonicalResource(parts[0]!), action: parts[1]! };
  }
  if (parts.length === 3 && parts[0] !== '*' && parts[2] !== '*') {
    return { kind: 'resource', raw, resource: canonicalResource(parts[0]!), id: parts[1]!, action: parts[2]! };
  }
  return { kind: 'unknown', raw };
}

/**
 * A scope we recognise: the admin scope, or a known resource and action. Used to refuse minting
 * tokens with scopes that could never match a route (a typo would otherwise fail silently).
 */
export function isKnownScope(raw: string, adminScope: string = DEFAULT_ADMIN_SCOPE): boolean {
  const s = parseScope(raw, adminScope);
  if (s.kind === 'admin') return true;
  if (s.kind === 'unknown') return false;
  if (s.kind === 'resource' && !(ENTITY_RESOURCES as readonly string[]).includes(s.resource) && s.id !== '*') return false;
  return (SCOPE_RESOURCES as readonly string[]).includes(s.resource) && (SCOPE_ACTIONS as readonly string[]).includes(s.action);
}

/**
 * Scopes whose grant to a token must be deliberate: anything that changes or deletes state,
 * administers the runtime, or mints further tokens. The literal default admin scope counts even
 * when a custom admin scope is configured.
 */
export function isPrivilegedScope(raw: string, adminScope: string = DEFAULT_ADMIN_SCOPE): boolean {
  if (raw === adminScope || raw === DEFAULT_ADMIN_SCOPE) return true;
  const s = parseScope(raw, adminScope);
  if (s.kind === 'global' || s.kind === 'resource') {
    return s.action === 'write' || s.action === 'delete' || s.resource === 'service_accounts';
  }
  return false;
}

/** The entity a request path addresses: `/agents/a1/runs` is agents `a1`; `/agents` has no id. */
export interface ResourceContext {
  resource: EntityResource;
  id: string | undefined;
}

export function resourceContext(path: string): ResourceContext | undefined {
  const segments = path.split('/').filter((s) => s !== '');
  const first = segments[0];
  if (!first || !(ENTITY_RESOURCES as readonly string[]).includes(first)) return undefined;
  const raw = segments[1];
  if (raw === undefined) return { resource: first as EntityResource, id: undefined };
  try {
    return { resource: first as EntityResource, id: decodeURIComponent(raw) };
  } catch {
    return { resource: first as EntityResource, id: raw };
  }
}

/** One held scope covers one required scope (both already parsed). */
function covers(held: ParsedScope, required: ParsedScope): boolean {
  if (held.kind === 'admin') return true;
  if (held.kind === 'unknown' || required.kind === 'unknown' || required.kind === 'admin') return false;
  if (held.resource !== required.resource || held.action !== required.action) return false;
  if (required.kind === 'global') return held.kind === 'global' || held.id === '*';
  // Per-resource requirement: a global grant, a wildcard, or the same id.
  return held.kind === 'global' || held.id === '*' || held.id === required.id;
}

/**
 * Narrows a global requirement to the addressed entity: `agents:run` on `/agents/a1/runs`
 * becomes `agents:a1:run`, so `agents:a1:run` grants it and `agents:a2:run` does not.
 */
export function contextualize(required: string, context: ResourceContext | undefined, adminScope: string): ParsedScope {
  const parsed = parseScope(required, adminScope);
  if (parsed.kind === 'global' && context?.id !== undefined && parsed.resource === context.resource) {
    return { kind: 'resource', raw: `${parsed.resource}:${context.id}:${parsed.action}`, resource: parsed.resource, id: context.id, action: parsed.action };
  }
  return parsed;
}

export interface ScopeCheckInput {
  held: readonly string[];
  required: readonly string[];
  context?: ResourceContext | undefined;
  adminScope?: string;
}

/** True when every required scope is covered (an empty requirement always passes). */
/**
 * The parsed form of a principal's scopes, kept per scope list: a cached principal keeps the
 * same list object, so its scopes are parsed once rather than on every request.
 */
const parsedCache = new WeakMap<readonly string[], { adminScope: string; parsed: ParsedScope[] }>();

function parsedScopes(held: readonly string[], adminScope: string): ParsedScope[] {
  const hit = parsedCache.get(held);
  if (hit && hit.adminScope === adminScope) return hit.parsed;
  const parsed = held.map((s) => parseScope(s, adminScope));
  parsedCache.set(held, { adminScope, parsed });
  return parsed;
}

export function hasScopes({ held, required, context, adminScope = DEFAULT_ADMIN_SCOPE }: ScopeCheckInput): boolean {
  if (required.length === 0) return true;
  const parsedHeld = parsedScopes(held, adminScope);
  if (parsedHeld.some((s) => s.kind === 'admin')) return true;
  return required.every((r) => {
    const want = contextualize(r, context, adminScope);
    return parsedHeld.some((h) => covers(h, want));
  });
}

/**
 * The ids of `resource` the caller may `action`, for filtering a listing: `'*'` when a global,
 * wildcard or admin scope grants all of them, otherwise the named ids (possibly none).
 */
export function accessibleIds(
  held: readonly string[],
  resource: string,
  action: string,
  adminScope: string = DEFAULT_ADMIN_SCOPE,
): '*' | ReadonlySet<string> {
  const ids = new Set<string>();
  for (const raw of held) {
    const s = parseScope(raw, adminScope);
    if (s.kind === 'admin') return '*';
    if (s.kind === 'unknown' || s.resource !== resource || s.action !== action) continue;
    if (s.kind === 'global' || s.id === '*') return '*';
    ids.add(s.id);
  }
  return ids;
}

/** Whether `granter` may hand `requested` on (the subset rule of token minting). */
export function canGrant(granter: readonly string[], requested: string, adminScope: string = DEFAULT_ADMIN_SCOPE): boolean {
  const want = parseScope(requested, adminScope);
  const held = granter.map((s) => parseScope(s, adminScope));
  if (held.some((s) => s.kind === 'admin')) return true;
  if (want.kind === 'admin' || want.kind === 'unknown') return false;
  if (want.kind === 'resource' && want.id === '*') {
    // A wildcard is as broad as the global scope, so only those two can grant it.
    return held.some((h) => h.kind !== 'unknown' && h.kind !== 'admin' && h.resource === want.resource && h.action === want.action && (h.kind === 'global' || h.id === '*'));
  }
  return held.some((h) => covers(h, want));
}
