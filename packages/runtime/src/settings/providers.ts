/**
 * @module settings/providers
 * The model providers' area: each vendor's variables, which chat provider MODEL_PROVIDER names,
 * and the reranker RERANK_* configure. Read when a model, embedder or reranker is built from the
 * environment (providers/from-environment and the vendors' definitions), so a factory given
 * every option in code reads none of them.
 *
 * | variable | default | meaning |
 * | --- | --- | --- |
 * | `MODEL_PROVIDER` | the first configured chat provider | a chat provider's id, any case: `openai`, `anthropic` or `ollama` |
 * | `OPENAI_API_KEY` | none | selects OpenAI for chat and embeddings |
 * | `OPENAI_BASE_URL` | `https://api.openai.com/v1` | any OpenAI-compatible server; selects it too (no key needed) |
 * | `OPENAI_MODEL` | `gpt-4o-mini` | the chat model |
 * | `OPENAI_EMBEDDING_MODEL` | `text-embedding-3-small` | the embedding model |
 * | `ANTHROPIC_API_KEY` | none | selects Anthropic for chat |
 * | `ANTHROPIC_BASE_URL` | `https://api.anthropic.com` | |
 * | `ANTHROPIC_MODEL` | `claude-sonnet-4-5` | the chat model |
 * | `OLLAMA_HOST` | `http://localhost:11434` | `host`, `host:port` or `:port` as Ollama takes it; selects Ollama for chat |
 * | `OLLAMA_MODEL` | `llama3.2` | the chat model; selects Ollama for chat too |
 * | `OLLAMA_EMBEDDING_MODEL` | none | selects Ollama for embeddings, with this model |
 * | `LOCAL_EMBEDDINGS` | `true` | with neither OpenAI nor Ollama embeddings configured, embed with the sentence encoder shipped in the runtime's dependencies (providers/local); `false`: no embedder, keyword search only |
 * | `LOCAL_EMBEDDING_WORKERS` | 1 | processes running that encoder, 1 to 16; each holds its own copy of the model (~300 MB) |
 * | `RERANK_PROVIDER` | none (no reranker) | `cohere`, `jina` or `tei`, as spelt |
 * | `RERANK_BASE_URL`, `RERANK_API_KEY`, `RERANK_MODEL` | the provider's | where and what the reranker calls |
 *
 * Values are trimmed and a blank one is unset (`FOO=` in a .env file). Reading never fails but
 * for MODEL_PROVIDER and RERANK_PROVIDER naming no provider; whether the values make a usable
 * provider (a key present, a host that parses) is the provider's to say when it is built.
 * MODEL_PROVIDER's and RERANK_PROVIDER's words are the ids of the providers' lists, so those
 * two schemas are made from the ids.
 */
import { z } from 'zod';
import { flag, oneOf, text, wholeNumber } from './fields.js';

export interface OpenAISettings {
  apiKey: string | undefined;
  baseURL: string | undefined;
  model: string | undefined;
  embeddingModel: string | undefined;
}

export const openaiSettingsSchema = z
  .object({ OPENAI_API_KEY: text(), OPENAI_BASE_URL: text(), OPENAI_MODEL: text(), OPENAI_EMBEDDING_MODEL: text() })
  .transform(
    (env): OpenAISettings => ({ apiKey: env.OPENAI_API_KEY, baseURL: env.OPENAI_BASE_URL, model: env.OPENAI_MODEL, embeddingModel: env.OPENAI_EMBEDDING_MODEL }),
  );

export interface AnthropicSettings {
  apiKey: string | undefined;
  baseURL: string | undefined;
  model: string | undefined;
}

export const anthropicSettingsSchema = z
  .object({ ANTHROPIC_API_KEY: text(), ANTHROPIC_BASE_URL: text(), ANTHROPIC_MODEL: text() })
  .transform((env): AnthropicSettings => ({ apiKey: env.ANTHROPIC_API_KEY, baseURL: env.ANTHROPIC_BASE_URL, model: env.ANTHROPIC_MODEL }));

export interface OllamaSettings {
  host: string | undefined;
  model: string | undefined;
  embeddingModel: string | undefined;
}

export const ollamaSettingsSchema = z
  .object({ OLLAMA_HOST: text(), OLLAMA_MODEL: text(), OLLAMA_EMBEDDING_MODEL: text() })
  .transform((env): OllamaSettings => ({ host: env.OLLAMA_HOST, model: env.OLLAMA_MODEL, embeddingModel: env.OLLAMA_EMBEDDING_MODEL }));

export interface LocalEmbeddingSettings {
  /** Whether the embedded encoder is the embedder when no provider is configured. */
  enabled: boolean;
  /** Worker processes running it. */
  workers: number;
}

export const localEmbeddingSettingsSchema = z
  .object({ LOCAL_EMBEDDINGS: flag(true), LOCAL_EMBEDDING_WORKERS: wholeNumber({ min: 1, max: 16, default: 1 }) })
  .transform((env): LocalEmbeddingSettings => ({ enabled: env.LOCAL_EMBEDDINGS, workers: env.LOCAL_EMBEDDING_WORKERS }));

/** MODEL_PROVIDER among the chat providers' `ids`, lowercased; undefined when unset. */
export function modelProviderSchema<const Id extends string>(ids: readonly Id[]): z.ZodType<Id | undefined> {
  return z.object({ MODEL_PROVIDER: oneOf(ids, { lowercase: true, wording: 'one of' }) }).transform((env) => env.MODEL_PROVIDER);
}

export interface RerankSettings<Id extends string = string> {
  /** Undefined: no reranker. */
  provider: Id | undefined;
  baseURL: string | undefined;
  apiKey: string | undefined;
  model: string | undefined;
}

/** RERANK_PROVIDER among the rerankers' `ids`, with the variables every reranker reads. */
export function rerankSettingsSchema<const Id extends string>(ids: readonly Id[]): z.ZodType<RerankSettings<Id>> {
  return z
    .object({ RERANK_PROVIDER: oneOf(ids), RERANK_BASE_URL: text(), RERANK_API_KEY: text(), RERANK_MODEL: text() })
    .transform((env): RerankSettings<Id> => ({ provider: env.RERANK_PROVIDER, baseURL: env.RERANK_BASE_URL, apiKey: env.RERANK_API_KEY, model: env.RERANK_MODEL }));
}
