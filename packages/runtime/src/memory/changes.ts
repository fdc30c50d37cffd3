/**
 * @module memory/changes
 * Applies what a model asks to change in a user's memories (the memory tool, extraction) so that
 * two runs of one user changing memories at once lose nothing: adds are rows of their own; an
 * update compares the version the model was shown (else the one it reads) and, when another run
 * changed the memory in between, is
 * kept as a memory of its own beside the other run's (both facts survive; a later run may merge
 * them); an update of a memory deleted in between is kept as a new memory. Every change is confined to the run's user.
 */
import { RuntimeError } from '../errors.js';
import type { Embedder } from '../model/embedder.js';
import type { MemoryStore } from './memory-store.js';
import type { MemoryRecord } from './types.js';

export type MemoryChange =
  | { action: 'add'; memory: string; topics?: string[] | undefined }
  | { action: 'update'; memory_id: string; memory: string; topics?: string[] | undefined }
  | { action: 'delete'; memory_id: string };

export interface ChangeContext {
  store: MemoryStore;
  userId: string;
  agentId: string;
  runId: string;
  embedder?: Embedder | undefined;
  signal?: AbortSignal | undefined;
  /**
   * The version of each memory the model was shown (in the prompt's recall, or the extraction's
   * list): an update is compared against it, so a change another run made after the model read
   * the memory is never overwritten unseen.
   */
  seen?: Map<string, number> | undefined;
}

export interface ChangeOutcome {
  action: MemoryChange['action'];
  memory_id: string | null;
  /** What happened: added, updated, deleted, kept beside a concurrent change, missing... */
  result: 'added' | 'updated' | 'deleted' | 'kept-beside' | 'unchanged' | 'not-found' | 'duplicate';
}

async function vectorOf(ctx: ChangeContext, text: string): Promise<{ vector: number[]; embedder: string } | undefined> {
  if (!ctx.embedder) return undefined;
  try {
    const [vector] = await ctx.embedder.embed([text], ctx.signal, { interactive: true });
    return vector ? { vector, embedder: ctx.embedder.id } : undefined;
  } catch {
    // Recall falls back to keywords for a memory without a vector; the fact itself is kept.
    return undefined;
  }
}

async function add(ctx: ChangeContext, memory: string, topics: string[] | undefined): Promise<MemoryRecord> {
  return ctx.store.create({ user_id: ctx.userId, memory, topics, agent_id: ctx.agentId, run_id: ctx.runId, embedding: await vectorOf(ctx, memory) });
}

const isConflict = (error: unknown) => RuntimeError.isInstance(error) && error.code === 'CONFLICT';
const isMissing = (error: unknown) => RuntimeError.isInstance(error) && error.code === 'NOT_FOUND';

export async function applyChange(ctx: ChangeContext, change: MemoryChange): Promise<ChangeOutcome> {
  if (change.action === 'add') {
    const same = await ctx.store.list({ user_id: ctx.userId, text: change.memory.trim(), limit: 20, page: 1, sort_by: 'updated_at', sort_order: 'desc' }, ctx.userId, { run: ctx.runId });
    const duplicate = same.data.find((m) => m.memory.trim().toLowerCase() === change.memory.trim().toLowerCase());
    if (duplicate) return { action: 'add', memory_id: duplicate.memory_id, result: 'duplicate' };
    return { action: 'add', memory_id: (await add(ctx, change.memory, change.topics)).memory_id, result: 'added' };
  }
  if (change.action === 'delete') {
    const deleted = await ctx.store.delete([change.memory_id], ctx.userId, { run: ctx.runId });
    return { action: 'delete', memory_id: change.memory_id, result: deleted ? 'deleted' : 'not-found' };
  }
  const embedding = await vectorOf(ctx, change.memory);
  for (let attempt = 0; attempt < 2; attempt++) {
    const current = await ctx.store.get(change.memory_id, ctx.userId, { run: ctx.runId });
    if (!current) {
      // Deleted meanwhile (or never this user's): the fact is kept as a memory of its own.
      return { action: 'update', memory_id: (await add(ctx, change.memory, change.topics)).memory_id, result: 'added' };
    }
    if (current.memory === change.memory.trim() && change.topics === undefined) return { action: 'update', memory_id: current.memory_id, result: 'unchanged' };
    try {
      const expected = ctx.seen?.get(current.memory_id) ?? current.version;
      const updated = await ctx.store.update(current.memory_id, { memory: change.memory, topics: change.topics, run_id: ctx.runId, expected_version: expected, embedding }, ctx.userId, { run: ctx.runId });
      // This run has now seen its own change: a second update of it in the same run builds on it.
      ctx.seen?.set(updated.memory_id, updated.version);
      return { action: 'update', memory_id: current.memory_id, result: 'updated' };
    } catch (error) {
      if (isMissing(error)) continue;
      if (!isConflict(error)) throw error;
      // Another run changed it after we read it. What this run was told may predate that change,
      // so our text is not allowed to overwrite it: it is kept as a memory of its own.
      const made = await add(ctx, change.memory, change.topics);
      return { action: 'update', memory_id: made.memory_id, result: 'kept-beside' };
    }
  }
  return { action: 'update', memory_id: (await add(ctx, change.memory, change.topics)).memory_id, result: 'added' };
}
