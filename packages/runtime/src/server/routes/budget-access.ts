/**
 * Who may manage which budgets and read whose usage (docs/ARCHITECTURE.md, "Budgets" and
 * "Isolation and tenants"). A global admin (the admin scope, the security key; without
 * role-based access, every caller not held to a tenant) manages all of them. Under tenancy a
 * tenant admin (or, without role-based access, any caller of a tenant) manages its own tenant's
 * budgets only: scope `tenant` with its tenant as the subject. Principal and agent budgets, and
 * tenant budgets without a subject (each tenant on its own), change every tenant: global admins
 * only, since a principal's counters are kept per user id, not per tenant.
 */
import type { Principal } from '../../auth/principal.js';
import { tenantCannot } from '../../auth/runtime-wide.js';
import type { Budget } from '../../budgets/types.js';
import { RuntimeError } from '../../errors.js';
import type { ServerContext } from '../context.js';

/** What a caller manages: every budget, one tenant's, or none. */
export type BudgetManager = { kind: 'global' } | { kind: 'tenant'; tenant: string } | { kind: 'none' };

export function budgetManager(ctx: ServerContext, principal: Principal | undefined): BudgetManager {
  if (principal === undefined) return { kind: 'none' };
  const admin = !principal.enforceScopes || ctx.auth.isAdmin(principal);
  if (!admin) return { kind: 'none' };
  if (!ctx.auth.heldToTenant(principal)) return { kind: 'global' };
  const tenant = ctx.auth.tenantOf(principal);
  return tenant !== undefined ? { kind: 'tenant', tenant } : { kind: 'none' };
}

/** Whether a tenant manager sees this budget: its tenant's own, and those limiting each tenant on its own (read-only). */
export function visibleToManager(manager: BudgetManager, budget: Pick<Budget, 'scope' | 'subject'>): boolean {
  if (manager.kind === 'global') return true;
  if (manager.kind === 'none') return false;
  return budget.scope === 'tenant' && (budget.subject === manager.tenant || budget.subject === null);
}

/** Refuses a caller who manages no budgets (403). */
export function mustManage(ctx: ServerContext, manager: BudgetManager): void {
  if (manager.kind === 'none') {
    throw new RuntimeError('FORBIDDEN', `Managing budgets needs the admin scope (${ctx.auth.adminScope}), or under tenancy the tenant admin scope for the tenant's own budgets`);
  }
}

/** Refuses a change a tenant manager may not make: only budgets of scope `tenant` whose subject is its tenant. */
export function mustOwn(ctx: ServerContext, manager: BudgetManager, budget: { scope: string; subject?: string | null | undefined }): void {
  mustManage(ctx, manager);
  if (manager.kind !== 'tenant') return;
  if (budget.scope === 'tenant' && budget.subject === manager.tenant) return;
  throw tenantCannot(
    `A budget other than scope "tenant" with subject "${manager.tenant}" (principal and agent budgets, and tenant budgets for every tenant)`,
    ctx.auth.adminScope,
  );
}

/**
 * The usage subject a caller may read: its own; a global admin, anyone's; a tenant manager, its
 * tenant's and its members' (a principal with a session in the tenant, itself included).
 */
export async function usageSubjectFor(
  ctx: ServerContext,
  principal: Principal | undefined,
  q: { principal?: string | undefined; tenant?: string | undefined; agent?: string | undefined },
): Promise<{ principal: string | undefined; tenant: string | undefined; agent: string | undefined }> {
  const own = { principal: principal?.userId, tenant: principal?.tenantId };
  const named = q.principal !== undefined || q.tenant !== undefined || q.agent !== undefined;
  if (!named) return { ...own, agent: undefined };
  const manager = budgetManager(ctx, principal);
  if (manager.kind === 'global') return { principal: q.principal, tenant: q.tenant, agent: q.agent };
  if (manager.kind === 'tenant') {
    if ((q.tenant ?? manager.tenant) !== manager.tenant) throw new RuntimeError('FORBIDDEN', "A tenant admin may read its own tenant's usage only, not another tenant's");
    if (q.principal !== undefined && q.principal !== own.principal && !(await isMember(ctx, manager.tenant, q.principal))) {
      throw new RuntimeError('FORBIDDEN', `"${q.principal}" is not a member of this tenant (no session of theirs belongs to it), so a tenant admin may not read their usage`);
    }
    return { principal: q.principal, tenant: manager.tenant, agent: q.agent };
  }
  if (q.agent !== undefined || (q.principal ?? own.principal) !== own.principal || (q.tenant ?? own.tenant) !== own.tenant) {
    throw new RuntimeError('FORBIDDEN', "Only admins may read another principal's, tenant's or agent's usage");
  }
  return { principal: q.principal, tenant: q.tenant, agent: q.agent };
}

async function isMember(ctx: ServerContext, tenant: string, user: string): Promise<boolean> {
  const page = await ctx.sessions.listSessions({ user_id: user, tenant_id: tenant, limit: 1, page: 1, sort_by: 'created_at', sort_order: 'desc' });
  return page.total > 0;
}
