/**
 * @module model/embedder
 * An embedder turns texts into vectors. The providers (providers/openai/embeddings.ts,
 * providers/ollama/embeddings.ts) speak their HTTP API through providers/http.ts (timeouts, key
 * redaction, as for the chat models) and send their batches through the shared limits of their
 * endpoint (providers/embedding/: concurrency, rate, retries).
 */
import { ModelError } from './model.js';

export interface EmbedOptions {
  /** A search waiting on this (one query), served before queued bulk batches. */
  interactive?: boolean | undefined;
}

export interface Embedder {
  /** `provider:model`; stores record it to refuse vectors from a different embedder. */
  readonly id: string;
  readonly provider: string;
  readonly model: string;
  /** Inputs per request; work that embeds in steps (a reindex) sizes its steps by it. */
  readonly batchSize?: number | undefined;
  /** Requests this embedder's endpoint takes at once. */
  readonly maxConcurrency?: number | undefined;
  /** One vector per text, in input order. */
  embed(texts: readonly string[], signal?: AbortSignal, options?: EmbedOptions): Promise<number[][]>;
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
