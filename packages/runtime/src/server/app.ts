/**
 * @module server/app
 * Assembles the Hono app from the route declarations: one error envelope, a body limit, a
 * request id, trailing-slash tolerance, and the OpenAPI 3.1 document derived from the same
 * zod schemas that validate requests.
 */
import { OpenAPIHono } from '@hono/zod-openapi';
import type { Handler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { ConfigurationError } from '../errors.js';
import type { AppEnv, ServerContext } from './context.js';
import { errorResponse, handleError, toFieldErrors, validationError } from './errors.js';
import { normalizedPath } from './normalize-path.js';
import { authGuard } from './auth-guard.js';
import { inputGuard } from './input-guard.js';
import { realmFor } from '../auth/challenge.js';
import { routeEntry, type RouteDefinition, type RouteEntry } from './route.js';
import { componentRoutes } from './routes/components.js';
import { configRoutes } from './routes/config.js';
import { mcpServersRoutes } from './routes/mcp-servers.js';
import { docsRoutes } from './routes/docs.js';
import { healthRoutes } from './routes/health.js';
import { homeRoutes } from './routes/home.js';
import { infoRoutes } from './routes/info.js';
import { serviceAccountRoutes } from './routes/service-accounts.js';
import { memoryRoutes } from './routes/memories.js';
import { sessionRoutes } from './routes/sessions.js';
import { traceRoutes } from './routes/traces.js';
import { uiRoutes } from './routes/ui.js';
import { whoamiRoutes } from './routes/whoami.js';
import { runWebhookRoutes } from './routes/run-webhooks.js';
import { scheduleRoutes } from './routes/schedules.js';
import { budgetRoutes } from './routes/budgets.js';
import { knowledgeConfigRoutes } from './routes/knowledge/config.js';
import { knowledgeContentRoutes } from './routes/knowledge/content.js';
import { knowledgeRemoteContentRoutes } from './routes/knowledge/remote-content.js';
import { knowledgeSearchRoutes } from './routes/knowledge/search.js';
import { knowledgeSourcesRoutes } from './routes/knowledge/sources.js';
import { knowledgeReindexRoutes } from './routes/knowledge/reindex.js';
import { knowledgeEvalRoutes } from './routes/knowledge/evals.js';
import { mcpChallenge, mcpOAuthRoutes } from './routes/mcp-oauth.js';
import { mcpRoutes } from './routes/mcp.js';

/** The version of the HTTP interface description (not of the runtime itself). */
export const API_VERSION = '2.7.2';

export interface BuiltApp {
  app: OpenAPIHono<AppEnv>;
  /** Every registered route with its access decision, in registration order. */
  routes: RouteEntry[];
}

export interface AppParts {
  /** Routes contributed by other modules (agents, auth, MCP...), registered after the core. */
  routes?: (ctx: ServerContext) => RouteDefinition[];
}

export function buildApp(ctx: ServerContext, parts: AppParts = {}): BuiltApp {
  const app = new OpenAPIHono<AppEnv>({
    getPath: normalizedPath,
    defaultHook: (result) => {
      if (!result.success) throw validationError(toFieldErrors(result.target, result.error));
    },
  });

  // Only methods that carry a body pay for the limit check; reads stay on the fast path.
  app.on(
    ['POST', 'PUT', 'PATCH', 'DELETE'],
    '*',
    bodyLimit({
      maxSize: ctx.maxBodyBytes,
      onError: () => errorResponse('PAYLOAD_TOO_LARGE', `Request body exceeds the limit of ${ctx.maxBodyBytes} bytes`),
    }),
  );

  app.openAPIRegistry.registerComponent('securitySchemes', 'HTTPBearer', {
    type: 'http',
    scheme: 'bearer',
    description: 'A JWT, a service-account token (svc_pat_...), or the security key, depending on auth_mode',
  });

  const definitions: RouteDefinition[] = [
    ...homeRoutes(ctx),
    ...healthRoutes(ctx),
    ...infoRoutes(ctx),
    ...configRoutes(ctx),
    ...mcpServersRoutes(ctx),
    ...knowledgeConfigRoutes(ctx),
    ...knowledgeContentRoutes(ctx),
    ...knowledgeRemoteContentRoutes(ctx),
    ...knowledgeSearchRoutes(ctx),
    ...knowledgeSourcesRoutes(ctx),
    ...knowledgeReindexRoutes(ctx),
    ...knowledgeEvalRoutes(ctx),
    ...componentRoutes(ctx),
    ...runWebhookRoutes(ctx),
    ...scheduleRoutes(ctx),
    ...budgetRoutes(ctx),
    ...sessionRoutes(ctx),
    ...memoryRoutes(ctx),
    ...traceRoutes(ctx),
    ...serviceAccountRoutes(ctx),
    ...whoamiRoutes(ctx),
    ...mcpRoutes(ctx, { allowedHosts: ctx.mcpAllowedHosts }),
    ...mcpOAuthRoutes(ctx),
    ...docsRoutes(ctx, () => openApiDocument(app, ctx)),
    ...uiRoutes(ctx),
    ...(parts.routes?.(ctx) ?? []),
  ];

  const routes: RouteEntry[] = [];
  const operationIds = new Set<string>();
  for (const route of definitions) {
    const entry = routeEntry(route);
    // Auth runs before request validation, so an unauthenticated caller learns nothing from a 422.
    const guard = authGuard(ctx, entry, { unauthenticated: mcpChallenge(ctx, entry) });
    if (route.kind === 'api') {
      const { operationId } = route.config;
      if (operationIds.has(operationId)) throw new ConfigurationError(`Two routes declare the operationId "${operationId}"`);
      operationIds.add(operationId);
      // Public routes say so (`security: []`) rather than leaving clients to guess.
      const security = route.access.kind === 'public' ? [] : [{ HTTPBearer: [] }];
      const request = route.config.request;
      if (!request) {
        // Nothing to validate: auth folds into the handler, which then stays synchronous.
        app.openapi({ ...route.config, security }, guard ? guard.wrap(route.handler as Handler<AppEnv>) : route.handler);
      } else {
        const middleware = [
          ...(guard ? [guard.middleware] : []),
          // After auth (an unauthenticated caller learns nothing), before validation and handlers.
          inputGuard(request.body !== undefined),
        ];
        app.openapi({ ...route.config, security, middleware }, route.handler);
      }
    } else if (route.method === 'ALL') {
      if (guard) app.all(route.path, guard.middleware, route.handler);
      else app.all(route.path, route.handler);
    } else if (guard) {
      app.on(route.method, route.path, guard.middleware, route.handler);
    } else {
      app.on(route.method, route.path, route.handler);
    }
    routes.push(entry);
  }

  app.notFound(() => errorResponse('NOT_FOUND', 'Not Found'));
  app.onError(handleError(ctx.log, realmFor(ctx.name), ctx.trustedProxies));
  return { app, routes };
}

function openApiDocument(app: OpenAPIHono<AppEnv>, ctx: ServerContext): { openapi: string; info: object } {
  return app.getOpenAPI31Document({
    openapi: '3.1.0',
    info: {
      title: ctx.name,
      version: API_VERSION,
      description: ctx.description ?? `The HTTP interface of ${ctx.name} (runtime version ${ctx.version}).`,
    },
  });
}
