/**
 * @module knowledge/embedders/from-environment
 * The embedder the environment configures, mirroring the chat models: OpenAI (or compatible)
 * when OPENAI_API_KEY or OPENAI_BASE_URL is set, with OPENAI_EMBEDDING_MODEL; else Ollama when
 * OLLAMA_EMBEDDING_MODEL is set (with OLLAMA_HOST). Undefined otherwise: knowledge then does
 * keyword search only, so nothing requires an API key. The EMBEDDING_* settings (batch size,
 * concurrency, rate limits, retries; see limits.ts) are read from the same environment.
 */
import type { ModelEnvironment } from '../../model/from-environment.js';
import type { Embedder } from './embedder.js';
import { OllamaEmbedder } from './ollama.js';
import { OpenAIEmbedder } from './openai.js';

function read(env: ModelEnvironment, name: string): string | undefined {
  const value = env[name]?.trim();
  return value ? value : undefined;
}

export function embedderFromEnvironment(env: ModelEnvironment = process.env): Embedder | undefined {
  const apiKey = read(env, 'OPENAI_API_KEY');
  const baseURL = read(env, 'OPENAI_BASE_URL');
  if (apiKey || baseURL) return new OpenAIEmbedder({ apiKey, baseURL, model: read(env, 'OPENAI_EMBEDDING_MODEL'), env });
  const ollamaModel = read(env, 'OLLAMA_EMBEDDING_MODEL');
  if (ollamaModel) return new OllamaEmbedder({ model: ollamaModel, host: read(env, 'OLLAMA_HOST'), env });
  return undefined;
}
