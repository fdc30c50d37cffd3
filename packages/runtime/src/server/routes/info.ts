/**
 * @module server/routes/info
 * `GET /info`: what `svc` discovers about a runtime (counts, MCP endpoint, auth mode), public.
 */
import { z } from '@hono/zod-openapi';
import type { ServerContext } from '../context.js';
import { apiRoute, PUBLIC, type RouteDefinition } from '../route.js';

export const InfoSchema = z
  .object({
    os_id: z.string(),
    name: z.string().nullable(),
    version: z.string(),
    agent_count: z.number().int(),
    team_count: z.number().int(),
    workflow_count: z.number().int(),
    mcp: z.object({
      enabled: z.boolean(),
      path: z.string().nullable(),
      oauth: z
        .object({ authorization_servers: z.array(z.string()).nullable(), resource: z.string().nullable() })
        .nullable(),
    }),
    auth_mode: z.enum(['none', 'security_key', 'jwt']),
  })
  .openapi('InfoResponse');

export function infoRoutes(ctx: ServerContext): RouteDefinition[] {
  return [
    apiRoute(
      PUBLIC,
      {
        method: 'get',
        path: '/info',
        operationId: 'getInfo',
        tags: ['Core'],
        summary: 'What this runtime hosts, and how clients should connect',
        description: 'Used by `svc` for discovery: counts, the MCP endpoint and the auth mode.',
        responses: { 200: { description: 'Runtime summary', content: { 'application/json': { schema: InfoSchema } } } },
      },
      (c) =>
        c.json(
          {
            os_id: ctx.id,
            name: ctx.name,
            version: ctx.version,
            agent_count: ctx.agents.length,
            team_count: ctx.teams.length,
            workflow_count: ctx.workflows.length,
            mcp: ctx.mcp,
            auth_mode: ctx.authMode,
          },
          200,
        ),
    ),
  ];
}
