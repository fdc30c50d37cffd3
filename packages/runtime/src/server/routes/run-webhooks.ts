/**
 * `GET /{agents,teams,workflows}/{id}/runs/{run_id}/webhooks`: the webhook deliveries of a run
 * and every attempt of each (status code, error, duration, time), for the caller who may read
 * the run.
 */
import { z } from '@hono/zod-openapi';
import { inScope } from '../../auth/data-scope.js';
import { RuntimeError } from '../../errors.js';
import type { ServerContext } from '../context.js';
import { apiRoute, scoped, type RouteDefinition } from '../route.js';
import { standardErrors } from '../standard-errors.js';
import { WebhookDeliverySchema } from './schedule-schemas.js';

const KINDS = [
  { type: 'agent', plural: 'agents', param: 'agent_id', label: 'Agent', tag: 'Agents' },
  { type: 'team', plural: 'teams', param: 'team_id', label: 'Team', tag: 'Teams' },
  { type: 'workflow', plural: 'workflows', param: 'workflow_id', label: 'Workflow', tag: 'Workflows' },
] as const;

export function runWebhookRoutes(ctx: ServerContext): RouteDefinition[] {
  return KINDS.map((kind) => {
    const params = z.object({
      [kind.param]: z.string().min(1).openapi({ param: { name: kind.param, in: 'path' } }),
      run_id: z.string().min(1).openapi({ param: { name: 'run_id', in: 'path' } }),
    });
    return apiRoute(
      scoped(`${kind.plural}:read`),
      {
        method: 'get',
        path: `/${kind.plural}/{${kind.param}}/runs/{run_id}/webhooks`,
        operationId: `list${kind.label}RunWebhooks`,
        tags: [kind.tag],
        summary: `The webhook deliveries of ${kind.type === 'agent' ? 'an' : 'a'} ${kind.type} run, with every attempt`,
        request: { params },
        responses: { 200: { description: 'Deliveries, oldest first', content: { 'application/json': { schema: z.array(WebhookDeliverySchema) } } }, ...standardErrors },
      },
      async (c) => {
        const componentId = c.req.param(kind.param)!;
        const runId = c.req.param('run_id')!;
        const run = await ctx.sessions.getRun(runId);
        if (!run || run.session_type !== kind.type || run.component_id !== componentId) throw new RuntimeError('NOT_FOUND', 'Run not found');
        const user = c.get('principal')?.userId;
        if (user && run.user_id && run.user_id !== user && !ctx.auth.isAdmin(c.get('principal'))) throw new RuntimeError('NOT_FOUND', 'Run not found');
        if (!inScope(ctx.auth.dataScope(c.get('principal')), run)) throw new RuntimeError('NOT_FOUND', 'Run not found');
        return c.json(await ctx.webhooks.deliveries(runId), 200);
      },
    );
  });
}
