/**
 * @module memory/memory-tool
 * The tool an agent with `memory.tool` gives its model: add, update or delete one memory about
 * the user of the run. It acts for the run's user only (a run without a user has no memories),
 * and records what it did as a memory span under its tool span.
 */
import { z } from 'zod';
import { tool, type AnyFunctionTool } from '../tools/function-tool.js';
import { applyChange, type ChangeContext, type MemoryChange } from './changes.js';
import { MEMORY_LIMITS } from './types.js';

export const MEMORY_TOOL_NAME = 'update_user_memory';

const input = z.object({
  action: z.enum(['add', 'update', 'delete']).describe('add a new fact, update a remembered one (by memory_id) or delete one'),
  memory: z.string().trim().min(1).max(MEMORY_LIMITS.textChars).optional().describe('The fact, one short sentence in the third person (for add and update)'),
  topics: z.array(z.string().trim().min(1).max(MEMORY_LIMITS.topicChars)).max(MEMORY_LIMITS.topics).optional().describe('A few one-word topics'),
  memory_id: z.string().min(1).max(200).optional().describe('The id shown in brackets in what you remember (for update and delete)'),
});

export function memoryTool(context: (runId: string, userId: string) => ChangeContext | undefined): AnyFunctionTool {
  return tool({
    name: MEMORY_TOOL_NAME,
    description:
      'Remember something about the user for later conversations, correct what you remember, or forget it. ' +
      'Use it for lasting facts the user tells you (preferences, circumstances, plans), not for this conversation\'s details.',
    input,
    execute: async (args, { runId, userId, trace }) => {
      if (!userId) return 'This conversation has no user, so nothing can be remembered.';
      const ctx = context(runId, userId);
      if (!ctx) return 'Memory is not available in this runtime.';
      let change: MemoryChange;
      if (args.action === 'add' || args.action === 'update') {
        if (!args.memory) return `${args.action} needs the memory text.`;
        if (args.action === 'update' && !args.memory_id) return 'update needs the memory_id.';
        change = args.action === 'add' ? { action: 'add', memory: args.memory, topics: args.topics } : { action: 'update', memory_id: args.memory_id!, memory: args.memory, topics: args.topics };
      } else {
        if (!args.memory_id) return 'delete needs the memory_id.';
        change = { action: 'delete', memory_id: args.memory_id };
      }
      const span = trace?.child('memory', `memory ${args.action}`, { user_id: userId, change });
      try {
        const outcome = await applyChange(ctx, change);
        span?.end('ok', { outcome });
        return outcome.result === 'not-found' ? 'No such memory.' : `Done (${outcome.result}${outcome.memory_id ? `, memory ${outcome.memory_id}` : ''}).`;
      } catch (error) {
        span?.end('error', { error: error instanceof Error ? error.message : String(error) });
        throw error;
      }
    },
  });
}
