/**
 * `/service-accounts`: mint, list and revoke long-lived scoped tokens (`svc_pat_...`). The
 * token is returned once, at creation; only its SHA-256 is stored.
 */
import { z } from '@hono/zod-openapi';
import type { Principal } from '../../auth/principal.js';
import { isTenantAdmin } from '../../auth/tenancy.js';
import { canGrant, isKnownScope, isPrivilegedScope } from '../../auth/scopes.js';
import { SORTABLE, type SortColumn } from '../../auth/service-accounts/service-account-store.js';
import { mintToken } from '../../auth/service-accounts/token.js';
import { DEFAULT_SERVICE_ACCOUNT_SCOPES, principalOf, SERVICE_ACCOUNT_NAME, type ServiceAccount } from '../../auth/service-accounts/types.js';
import { RuntimeError } from '../../errors.js';
import { epochSeconds } from '../../sessions/types.js';
import type { ServerContext } from '../context.js';
import { validationError } from '../errors.js';
import { apiRoute, scoped, type RouteDefinition } from '../route.js';
import { standardErrors } from '../standard-errors.js';

const NAME_RULE = "Name must be a lowercase slug: start with a letter or digit, then letters, digits, '_' or '-' (max 63 chars)";

const ServiceAccountSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    principal: z.string().openapi({ example: 'sa:ci-bot' }),
    user_id: z.string().nullable(),
    token_prefix: z.string().openapi({ example: 'svc_pat_3kTq9xZ' }),
    scopes: z.array(z.string()),
    created_at: z.number().int(),
    expires_at: z.number().int().nullable(),
    last_used_at: z.number().int().nullable(),
    revoked_at: z.number().int().nullable(),
    created_by: z.string().nullable(),
    tenant_id: z.string().nullable().openapi({ description: 'The tenant that minted it (tenancy on); its tokens act in that tenant only' }),
  })
  .openapi('ServiceAccount');

const CreatedSchema = ServiceAccountSchema.extend({
  token: z.string().openapi({ description: 'The plaintext token. Shown only in this response; store it now.' }),
}).openapi('ServiceAccountCreated');

const CreateSchema = z
  .object({
    name: z.string().regex(SERVICE_ACCOUNT_NAME, NAME_RULE),
    scopes: z
      .array(z.object({ scope: z.string().min(1).max(200), effect: z.enum(['allow', 'deny']).default('allow') }).strict())
      .max(100)
      .nullable()
      .optional()
      .openapi({ description: `Grants; null or absent means ${DEFAULT_SERVICE_ACCOUNT_SCOPES.join(', ')}` }),
    expires_in_days: z.number().int().min(1).max(3650).nullable().optional().openapi({ description: 'Default 90' }),
    never_expires: z.boolean().default(false),
    allow_privileged_scopes: z.boolean().default(false).openapi({ description: 'Required for write, delete, admin and service_accounts scopes' }),
    tenant_id: z
      .string()
      .min(1)
      .max(200)
      .optional()
      .openapi({ description: 'With tenancy on: the tenant the account belongs to. Only a global admin (or the security key) may name one; others mint in their own tenant' }),
  })
  .strict()
  .openapi('ServiceAccountCreate');

const flag = z
  .enum(['true', 'false', '1', '0'])
  .optional()
  .transform((v) => v === undefined || v === 'true' || v === '1');

const ListQuerySchema = z.object({
  include_revoked: flag.openapi({ description: 'Default true' }),
  limit: z.coerce.number().int().min(1).max(100).default(20),
  page: z.coerce.number().int().min(1).max(1_000_000).default(1),
  sort_by: z.string().max(40).default('created_at').openapi({ description: `One of ${SORTABLE.join(', ')}; anything else sorts by created_at` }),
  sort_order: z.string().max(10).default('desc').openapi({ description: 'asc, or desc (anything else)' }),
});

const idParam = z.object({ service_account_id: z.string().min(1).max(100).openapi({ param: { name: 'service_account_id', in: 'path' } }) });

function toResponse(a: ServiceAccount): z.infer<typeof ServiceAccountSchema> {
  return {
    id: a.id,
    name: a.name,
    principal: principalOf(a.name),
    user_id: a.user_id,
    token_prefix: a.token_prefix,
    scopes: a.scopes,
    created_at: a.created_at,
    expires_at: a.expires_at,
    last_used_at: a.last_used_at,
    revoked_at: a.revoked_at,
    created_by: a.created_by,
    tenant_id: a.tenant_id,
  };
}

/** The minting rules, in order: 400 unknown, 400 privileged, 401 anonymous, 403 not held. */
function checkGrant(ctx: ServerContext, caller: Principal, scopes: readonly string[], allowPrivileged: boolean): void {
  const admin = ctx.auth.adminScope;
  const { tenancy } = ctx.auth;
  // With tenancy on the tenant admin scope is a scope like any other, and a privileged one.
  const tenantAdmin = tenancy.claim !== undefined ? tenancy.tenantAdminScope : undefined;
  const unknown = scopes.filter((s) => s !== tenantAdmin && !isKnownScope(s, admin));
  if (unknown.length) throw new RuntimeError('BAD_REQUEST', `Invalid scope(s): ${unknown.join(', ')}`);
  const privileged = scopes.filter((s) => s === tenantAdmin || isPrivilegedScope(s, admin));
  if (privileged.length && !allowPrivileged) {
    throw new RuntimeError(
      'BAD_REQUEST',
      `Privileged scope(s) require allow_privileged_scopes=true: ${privileged.join(', ')}. Privileged tokens must be deliberate, never accidental.`,
    );
  }
  // The security key is the root credential; everyone else can only pass on what they hold.
  if (caller.kind === 'security_key') return;
  if (caller.kind === 'anonymous') throw new RuntimeError('UNAUTHENTICATED', 'Authentication is required to mint a service account.');
  // A tenant admin passes on anything of its tenant's but the global admin scope.
  const administers = tenantAdmin !== undefined && isTenantAdmin(caller, tenancy);
  const missing = scopes.filter((s) => (administers ? s === admin && !canGrant(caller.scopes, s, admin) : !canGrant(caller.scopes, s, admin)));
  if (missing.length) throw new RuntimeError('FORBIDDEN', `Cannot grant scope(s) you do not hold: ${missing.join(', ')}`);
}

/**
 * The tenant a new account belongs to: the minter's (a JWT's claim, a service account's own);
 * a global admin or the security key may name one instead, anyone else naming another is refused.
 */
function mintingTenant(ctx: ServerContext, caller: Principal, asked: string | undefined): string | null {
  if (ctx.auth.tenancy.claim === undefined) {
    if (asked !== undefined) throw new RuntimeError('BAD_REQUEST', 'tenant_id needs tenancy (authorization_config.tenant_claim) on');
    return null;
  }
  const confined = ctx.auth.tenantOf(caller);
  if (confined !== undefined) {
    if (asked !== undefined && asked !== confined) throw new RuntimeError('FORBIDDEN', 'A service account can only be minted in your own tenant');
    return confined;
  }
  return asked ?? caller.tenantId ?? null;
}

export function serviceAccountRoutes(ctx: ServerContext): RouteDefinition[] {
  const store = ctx.serviceAccountStore;
  return [
    apiRoute(
      scoped('service_accounts:write'),
      {
        method: 'post',
        path: '/service-accounts',
        operationId: 'createServiceAccount',
        tags: ['Service accounts'],
        summary: 'Create a service account and its token',
        request: { body: { required: true, content: { 'application/json': { schema: CreateSchema } } } },
        responses: {
          201: { description: 'The account and its token (shown once)', content: { 'application/json': { schema: CreatedSchema } } },
          409: standardErrors[400],
          ...standardErrors,
        },
      },
      async (c) => {
        const body = c.req.valid('json');
        const requested = body.scopes ?? DEFAULT_SERVICE_ACCOUNT_SCOPES.map((scope) => ({ scope, effect: 'allow' as const }));
        requested.forEach((s, i) => {
          if (s.effect !== 'allow') {
            throw validationError([
              { loc: ['body', 'scopes', i, 'effect'], msg: `Token scopes are grants: effect must be 'allow' (got '${s.effect}' for '${s.scope}')`, type: 'value_error' },
            ]);
          }
        });
        const scopes = [...new Set(requested.map((s) => s.scope))];
        const caller = c.get('principal') ?? { kind: 'anonymous', userId: undefined, scopes: [], enforceScopes: false };
        checkGrant(ctx, caller, scopes, body.allow_privileged_scopes);
        const tenantId = mintingTenant(ctx, caller, body.tenant_id);
        const now = epochSeconds();
        const minted = mintToken();
        const account = await store.create({
          name: body.name,
          userId: caller.userId ?? null,
          createdBy: caller.userId ?? null,
          tokenHash: minted.hash,
          tokenPrefix: minted.prefix,
          scopes,
          createdAt: now,
          expiresAt: body.never_expires ? null : now + (body.expires_in_days ?? 90) * 86_400,
          tenantId,
        });
        return c.json({ ...toResponse(account), token: minted.token }, 201);
      },
    ),
    apiRoute(
      scoped('service_accounts:read'),
      {
        method: 'get',
        path: '/service-accounts',
        operationId: 'listServiceAccounts',
        tags: ['Service accounts'],
        summary: 'List service accounts (revoked ones included by default)',
        request: { query: ListQuerySchema },
        responses: {
          200: {
            description: 'A page of accounts; tokens and hashes are never included',
            content: {
              'application/json': {
                schema: z.object({
                  data: z.array(ServiceAccountSchema),
                  meta: z.object({ page: z.number().int(), limit: z.number().int(), total_pages: z.number().int(), total_count: z.number().int(), search_time_ms: z.number() }),
                }),
              },
            },
          },
          ...standardErrors,
        },
      },
      async (c) => {
        const q = c.req.valid('query');
        const started = performance.now();
        const sortBy: SortColumn = (SORTABLE as readonly string[]).includes(q.sort_by) ? (q.sort_by as SortColumn) : 'created_at';
        const page = await store.list({
          includeRevoked: q.include_revoked,
          limit: q.limit,
          page: q.page,
          sortBy,
          sortOrder: q.sort_order === 'asc' ? 'asc' : 'desc',
          tenant: ctx.auth.tenantOf(c.get('principal')),
        });
        return c.json(
          {
            data: page.data.map(toResponse),
            meta: {
              page: q.page,
              limit: q.limit,
              total_pages: Math.ceil(page.total / q.limit),
              total_count: page.total,
              search_time_ms: Math.round((performance.now() - started) * 100) / 100,
            },
          },
          200,
        );
      },
    ),
    apiRoute(
      scoped('service_accounts:delete'),
      {
        method: 'delete',
        path: '/service-accounts/{service_account_id}',
        operationId: 'revokeServiceAccount',
        tags: ['Service accounts'],
        summary: 'Revoke a service account (idempotent); its token stops working on its next request',
        request: { params: idParam },
        responses: { 204: { description: 'Revoked (or already revoked)' }, ...standardErrors },
      },
      async (c) => {
        const { service_account_id: id } = c.req.valid('param');
        // Another tenant's account is not there for a confined caller.
        const tenant = ctx.auth.tenantOf(c.get('principal'));
        if (tenant !== undefined && (await store.get(id))?.tenant_id !== tenant) throw new RuntimeError('NOT_FOUND', `Service account '${id}' not found`);
        const account = await store.revoke(id, epochSeconds());
        if (!account) throw new RuntimeError('NOT_FOUND', `Service account '${id}' not found`);
        // Every runtime's token cache drops it before this answers.
        await ctx.auth.serviceAccounts?.revoked(account.token_hash);
        return c.body(null, 204);
      },
    ),
  ];
}
