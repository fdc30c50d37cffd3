/**
 * @module server/routes/whoami
 * `GET /auth/whoami`: who the runtime takes the caller to be and what it may do. A client (the
 * control panel) cannot learn a `svc_pat_` token's scopes any other way without the
 * service-accounts scopes, and it must not reimplement the scope grammar to hide what a token
 * lacks: the runtime answers with the same matching rule its routes use.
 */
import { z } from '@hono/zod-openapi';
import { hasScopes, SCOPE_ACTIONS, SCOPE_RESOURCES } from '../../auth/scopes.js';
import type { Principal } from '../../auth/principal.js';
import { isTenantAdmin } from '../../auth/tenancy.js';
import type { ServerContext } from '../context.js';
import { apiRoute, scoped, type RouteDefinition } from '../route.js';

export const WhoamiSchema = z
  .object({
    auth_mode: z.enum(['none', 'security_key', 'jwt']),
    kind: z.enum(['jwt', 'service_account', 'security_key', 'anonymous']),
    user_id: z.string().nullable().openapi({ description: 'The JWT subject, or `sa:<name>` for a service-account token' }),
    service_account: z.string().nullable(),
    scopes: z.array(z.string()).openapi({ description: 'The scopes the credential carries, as given' }),
    scopes_enforced: z
      .boolean()
      .openapi({ description: 'False when route scopes do not apply to this caller (the security key, an open runtime, JWTs without RBAC)' }),
    tenant: z.string().nullable().openapi({
      description:
        'Under tenancy (`tenant_claim`), the tenant whose data this caller is held to; null when tenancy is off or the caller is a global admin (every tenant)',
    }),
    tenant_admin: z.boolean().openapi({ description: "True when the caller administers its tenant (the tenant admin scope): its tenant's data and budgets, no runtime-wide operation" }),
    granted: z.array(z.string()).openapi({
      description:
        'Every global `resource:action` scope this caller is granted, by the rule the routes apply (admin covers all). ' +
        'Per-resource grants (`agents:a1:run`) are in `scopes` only.',
    }),
  })
  .openapi('WhoamiResponse');

/** Every global scope the vocabulary knows, in a stable order. */
const ALL_GLOBAL = SCOPE_RESOURCES.flatMap((resource) => SCOPE_ACTIONS.map((action) => `${resource}:${action}`));

function granted(ctx: ServerContext, principal: Principal): string[] {
  if (!principal.enforceScopes) return ALL_GLOBAL;
  return ALL_GLOBAL.filter((scope) => hasScopes({ held: principal.scopes, required: [scope], adminScope: ctx.auth.adminScope }));
}

/** The caller's tenant as its reads are held to it (auth/tenancy.ts); a caller the runtime cannot place has none. */
function tenancyOf(ctx: ServerContext, principal: Principal): { tenant: string | null; tenant_admin: boolean } {
  let tenant: string | undefined;
  try {
    tenant = ctx.auth.tenantOf(principal);
  } catch {
    tenant = undefined;
  }
  return { tenant: tenant ?? null, tenant_admin: tenant !== undefined && isTenantAdmin(principal, ctx.auth.tenancy) };
}

export function whoamiRoutes(ctx: ServerContext): RouteDefinition[] {
  return [
    apiRoute(
      // Authentication only: any credential the runtime accepts may ask what it is.
      scoped(),
      {
        method: 'get',
        path: '/auth/whoami',
        operationId: 'getCaller',
        tags: ['Auth'],
        summary: 'Who the caller is and which scopes it is granted',
        description:
          'Needs a valid credential (none on an open runtime) and no scope. Lets a client hide what a token may not do ' +
          'instead of waiting for a 403.',
        responses: { 200: { description: 'The caller', content: { 'application/json': { schema: WhoamiSchema } } } },
      },
      (c) => {
        const principal = c.get('principal');
        if (!principal) throw new Error('the auth guard sets the principal on every scoped route');
        return c.json(
          {
            auth_mode: ctx.authMode,
            kind: principal.kind,
            user_id: principal.userId ?? null,
            service_account: principal.serviceAccount ?? null,
            scopes: [...principal.scopes],
            scopes_enforced: principal.enforceScopes,
            ...tenancyOf(ctx, principal),
            granted: granted(ctx, principal),
          },
          200,
        );
      },
    ),
  ];
}
