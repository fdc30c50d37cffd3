/**
 * @module server/route
 * Routes are declared once, as data: method, path, schemas, summary and the access decision.
 * Registration and the OpenAPI document are both derived from the declaration, so no route can
 * exist without a decision on who may call it.
 */
import type { RouteConfig, RouteHandler } from '@hono/zod-openapi';
import type { Handler } from 'hono';
import type { AppEnv } from './context.js';

/**
 * Who may call a route.
 * - `public`: never needs credentials (`/health`, docs).
 * - `scoped`: needs a credential holding every scope in `scopes`. Per-resource routes name
 *   the global form (`agents:run`); the resource id from the path narrows it. `listing`
 *   marks collection reads (`GET /agents`) that filter by the caller's per-resource scopes.
 * - `self-authenticated`: the route checks credentials itself (the MCP endpoint gates each
 *   tool by the scopes of its REST twin).
 */
export type Access =
  | { kind: 'public' }
  | { kind: 'scoped'; scopes: readonly string[]; listing?: boolean }
  | { kind: 'self-authenticated' };

export const PUBLIC: Access = { kind: 'public' };

export function scoped(...scopes: string[]): Access {
  return { kind: 'scoped', scopes };
}

export function listing(scope: string): Access {
  return { kind: 'scoped', scopes: [scope], listing: true };
}

/**
 * The declaration of a documented route. `operationId` is required: it is what client
 * generators name their methods after (camelCase, `runAgent`), so it must be stable and unique.
 */
export type ApiRouteConfig = RouteConfig & { operationId: string };

/** A documented JSON route (it appears in `/openapi.json`). */
export interface ApiRoute {
  kind: 'api';
  access: Access;
  config: ApiRouteConfig;
  // The handler's precise type is checked where the route is declared (see `apiRoute`).
  handler: RouteHandler<RouteConfig, AppEnv>;
}

/** An undocumented route: docs pages, static assets, protocol endpoints. */
export interface RawRoute {
  kind: 'raw';
  access: Access;
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'ALL';
  path: string;
  handler: Handler<AppEnv>;
}

export type RouteDefinition = ApiRoute | RawRoute;

export function apiRoute<R extends ApiRouteConfig>(access: Access, config: R, handler: RouteHandler<R, AppEnv>): ApiRoute {
  return { kind: 'api', access, config, handler: handler as unknown as RouteHandler<RouteConfig, AppEnv> };
}

export function rawRoute(access: Access, method: RawRoute['method'], path: string, handler: Handler<AppEnv>): RawRoute {
  return { kind: 'raw', access, method, path, handler };
}

/** One registered route, as the auth layer and tests see it. Paths use `{param}` form. */
export interface RouteEntry {
  method: string;
  path: string;
  access: Access;
  documented: boolean;
}

export function routeEntry(route: RouteDefinition): RouteEntry {
  if (route.kind === 'api') {
    return { method: route.config.method.toUpperCase(), path: route.config.path, access: route.access, documented: true };
  }
  return { method: route.method, path: route.path.replace(/:([A-Za-z0-9_]+)/g, '{$1}'), access: route.access, documented: false };
}
