/**
 * @module server/routes/mcp-servers
 * `GET /mcp-servers`: the MCP servers the hosted agents and team leaders use (team members included), each with
 * its transport, connection status and tools, as the server describes itself; never a secret
 * (no headers, arguments, environment or query strings).
 */
import { z } from '@hono/zod-openapi';
import type { HostedComponent } from '../../components/component.js';
import { withMembers } from '../../components/walk.js';
import type { ServerContext } from '../context.js';
import { apiRoute, scoped, type RouteDefinition } from '../route.js';
import { standardErrors } from '../standard-errors.js';

const McpServerSchema = z
  .object({
    agent_id: z.string().openapi({ description: 'The agent, or the team (its leader), that uses it' }),
    component_type: z.enum(['agent', 'team']).openapi({ description: 'Whether agent_id names an agent or a team' }),
    id: z.string(),
    transport: z.enum(['stdio', 'streamable-http']),
    url: z.string().optional().openapi({ description: 'Origin and path (streamable HTTP)' }),
    command: z.string().optional().openapi({ description: 'The command (stdio), without its arguments' }),
    status: z.enum(['idle', 'connecting', 'connected', 'failed', 'closed']),
    per_user: z.boolean().openapi({ description: 'Each user has a connection of their own (headers(ctx))' }),
    connections: z.number().int(),
    tools: z
      .array(z.object({ name: z.string(), requires_confirmation: z.boolean() }))
      .nullable()
      .openapi({ description: 'The tools offered to the model; null until first listed' }),
    error: z.string().optional().openapi({ description: 'The last failure, naming the server' }),
  })
  .openapi('McpServerStatus');


export function mcpServersRoutes(ctx: ServerContext): RouteDefinition[] {
  return [
    apiRoute(
      scoped('config:read'),
      {
        method: 'get',
        path: '/mcp-servers',
        operationId: 'listMcpServers',
        tags: ['Core'],
        summary: 'The MCP servers the agents use, with connection status and tools',
        responses: {
          200: { description: 'MCP servers', content: { 'application/json': { schema: z.object({ data: z.array(McpServerSchema) }) } } },
          ...standardErrors,
        },
      },
      (c) => {
        // Agents and teams, with the members of teams (and of their sub-teams), each once.
        const data = withMembers([...ctx.agents, ...ctx.teams]).flatMap((component: HostedComponent) => {
          const servers = component.describe?.().mcp_servers;
          const type = Array.isArray((component as { members?: unknown }).members) ? 'team' : 'agent';
          return Array.isArray(servers) ? servers.map((s) => ({ agent_id: component.id, component_type: type, ...(s as Record<string, unknown>) })) : [];
        });
        return c.json({ data: data as z.infer<typeof McpServerSchema>[] }, 200);
      },
    ),
  ];
}
