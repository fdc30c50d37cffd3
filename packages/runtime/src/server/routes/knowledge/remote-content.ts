/**
 * @module server/routes/knowledge/remote-content
 * POST /knowledge/remote-content: ingest a file, or a folder (a record with a child per file),
 * of one of the knowledge base's remote content sources, in the background.
 */
import type { z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { uploadRemote } from '../../../knowledge/content/upload.js';
import type { AppEnv, ServerContext } from '../../context.js';
import { apiRoute, scoped, type RouteDefinition } from '../../route.js';
import { standardErrors } from '../../standard-errors.js';
import { contentCaller } from './content.js';
import { AcceptedSchema, accepted, FormRemoteSchema, JsonRemoteSchema, readUpload, SelectQuery } from './schemas.js';

export function knowledgeRemoteContentRoutes(ctx: ServerContext): RouteDefinition[] {
  const service = ctx.content;
  return [
    apiRoute(
      scoped('knowledge:write'),
      {
        method: 'post',
        path: '/knowledge/remote-content',
        operationId: 'uploadRemoteContent',
        tags: ['Knowledge'],
        summary: 'Ingest a file or a folder of a remote content source; it is processed in the background',
        request: {
          query: SelectQuery,
          body: {
            content: {
              'multipart/form-data': { schema: FormRemoteSchema },
              'application/json': { schema: JsonRemoteSchema },
            },
          },
        },
        responses: {
          200: {
            description: 'This content exists already and was left as it is (write_mode skip); its record',
            content: { 'application/json': { schema: AcceptedSchema } },
          },
          202: { description: 'Accepted; poll the status. A folder is one record with a child record per file.', content: { 'application/json': { schema: AcceptedSchema } } },
          409: standardErrors[400],
          ...standardErrors,
        },
      },
      async (c) => {
        const q = c.req.valid('query');
        const body = readUpload<z.infer<typeof JsonRemoteSchema>>(c as unknown as Context<AppEnv>);
        const knowledge = await service.select(q.knowledge_id, q.db_id);
        const outcome = await uploadRemote(service, knowledge, body, contentCaller(ctx, c));
        return c.json(accepted(outcome.record), outcome.queued ? 202 : 200);
      },
    ),
  ];
}
