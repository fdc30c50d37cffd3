/**
 * @module server/routes/home
 * `GET /`: the runtime's name, id, version and where its API documentation is.
 */
import { z } from '@hono/zod-openapi';
import type { ServerContext } from '../context.js';
import { apiRoute, PUBLIC, type RouteDefinition } from '../route.js';

export const HomeSchema = z
  .object({
    name: z.string(),
    id: z.string(),
    version: z.string(),
    docs: z.string().openapi({ description: 'Path of the interactive API documentation' }),
  })
  .openapi('HomeResponse');

export function homeRoutes(ctx: ServerContext): RouteDefinition[] {
  return [
    apiRoute(
      PUBLIC,
      {
        method: 'get',
        path: '/',
        operationId: 'getHome',
        tags: ['Core'],
        summary: 'Identify this runtime',
        responses: { 200: { description: 'Name, id and version', content: { 'application/json': { schema: HomeSchema } } } },
      },
      (c) => c.json({ name: ctx.name, id: ctx.id, version: ctx.version, docs: '/docs' }, 200),
    ),
  ];
}
