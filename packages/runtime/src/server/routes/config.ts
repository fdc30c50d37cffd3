/**
 * @module server/routes/config
 * `GET /config`: the hosted agents, teams, workflows, databases and knowledge, as each describes itself.
 */
import { z } from '@hono/zod-openapi';
import type { HostedComponent } from '../../components/component.js';
import type { ServerContext } from '../context.js';
import { apiRoute, scoped, type RouteDefinition } from '../route.js';
import { standardErrors } from '../standard-errors.js';

const ComponentSchema = z
  .object({ id: z.string(), name: z.string().optional(), description: z.string().optional() })
  .catchall(z.unknown())
  .openapi('ComponentSummary');

export const ConfigSchema = z
  .object({
    os_id: z.string(),
    name: z.string(),
    description: z.string().optional(),
    version: z.string(),
    os_database: z.string(),
    databases: z.array(z.string()),
    agents: z.array(ComponentSchema),
    teams: z.array(ComponentSchema),
    workflows: z.array(ComponentSchema),
    knowledge: z.object({
      knowledge_instances: z.array(
        z.object({
          id: z.string(),
          name: z.string(),
          description: z.string().optional(),
          db_id: z.string(),
          table: z.string().optional(),
        }),
      ),
    }),
  })
  .openapi('ConfigResponse');

function summarize(component: HostedComponent): z.infer<typeof ComponentSchema> {
  // The component may add model, mode or db_id; id, name and description always come from it.
  const extra = component.describe?.() ?? {};
  const out: z.infer<typeof ComponentSchema> = { ...extra, id: component.id, name: component.name ?? component.id };
  if (component.description !== undefined) out.description = component.description;
  return out;
}

export function configRoutes(ctx: ServerContext): RouteDefinition[] {
  return [
    apiRoute(
      scoped('config:read'),
      {
        method: 'get',
        path: '/config',
        operationId: 'getConfig',
        tags: ['Core'],
        summary: 'The runtime’s components, databases and knowledge instances',
        responses: {
          200: { description: 'Configuration', content: { 'application/json': { schema: ConfigSchema } } },
          ...standardErrors,
        },
      },
      (c) => {
        const knowledge = ctx.knowledge.map((k) => ({
          id: k.id,
          name: k.name ?? k.id,
          ...(k.description !== undefined ? { description: k.description } : {}),
          db_id: k.dbId ?? ctx.db.id,
          ...(k.table !== undefined ? { table: k.table } : {}),
        }));
        const databases = [...new Set([ctx.db.id, ...knowledge.map((k) => k.db_id)])];
        return c.json(
          {
            os_id: ctx.id,
            name: ctx.name,
            ...(ctx.description !== undefined ? { description: ctx.description } : {}),
            version: ctx.version,
            os_database: ctx.db.id,
            databases,
            agents: ctx.agents.map(summarize),
            teams: ctx.teams.map(summarize),
            workflows: ctx.workflows.map(summarize),
            knowledge: { knowledge_instances: knowledge },
          },
          200,
        );
      },
    ),
  ];
}
