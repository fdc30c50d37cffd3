/**
 * `/memories`: what agents remember about their users (memory/), listed, read, written and
 * deleted. A caller naming a user (a JWT's `sub`, a service account) reaches only that user's
 * memories: the store puts the user in the same WHERE as the rest (auth/user-scope.ts,
 * personalDataOwner); admins, the security key and an open runtime reach everyone's. Under
 * tenancy every caller but a global admin is also held to its tenant, in that same WHERE.
 */
import { z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { RuntimeError } from '../../errors.js';
import { MEMORY_LIMITS, type MemoryRecord } from '../../memory/types.js';
import type { AppEnv, ServerContext } from '../context.js';
import { apiRoute, scoped, type RouteDefinition } from '../route.js';
import { standardErrors } from '../standard-errors.js';

const MemorySchema = z
  .object({
    memory_id: z.string(),
    user_id: z.string(),
    memory: z.string(),
    topics: z.array(z.string()),
    agent_id: z.string().nullable().openapi({ description: 'The agent whose run made it; null when made through the API' }),
    run_id: z.string().nullable().openapi({ description: 'The run that made or last changed it' }),
    version: z.number().int().openapi({ description: 'Grows on every change; give it back in PATCH to refuse a lost update' }),
    created_at: z.number().int(),
    updated_at: z.number().int(),
  })
  .openapi('UserMemory');

const PageMetaSchema = z.object({ page: z.number().int(), limit: z.number().int(), total_pages: z.number().int(), total_count: z.number().int() });
const memoryIdParam = z.object({ memory_id: z.string().min(1).max(200).openapi({ param: { name: 'memory_id', in: 'path' } }) });
const Text = z.string().trim().min(1).max(MEMORY_LIMITS.textChars);
const Topics = z.array(z.string().trim().min(1).max(MEMORY_LIMITS.topicChars)).max(MEMORY_LIMITS.topics);
const UserId = z.string().trim().min(1).max(256);

const missing = (id: string) => new RuntimeError('NOT_FOUND', `Memory '${id}' not found`);
const toMemory = (m: MemoryRecord): z.infer<typeof MemorySchema> => ({ ...m });

export function memoryRoutes(ctx: ServerContext): RouteDefinition[] {
  const owner = (c: Context<AppEnv>): string | undefined => ctx.auth.memoryOwner(c.get('principal'));
  /** Under tenancy, the caller's tenant (auth/tenancy.ts): in the same WHERE as the owner. */
  const tenant = (c: Context<AppEnv>): string | undefined => ctx.auth.tenantOf(c.get('principal'));

  return [
    apiRoute(
      scoped('memories:read'),
      {
        method: 'get',
        path: '/memories',
        operationId: 'listMemories',
        tags: ['Memory'],
        summary: 'List user memories',
        description: 'A caller that names a user sees only its own memories, whatever user_id it asks for.',
        request: {
          query: z.object({
            user_id: UserId.optional(),
            topic: z.string().trim().min(1).max(MEMORY_LIMITS.topicChars).optional(),
            text: z.string().max(200).optional().openapi({ description: 'Case-insensitive part of the text' }),
            agent_id: z.string().max(128).optional(),
            limit: z.coerce.number().int().min(1).max(100).default(20),
            page: z.coerce.number().int().min(1).max(1_000_000).default(1),
            sort_by: z.enum(['created_at', 'updated_at']).default('updated_at'),
            sort_order: z.enum(['asc', 'desc']).default('desc'),
          }),
        },
        responses: {
          200: { description: 'A page of memories', content: { 'application/json': { schema: z.object({ data: z.array(MemorySchema), meta: PageMetaSchema }) } } },
          ...standardErrors,
        },
      },
      async (c) => {
        const q = c.req.valid('query');
        const page = await ctx.memories.list(q, owner(c), tenant(c));
        return c.json({ data: page.data.map(toMemory), meta: { page: q.page, limit: q.limit, total_count: page.total, total_pages: Math.ceil(page.total / q.limit) } }, 200);
      },
    ),
    apiRoute(
      scoped('memories:read'),
      {
        method: 'get',
        path: '/memory_topics',
        operationId: 'listMemoryTopics',
        tags: ['Memory'],
        summary: 'The topics of user memories, with how many memories carry each',
        request: { query: z.object({ user_id: UserId.optional() }) },
        responses: {
          200: { description: 'Topics, most used first', content: { 'application/json': { schema: z.array(z.object({ topic: z.string(), count: z.number().int() })) } } },
          ...standardErrors,
        },
      },
      async (c) => c.json(await ctx.memories.topics(owner(c), c.req.valid('query').user_id, tenant(c)), 200),
    ),
    apiRoute(
      scoped('memories:read'),
      {
        method: 'get',
        path: '/memories/{memory_id}',
        operationId: 'getMemory',
        tags: ['Memory'],
        summary: 'Get one memory',
        request: { params: memoryIdParam },
        responses: { 200: { description: 'The memory', content: { 'application/json': { schema: MemorySchema } } }, ...standardErrors },
      },
      async (c) => {
        const { memory_id } = c.req.valid('param');
        const memory = await ctx.memories.get(memory_id, owner(c), tenant(c));
        if (!memory) throw missing(memory_id);
        return c.json(toMemory(memory), 200);
      },
    ),
    apiRoute(
      scoped('memories:write'),
      {
        method: 'post',
        path: '/memories',
        operationId: 'createMemory',
        tags: ['Memory'],
        summary: 'Add a memory about a user',
        description: "A caller that names a user always writes its own memories (user_id is then ignored); others must give user_id.",
        request: {
          body: { required: true, content: { 'application/json': { schema: z.object({ memory: Text, topics: Topics.optional(), user_id: UserId.optional() }) } } },
        },
        responses: { 201: { description: 'The new memory', content: { 'application/json': { schema: MemorySchema } } }, ...standardErrors },
      },
      async (c) => {
        const body = c.req.valid('json');
        const userId = owner(c) ?? body.user_id ?? c.get('principal')?.userId;
        if (!userId) throw new RuntimeError('VALIDATION_ERROR', 'user_id is required: say whose memory this is');
        const memory = await ctx.memories.create({ user_id: userId, tenant_id: tenant(c), memory: body.memory, topics: body.topics });
        return c.json(toMemory(memory), 201);
      },
    ),
    apiRoute(
      scoped('memories:write'),
      {
        method: 'patch',
        path: '/memories/{memory_id}',
        operationId: 'updateMemory',
        tags: ['Memory'],
        summary: 'Change a memory',
        description: 'With version, the change is refused (409) if the memory changed since that version.',
        request: {
          params: memoryIdParam,
          body: {
            required: true,
            content: { 'application/json': { schema: z.object({ memory: Text.optional(), topics: Topics.optional(), version: z.number().int().min(1).optional() }) } },
          },
        },
        responses: { 200: { description: 'The changed memory', content: { 'application/json': { schema: MemorySchema } } }, ...standardErrors },
      },
      async (c) => {
        const { memory_id } = c.req.valid('param');
        const body = c.req.valid('json');
        const changed = await ctx.memories.update(memory_id, { memory: body.memory, topics: body.topics, expected_version: body.version, run_id: null }, owner(c), tenant(c));
        return c.json(toMemory(changed), 200);
      },
    ),
    apiRoute(
      scoped('memories:delete'),
      {
        method: 'delete',
        path: '/memories/{memory_id}',
        operationId: 'deleteMemory',
        tags: ['Memory'],
        summary: 'Delete a memory',
        request: { params: memoryIdParam },
        responses: { 204: { description: 'Deleted' }, ...standardErrors },
      },
      async (c) => {
        const { memory_id } = c.req.valid('param');
        if ((await ctx.memories.delete([memory_id], owner(c), tenant(c))) === 0) throw missing(memory_id);
        return c.body(null, 204);
      },
    ),
    apiRoute(
      scoped('memories:delete'),
      {
        method: 'delete',
        path: '/memories',
        operationId: 'deleteMemories',
        tags: ['Memory'],
        summary: 'Delete several memories',
        request: {
          body: { required: true, content: { 'application/json': { schema: z.object({ memory_ids: z.array(z.string().min(1).max(200)).min(1).max(1000) }) } } },
        },
        responses: { 204: { description: "Deleted (unknown ids, and other users' for a confined caller, are ignored)" }, ...standardErrors },
      },
      async (c) => {
        await ctx.memories.delete(c.req.valid('json').memory_ids, owner(c), tenant(c));
        return c.body(null, 204);
      },
    ),
  ];
}
