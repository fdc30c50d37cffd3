/**
 * @module mcp/memory-tools
 * The user-memory tools of the runtime's own MCP endpoint: get_memories, add_memory,
 * update_memory, delete_memory. Each is gated by its REST twin's scopes (memories:read, write,
 * delete) and, like it, confines a caller with an identity to its own memories; admins and
 * callers without one (an open runtime) reach everyone's.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { RuntimeError } from '../errors.js';
import type { MemoryStore } from '../memory/memory-store.js';
import { MEMORY_LIMITS } from '../memory/types.js';
import type { McpCaller } from './tool-gate.js';

type Memories = Pick<MemoryStore, 'list' | 'create' | 'update' | 'delete'>;

function json(value: unknown): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(value) }], structuredContent: value as Record<string, unknown> };
}

async function guarded(body: () => Promise<CallToolResult>): Promise<CallToolResult> {
  try {
    return await body();
  } catch (error) {
    const message = RuntimeError.isInstance(error) && error.status < 500 ? error.message : 'The tool failed because of an internal error';
    return { content: [{ type: 'text', text: message }], isError: true };
  }
}

const MEMORY = z.looseObject({ memory_id: z.string(), user_id: z.string(), memory: z.string(), topics: z.array(z.string()), version: z.number() });
const TEXT = z.string().trim().min(1).max(MEMORY_LIMITS.textChars);
const TOPICS = z.array(z.string().trim().min(1).max(MEMORY_LIMITS.topicChars)).max(MEMORY_LIMITS.topics);

export function registerMemoryTools(server: McpServer, memories: Memories, caller: McpCaller): void {
  /** Checks the REST twin's scopes, then answers whose memories the caller may reach. */
  const deny = (method: string, path: string): string | undefined => {
    const reason = caller.gate(method, path);
    if (reason) throw new RuntimeError('FORBIDDEN', reason);
    return caller.memoryOwner?.();
  };
  /** The caller's tenant under tenancy (auth/tenancy.ts), held in the same statements as the owner. */
  const tenant = (): string | undefined => caller.tenant?.();

  server.registerTool(
    'get_memories',
    {
      description: 'List what agents remember about users, newest first (your own memories when you are signed in as a user).',
      inputSchema: {
        user_id: z.string().max(256).optional(),
        topic: z.string().max(MEMORY_LIMITS.topicChars).optional(),
        text: z.string().max(200).optional().describe('Case-insensitive part of the text'),
        limit: z.number().int().min(1).max(100).default(20),
        page: z.number().int().min(1).max(1_000_000).default(1),
      },
      outputSchema: { data: z.array(MEMORY), total_count: z.number() },
      annotations: { readOnlyHint: true },
    },
    (args: { user_id?: string | undefined; topic?: string | undefined; text?: string | undefined; limit: number; page: number }) =>
      guarded(async () => {
        const owner = deny('GET', '/memories');
        const page = await memories.list({ ...args, sort_by: 'updated_at', sort_order: 'desc' }, owner, tenant());
        return json({ data: page.data, total_count: page.total });
      }),
  );

  server.registerTool(
    'add_memory',
    {
      description: 'Remember a short fact about a user.',
      inputSchema: { memory: TEXT, topics: TOPICS.optional(), user_id: z.string().min(1).max(256).optional().describe('Whose memory (ignored when you are signed in as a user)') },
      outputSchema: { memory: MEMORY },
      annotations: { readOnlyHint: false, destructiveHint: false },
    },
    (args: { memory: string; topics?: string[] | undefined; user_id?: string | undefined }) =>
      guarded(async () => {
        const owner = deny('POST', '/memories');
        const userId = owner ?? args.user_id ?? caller.userId;
        if (!userId) throw new RuntimeError('BAD_REQUEST', 'user_id is required: say whose memory this is');
        return json({ memory: await memories.create({ user_id: userId, tenant_id: tenant(), memory: args.memory, topics: args.topics }) });
      }),
  );

  server.registerTool(
    'update_memory',
    {
      description: 'Change a memory. Give version to refuse the change if someone changed the memory since you read it.',
      inputSchema: { memory_id: z.string().min(1).max(200), memory: TEXT.optional(), topics: TOPICS.optional(), version: z.number().int().min(1).optional() },
      outputSchema: { memory: MEMORY },
      annotations: { readOnlyHint: false, destructiveHint: false },
    },
    (args: { memory_id: string; memory?: string | undefined; topics?: string[] | undefined; version?: number | undefined }) =>
      guarded(async () => {
        const owner = deny('PATCH', `/memories/${encodeURIComponent(args.memory_id)}`);
        const changed = await memories.update(args.memory_id, { memory: args.memory, topics: args.topics, expected_version: args.version, run_id: null }, owner, tenant());
        return json({ memory: changed });
      }),
  );

  server.registerTool(
    'delete_memory',
    {
      description: 'Forget a memory.',
      inputSchema: { memory_id: z.string().min(1).max(200) },
      outputSchema: { deleted: z.boolean() },
      annotations: { destructiveHint: true, idempotentHint: true },
    },
    (args: { memory_id: string }) =>
      guarded(async () => {
        const owner = deny('DELETE', `/memories/${encodeURIComponent(args.memory_id)}`);
        if ((await memories.delete([args.memory_id], owner, tenant())) === 0) throw new RuntimeError('NOT_FOUND', `Memory '${args.memory_id}' not found`);
        return json({ deleted: true });
      }),
  );
}
