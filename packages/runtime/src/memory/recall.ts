/**
 * @module memory/recall
 * Which of a user's memories go into a run's prompt: their relevance to the message (the cosine
 * of their vectors when an embedder made them, else shared words), plus recency, packed into a
 * token budget. The user's most recently changed memories are the candidates (at most 200), read
 * with the user in the WHERE: no other user's memory is ever a candidate.
 */
import type { Embedder } from '../model/embedder.js';
import type { MemoryStore } from './memory-store.js';
import { estimateTokens } from '../model/token-estimate.js';
import type { MemoryTenant, StoredMemory } from './types.js';

export interface RecallOptions {
  budgetTokens: number;
  maxMemories: number;
  embedder?: Embedder | undefined;
  signal?: AbortSignal | undefined;
}

export interface Recalled {
  memories: StoredMemory[];
  search: 'semantic' | 'keyword';
  candidates: number;
  tokens: number;
}

const CANDIDATES = 200;
const STOP = new Set('a an and are as at be but by do for from has have how i in is it me my of on or so that the this to was we what when where which who why will with you your'.split(' '));

/** Lowercased words of a text without stop words, a plural `s` dropped. */
export function words(text: string): Set<string> {
  const out = new Set<string>();
  for (const raw of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
    if (STOP.has(raw) || raw.length < 2) continue;
    out.add(raw.length > 3 && raw.endsWith('s') ? raw.slice(0, -1) : raw);
  }
  return out;
}

function keywordScore(query: Set<string>, memory: StoredMemory): number {
  if (query.size === 0) return 0;
  const own = words(`${memory.memory} ${memory.topics.join(' ')}`);
  let shared = 0;
  for (const w of query) if (own.has(w)) shared++;
  return shared / query.size;
}

function cosine(a: readonly number[], b: readonly number[]): number {
  if (a.length !== b.length) return 0;
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return na && nb ? dot / Math.sqrt(na * nb) : 0;
}

/** One memory as the prompt lists it. */
export function memoryLine(m: { memory_id: string; memory: string; topics: readonly string[] }, withIds: boolean): string {
  return `- ${withIds ? `[${m.memory_id}] ` : ''}${m.memory}${m.topics.length ? ` (${m.topics.join(', ')})` : ''}`;
}

export async function recall(store: MemoryStore, userId: string, message: string, options: RecallOptions, tenant?: MemoryTenant): Promise<Recalled> {
  const candidates = await store.recent(userId, CANDIDATES, tenant);
  if (candidates.length === 0) return { memories: [], search: options.embedder ? 'semantic' : 'keyword', candidates: 0, tokens: 0 };
  let queryVector: number[] | undefined;
  if (options.embedder && candidates.some((m) => m.embedder === options.embedder!.id)) {
    try {
      [queryVector] = await options.embedder.embed([message], options.signal, { interactive: true });
    } catch {
      queryVector = undefined;
    }
  }
  const query = words(message);
  const scored = candidates.map((m, rank) => {
    const relevance = queryVector && m.embedding && m.embedder === options.embedder?.id ? cosine(queryVector, m.embedding) : keywordScore(query, m);
    // Recency: candidates come newest first; the newest gets 0.25, fading with rank.
    return { m, score: relevance + 0.25 / (1 + rank / 10) };
  });
  scored.sort((a, b) => b.score - a.score);
  const chosen: StoredMemory[] = [];
  let tokens = 0;
  for (const { m } of scored) {
    if (chosen.length === options.maxMemories) break;
    const cost = estimateTokens(memoryLine(m, true)) + 1;
    if (tokens + cost > options.budgetTokens) continue;
    chosen.push(m);
    tokens += cost;
  }
  return { memories: chosen, search: queryVector ? 'semantic' : 'keyword', candidates: candidates.length, tokens };
}
