/**
 * Whether the signed-in caller may do what a control needs. The runtime computes the global
 * grants (`GET /auth/whoami`'s `granted`, by the rule its routes apply); a per-resource grant
 * (`agents:librarian:run`) is read from the token's own scopes.
 */
import type { components } from '../api/schema';

export type Caller = components['schemas']['WhoamiResponse'];

export function can(caller: Caller | undefined, scope: string, id?: string): boolean {
  if (!caller) return false;
  if (!caller.scopes_enforced || caller.granted.includes(scope)) return true;
  if (id === undefined) return false;
  const [resource, action] = scope.split(':');
  return caller.scopes.includes(`${resource}:${id}:${action}`) || caller.scopes.includes(`${resource}:*:${action}`);
}

/** The per-resource read grants let a token list some agents: it may open the page. */
export function canAny(caller: Caller | undefined, scope: string): boolean {
  if (can(caller, scope)) return true;
  const [resource, action] = scope.split(':');
  return caller?.scopes.some((s) => s.startsWith(`${resource}:`) && s.endsWith(`:${action}`)) ?? false;
}
