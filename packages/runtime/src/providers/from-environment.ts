/**
 * @module providers/from-environment
 * Which provider the configuration picks, for each kind of model. For code: `openai()`,
 * `anthropic()` and `ollama()` (defined beside their adapters), each falling back to its
 * provider's usual environment variables as the vendors' SDKs do. For the Runtime and knowledge
 * bases: `modelFromEnvironment()`, `embedderFromEnvironment()` and `rerankerFromEnvironment()`.
 * Each kind has one list of its providers below; the variables are read by settings/providers.
 */
import { ConfigurationError } from '../errors.js';
import type { Embedder } from '../model/embedder.js';
import { ModelError, type Model } from '../model/model.js';
import type { Reranker } from '../model/reranker.js';
import { readEnvironment } from '../settings/environment.js';
import { localEmbeddingSettingsSchema, modelProviderSchema, ollamaSettingsSchema, openaiSettingsSchema, rerankSettingsSchema, type RerankSettings } from '../settings/providers.js';
import { ANTHROPIC_CHAT } from './anthropic/messages.js';
import type { ModelEnvironment } from './chat-provider.js';
import { CohereReranker } from './cohere/rerank.js';
import { LocalEmbedder } from './local/embeddings.js';
import { OLLAMA_CHAT } from './ollama/chat.js';
import { OllamaEmbedder } from './ollama/embeddings.js';
import { OPENAI_CHAT } from './openai/chat.js';
import { OpenAIEmbedder } from './openai/embeddings.js';
import { TeiReranker } from './tei/rerank.js';

export type { ModelEnvironment } from './chat-provider.js';
export { anthropic } from './anthropic/messages.js';
export { ollama } from './ollama/chat.js';
export { openai } from './openai/chat.js';

/**
 * The chat providers, in the order the environment is searched when MODEL_PROVIDER is unset. A
 * new one is its definition (providers/chat-provider) in its vendor's chat file plus a line here.
 */
const CHAT_PROVIDERS = [OPENAI_CHAT, ANTHROPIC_CHAT, OLLAMA_CHAT] as const;

type ChatProviders = (typeof CHAT_PROVIDERS)[number];

export type ProviderName = ChatProviders['id'];

/** Used when neither the options nor the environment name a model. */
export const DEFAULT_MODELS = Object.fromEntries(CHAT_PROVIDERS.map((p) => [p.id, p.defaultModel])) as { readonly [P in ChatProviders as P['id']]: P['defaultModel'] };

const MODEL_PROVIDER = modelProviderSchema(CHAT_PROVIDERS.map((p) => p.id));

/**
 * The model the environment configures: MODEL_PROVIDER when set, else the first provider with
 * its variables present, checked in the order OpenAI (OPENAI_API_KEY or OPENAI_BASE_URL),
 * Anthropic (ANTHROPIC_API_KEY), Ollama (OLLAMA_HOST or OLLAMA_MODEL). Undefined when none is:
 * the runtime still starts and each run then fails with a message saying what to set.
 * Throws ConfigurationError when the variables are set but unusable, so startup fails loudly.
 */
export function modelFromEnvironment(env: ModelEnvironment = process.env): Model | undefined {
  const explicit = readEnvironment(MODEL_PROVIDER, env);
  const provider = explicit === undefined ? CHAT_PROVIDERS.find((p) => p.selectedBy(env)) : CHAT_PROVIDERS.find((p) => p.id === explicit);
  if (provider === undefined) return undefined;
  try {
    return provider.create({ env });
  } catch (error) {
    // A provider that cannot be built from these variables is a startup error, in a sentence.
    if (ModelError.isInstance(error)) throw new ConfigurationError(`${error.message} (model provider "${provider.id}" from the environment)`);
    throw error;
  }
}

/**
 * The embedders, in the order the environment is searched: OpenAI (or compatible) when
 * OPENAI_API_KEY or OPENAI_BASE_URL is set, with OPENAI_EMBEDDING_MODEL; Ollama when
 * OLLAMA_EMBEDDING_MODEL is set (with OLLAMA_HOST); else the local sentence encoder, whose
 * weights ship with the runtime (providers/local), unless LOCAL_EMBEDDINGS=false. Each answers
 * undefined when not configured. The EMBEDDING_* settings (batch size, concurrency, rate limits,
 * retries; see settings/embedding.ts) are read from the same environment.
 */
const EMBEDDERS: readonly ((env: ModelEnvironment) => Embedder | undefined)[] = [
  (env) => {
    const s = readEnvironment(openaiSettingsSchema, env);
    return s.apiKey || s.baseURL ? new OpenAIEmbedder({ apiKey: s.apiKey, baseURL: s.baseURL, model: s.embeddingModel, env }) : undefined;
  },
  (env) => {
    const s = readEnvironment(ollamaSettingsSchema, env);
    return s.embeddingModel ? new OllamaEmbedder({ model: s.embeddingModel, host: s.host, env }) : undefined;
  },
  (env) => (readEnvironment(localEmbeddingSettingsSchema, env).enabled ? new LocalEmbedder({ env }) : undefined),
];

/**
 * The first embedder the environment configures: with no key, the local one, so vector and
 * hybrid search need no API key; undefined (keyword search only) with LOCAL_EMBEDDINGS=false.
 */
export function embedderFromEnvironment(env: ModelEnvironment = process.env): Embedder | undefined {
  for (const fromEnvironment of EMBEDDERS) {
    const embedder = fromEnvironment(env);
    if (embedder) return embedder;
  }
  return undefined;
}

type RerankerOptions = Omit<RerankSettings, 'provider'>;

/** The values of RERANK_PROVIDER, each with what it builds from RERANK_BASE_URL, RERANK_API_KEY and RERANK_MODEL. */
const RERANKERS = {
  cohere: (s: RerankerOptions): Reranker => new CohereReranker(s),
  // Jina, and other servers with Cohere's API behind RERANK_BASE_URL.
  jina: (s: RerankerOptions): Reranker => new CohereReranker(s),
  // Hugging Face Text Embeddings Inference: the server names the model.
  tei: ({ baseURL, apiKey }: RerankerOptions): Reranker => {
    if (!baseURL) throw new ConfigurationError('RERANK_PROVIDER=tei needs RERANK_BASE_URL (the TEI server, e.g. http://reranker:8080)');
    return new TeiReranker({ baseURL, apiKey });
  },
};

const RERANK_SETTINGS = rerankSettingsSchema(Object.keys(RERANKERS) as (keyof typeof RERANKERS)[]);

/** The reranker RERANK_PROVIDER names; none when it is unset. */
export function rerankerFromEnvironment(env: ModelEnvironment = process.env): Reranker | undefined {
  const { provider, ...settings } = readEnvironment(RERANK_SETTINGS, env);
  return provider === undefined ? undefined : RERANKERS[provider](settings);
}
