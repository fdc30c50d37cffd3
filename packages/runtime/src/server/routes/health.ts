/**
 * @module server/routes/health
 * `GET /health`: a public liveness answer, on the fast path (no auth, no database).
 */
import { z } from '@hono/zod-openapi';
import type { ServerContext } from '../context.js';
import { apiRoute, PUBLIC, type RouteDefinition } from '../route.js';

export const HealthSchema = z
  .object({
    status: z.literal('ok'),
    instantiated_at: z.string().openapi({ description: 'When this runtime started (ISO-8601, UTC)', example: '2026-11-23T09:00:00.000Z' }),
  })
  .openapi('HealthResponse');

export function healthRoutes(ctx: ServerContext): RouteDefinition[] {
  // Liveness only: it answers from memory so a load balancer's probe costs nothing.
  const body = { status: 'ok' as const, instantiated_at: ctx.instantiatedAt.toISOString() };
  return [
    apiRoute(
      PUBLIC,
      {
        method: 'get',
        path: '/health',
        operationId: 'getHealth',
        tags: ['Core'],
        summary: 'Liveness check',
        responses: { 200: { description: 'The runtime is up', content: { 'application/json': { schema: HealthSchema } } } },
      },
      (c) => c.json(body, 200),
    ),
  ];
}
