/**
 * @module providers/from-environment
 * Which provider the configuration picks, for each kind of model. For code: `openai()`,
 * `anthropic()` and `ollama()`, each falling back to its provider's usual environment variables
 * as the vendors' SDKs do. For the Runtime and knowledge bases: `modelFromEnvironment()`,
 * `embedderFromEnvironment()` and `rerankerFromEnvironment()`. Each kind has one list of its
 * providers below, so a new provider is its adapter file plus an entry there.
 */
import { ConfigurationError } from '../errors.js';
import type { Embedder } from '../model/embedder.js';
import { ModelError, type Model } from '../model/model.js';
import type { Reranker } from '../model/reranker.js';
import { AnthropicMessagesModel, type AnthropicMessagesModelOptions } from './anthropic/messages.js';
import { CohereReranker } from './cohere/rerank.js';
import { OllamaChatModel, type OllamaChatModelOptions } from './ollama/chat.js';
import { OllamaEmbedder } from './ollama/embeddings.js';
import { OpenAIChatModel, type OpenAIChatModelOptions } from './openai/chat.js';
import { OpenAIEmbedder } from './openai/embeddings.js';
import { TeiReranker } from './tei/rerank.js';

export type ModelEnvironment = Readonly<Record<string, string | undefined>>;

/** Used when neither the options nor the environment name a model. */
export const DEFAULT_MODELS = { openai: 'gpt-4o-mini', anthropic: 'claude-sonnet-4-5', ollama: 'llama3.2' } as const;

export type ProviderName = keyof typeof DEFAULT_MODELS;

/** Every option may be omitted; `env` (default `process.env`) supplies what is missing. */
type FactoryOptions<T> = Partial<T> & { env?: ModelEnvironment };

/** A set, non-blank variable; `FOO=` in a .env file means unset, not "empty key". */
function read(env: ModelEnvironment, name: string): string | undefined {
  const value = env[name]?.trim();
  return value ? value : undefined;
}

/** OpenAI, or any OpenAI-compatible server: OPENAI_API_KEY, OPENAI_BASE_URL, OPENAI_MODEL. */
export function openai(options: FactoryOptions<OpenAIChatModelOptions> = {}): Model {
  const { env = process.env, ...rest } = options;
  return new OpenAIChatModel({
    ...rest,
    model: rest.model ?? read(env, 'OPENAI_MODEL') ?? DEFAULT_MODELS.openai,
    apiKey: rest.apiKey ?? read(env, 'OPENAI_API_KEY'),
    baseURL: rest.baseURL ?? read(env, 'OPENAI_BASE_URL'),
  });
}

/** Anthropic: ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL, ANTHROPIC_MODEL. */
export function anthropic(options: FactoryOptions<AnthropicMessagesModelOptions> = {}): Model {
  const { env = process.env, ...rest } = options;
  return new AnthropicMessagesModel({
    ...rest,
    model: rest.model ?? read(env, 'ANTHROPIC_MODEL') ?? DEFAULT_MODELS.anthropic,
    apiKey: rest.apiKey ?? read(env, 'ANTHROPIC_API_KEY') ?? '',
    baseURL: rest.baseURL ?? read(env, 'ANTHROPIC_BASE_URL'),
  });
}

/** Ollama's native API: OLLAMA_HOST, OLLAMA_MODEL. */
export function ollama(options: FactoryOptions<OllamaChatModelOptions> = {}): Model {
  const { env = process.env, ...rest } = options;
  return new OllamaChatModel({
    ...rest,
    model: rest.model ?? read(env, 'OLLAMA_MODEL') ?? DEFAULT_MODELS.ollama,
    host: rest.host ?? read(env, 'OLLAMA_HOST'),
  });
}

/** The chat providers, in the order the environment is searched when MODEL_PROVIDER is unset, each with the variables that select it. */
const CHAT_PROVIDERS: readonly { name: ProviderName; selectedBy: readonly string[]; build: (options: { env: ModelEnvironment }) => Model }[] = [
  { name: 'openai', selectedBy: ['OPENAI_API_KEY', 'OPENAI_BASE_URL'], build: openai },
  { name: 'anthropic', selectedBy: ['ANTHROPIC_API_KEY'], build: anthropic },
  { name: 'ollama', selectedBy: ['OLLAMA_HOST', 'OLLAMA_MODEL'], build: ollama },
];

/**
 * The model the environment configures: MODEL_PROVIDER when set, else the first provider with
 * its variables present, checked in the order OpenAI (OPENAI_API_KEY or OPENAI_BASE_URL),
 * Anthropic (ANTHROPIC_API_KEY), Ollama (OLLAMA_HOST or OLLAMA_MODEL). Undefined when none is:
 * the runtime still starts and each run then fails with a message saying what to set.
 * Throws ConfigurationError when the variables are set but unusable, so startup fails loudly.
 */
export function modelFromEnvironment(env: ModelEnvironment = process.env): Model | undefined {
  const explicit = read(env, 'MODEL_PROVIDER')?.toLowerCase();
  if (explicit !== undefined && !isProviderName(explicit)) {
    throw new ConfigurationError(`MODEL_PROVIDER must be one of ${Object.keys(DEFAULT_MODELS).join(', ')} (got "${explicit}")`);
  }
  const provider = explicit ?? CHAT_PROVIDERS.find((p) => p.selectedBy.some((name) => read(env, name)))?.name;
  if (provider === undefined) return undefined;
  try {
    return CHAT_PROVIDERS.find((p) => p.name === provider)!.build({ env });
  } catch (error) {
    // A provider that cannot be built from these variables is a startup error, in a sentence.
    if (ModelError.isInstance(error)) throw new ConfigurationError(`${error.message} (model provider "${provider}" from the environment)`);
    throw error;
  }
}

function isProviderName(value: string): value is ProviderName {
  return Object.hasOwn(DEFAULT_MODELS, value);
}

/**
 * The embedders, in the order the environment is searched: OpenAI (or compatible) when
 * OPENAI_API_KEY or OPENAI_BASE_URL is set, with OPENAI_EMBEDDING_MODEL; Ollama when
 * OLLAMA_EMBEDDING_MODEL is set (with OLLAMA_HOST). Each answers undefined when not configured.
 * The EMBEDDING_* settings (batch size, concurrency, rate limits, retries; see
 * embedding/limits.ts) are read from the same environment.
 */
const EMBEDDERS: readonly ((env: ModelEnvironment) => Embedder | undefined)[] = [
  (env) => {
    const apiKey = read(env, 'OPENAI_API_KEY');
    const baseURL = read(env, 'OPENAI_BASE_URL');
    return apiKey || baseURL ? new OpenAIEmbedder({ apiKey, baseURL, model: read(env, 'OPENAI_EMBEDDING_MODEL'), env }) : undefined;
  },
  (env) => {
    const model = read(env, 'OLLAMA_EMBEDDING_MODEL');
    return model ? new OllamaEmbedder({ model, host: read(env, 'OLLAMA_HOST'), env }) : undefined;
  },
];

/** The first embedder the environment configures; undefined leaves knowledge to keyword search, so nothing requires an API key. */
export function embedderFromEnvironment(env: ModelEnvironment = process.env): Embedder | undefined {
  for (const fromEnvironment of EMBEDDERS) {
    const embedder = fromEnvironment(env);
    if (embedder) return embedder;
  }
  return undefined;
}

interface RerankSettings {
  baseURL: string | undefined;
  apiKey: string | undefined;
  model: string | undefined;
}

/** The values of RERANK_PROVIDER, each with what it builds from RERANK_BASE_URL, RERANK_API_KEY and RERANK_MODEL. */
const RERANKERS: Readonly<Record<string, (settings: RerankSettings) => Reranker>> = {
  cohere: (s) => new CohereReranker(s),
  // Jina, and other servers with Cohere's API behind RERANK_BASE_URL.
  jina: (s) => new CohereReranker(s),
  // Hugging Face Text Embeddings Inference: the server names the model.
  tei: ({ baseURL, apiKey }) => {
    if (!baseURL) throw new ConfigurationError('RERANK_PROVIDER=tei needs RERANK_BASE_URL (the TEI server, e.g. http://reranker:8080)');
    return new TeiReranker({ baseURL, apiKey });
  },
};

/** The reranker RERANK_PROVIDER names; none when it is unset. */
export function rerankerFromEnvironment(env: ModelEnvironment = process.env): Reranker | undefined {
  const provider = read(env, 'RERANK_PROVIDER');
  if (!provider) return undefined;
  if (!Object.hasOwn(RERANKERS, provider)) {
    const names = Object.keys(RERANKERS);
    throw new ConfigurationError(`RERANK_PROVIDER must be ${names.slice(0, -1).join(', ')} or ${names.at(-1)}, got "${provider}"`);
  }
  return RERANKERS[provider]!({ baseURL: read(env, 'RERANK_BASE_URL'), apiKey: read(env, 'RERANK_API_KEY'), model: read(env, 'RERANK_MODEL') });
}
