/**
 * @module memory/types
 * A user memory: one short fact about one user, with its topics, where it came from and when.
 */
import type { Usage } from '../model/model.js';

/**
 * How memory's own model calls (summaries, extraction) count against the run's budgets: the
 * check before the call (rejects with BUDGET_EXCEEDED), the usage after.
 */
export interface MemorySpending {
  before?: (() => Promise<void>) | undefined;
  add?: ((usage: Usage, model: string) => void) | undefined;
}

export interface MemoryRecord {
  memory_id: string;
  user_id: string;
  memory: string;
  topics: string[];
  /** The agent whose run made it (null: made through the API). */
  agent_id: string | null;
  /** The run that made or last changed it (null: made through the API). */
  run_id: string | null;
  /** Grows by one on every change; an update naming an older version is refused. */
  version: number;
  created_at: number;
  updated_at: number;
}

/** A stored memory with its vector, for semantic recall. */
export interface StoredMemory extends MemoryRecord {
  embedding: number[] | null;
  embedder: string | null;
}

/**
 * The tenant a memory statement is held to (auth/tenancy.ts): a caller's tenant, or, inside a
 * run, the tenant of that run (read from its row, so the agent code never carries it).
 */
export type MemoryTenant = string | { run: string };

export interface NewMemory {
  user_id: string;
  /** The tenant it belongs to; without it, a memory made in a run takes that run's tenant. */
  tenant_id?: string | undefined;
  memory: string;
  topics?: readonly string[] | undefined;
  agent_id?: string | null | undefined;
  run_id?: string | null | undefined;
  embedding?: { vector: number[]; embedder: string } | undefined;
}

export interface MemoryPatch {
  memory?: string | undefined;
  topics?: readonly string[] | undefined;
  run_id?: string | null | undefined;
  /** Refuse the change unless the memory is still at this version (optimistic concurrency). */
  expected_version?: number | undefined;
  /** The new text's vector; a text change without one clears the old vector. */
  embedding?: { vector: number[]; embedder: string } | undefined;
}

export interface MemoryQuery {
  user_id?: string | undefined;
  topic?: string | undefined;
  /** Case-insensitive part of the text. */
  text?: string | undefined;
  agent_id?: string | undefined;
  limit: number;
  page: number;
  sort_by: 'created_at' | 'updated_at';
  sort_order: 'asc' | 'desc';
}

/** Bounds on what one memory may hold, shared by the API, the tool and extraction. */
export const MEMORY_LIMITS = {
  textChars: 2_000,
  topics: 10,
  topicChars: 64,
} as const;
