/**
 * @module auth/user-scope
 * User isolation (`authorization_config.user_isolation`, `USER_ISOLATION`, on by default): which
 * user's data a caller is confined to. Sessions, runs and their events, traces, knowledge
 * content, memories and schedules all ask it (the tenant a caller is held to is auth/tenancy's);
 * the rule is kept here, apart from any route, so every read path shares it.
 */
import { RuntimeError } from '../errors.js';
import type { Principal } from './principal.js';

export interface UserScopeOptions {
  /** Whether the runtime runs with user isolation. */
  isolation: boolean;
  adminScope: string;
  /** With tenancy on: the scope that administers a tenant, which no user isolation confines either. */
  tenantAdminScope?: string | undefined;
}

/** Whether `principal` holds the admin scope, or (with tenancy) the tenant admin scope and a tenant. */
export function unconfinedAdmin(principal: Principal, options: Pick<UserScopeOptions, 'adminScope' | 'tenantAdminScope'>): boolean {
  if (principal.scopes.includes(options.adminScope)) return true;
  return options.tenantAdminScope !== undefined && principal.tenantId !== undefined && principal.scopes.includes(options.tenantAdminScope);
}

/**
 * The user a caller is confined to, or undefined when it is not confined. As in the reference:
 * admins (the admin scope) never are; a service-account token always is, to its own `sa:<name>`
 * user, isolation or not (its sessions are confined the same way, see server/routes/sessions.ts);
 * callers with no user at all (the security key, an open runtime's anonymous caller) never are;
 * any other caller is when isolation is on. A JWT without a user id under isolation is refused
 * rather than let through unconfined: its token would otherwise see every user's data.
 */
export function scopedUserId(principal: Principal | undefined, options: UserScopeOptions): string | undefined {
  if (!principal) return undefined;
  if (principal.kind === 'security_key' || principal.kind === 'anonymous') return undefined;
  if (unconfinedAdmin(principal, options)) return undefined;
  if (principal.kind === 'service_account' && principal.userId) return principal.userId;
  if (!options.isolation) return undefined;
  if (principal.userId === undefined || principal.userId === '') {
    throw new RuntimeError('FORBIDDEN', 'User isolation is on and this token names no user (it has no `sub` claim), so it can reach no user data');
  }
  return principal.userId;
}

/**
 * The user a run's data reads are confined to (unless an admin started or continued it): the
 * run's own user under isolation, and a service account's always. Decided from the run's user,
 * not the caller, so a backend holding the security key that runs agents for its users with
 * `user_id` gets each run confined to that user; a run without a user is not confined.
 */
export function runScope(userId: string | undefined, isolation: boolean): string | undefined {
  if (userId === undefined || userId === '') return undefined;
  return isolation || userId.startsWith('sa:') ? userId : undefined;
}

/**
 * The user whose personal data (memories) a caller may reach, or undefined for all of it. Stricter
 * than `scopedUserId`: a memory is about one person, so any caller that names a user (a JWT's
 * `sub`, a service account's `sa:<name>`) is confined to its own, isolation or not; admins, the
 * security key and an open runtime's anonymous caller are not. A non-admin JWT naming no user
 * is refused: it would otherwise reach everyone's.
 */
export function personalDataOwner(
  principal: Principal | undefined,
  options: Pick<UserScopeOptions, 'adminScope' | 'tenantAdminScope'>,
): string | undefined {
  if (!principal || principal.kind === 'security_key' || principal.kind === 'anonymous') return undefined;
  if (unconfinedAdmin(principal, options)) return undefined;
  if (principal.userId === undefined || principal.userId === '') {
    throw new RuntimeError('FORBIDDEN', 'This token names no user (it has no `sub` claim), so it can reach no user memories');
  }
  return principal.userId;
}
