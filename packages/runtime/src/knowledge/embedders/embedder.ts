/**
 * @module knowledge/embedders/embedder
 * An embedder turns texts into vectors. Implementations speak a provider's HTTP API through
 * `model/http.ts`, so timeouts, retries and key redaction behave as for the chat models.
 */
import { ModelError } from '../../model/model.js';

export interface Embedder {
  /** `provider:model`; stores record it to refuse vectors from a different embedder. */
  readonly id: string;
  readonly provider: string;
  readonly model: string;
  /** One vector per text, in input order. */
  embed(texts: readonly string[], signal?: AbortSignal): Promise<number[][]>;
}

/** Checks a provider's vectors: the right count, equal lengths, finite numbers. */
export function checkVectors(provider: string, vectors: unknown, expected: number): number[][] {
  const bad = (why: string) => new ModelError(provider, 'MODEL_BAD_RESPONSE', `${provider}: embeddings response ${why}`);
  if (!Array.isArray(vectors)) throw bad('has no vectors');
  if (vectors.length !== expected) throw bad(`has ${vectors.length} vectors for ${expected} inputs`);
  let dimensions: number | undefined;
  for (const v of vectors) {
    if (!Array.isArray(v) || v.length === 0 || !v.every((x) => typeof x === 'number' && Number.isFinite(x))) throw bad('has a vector that is not a list of numbers');
    dimensions ??= v.length;
    if (v.length !== dimensions) throw bad('has vectors of different lengths');
  }
  return vectors as number[][];
}

export function batches<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}
