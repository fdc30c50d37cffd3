/**
 * @module model/from-environment
 * Builds a model from configuration: `openai()`, `anthropic()` and `ollama()` for code (each
 * falls back to its provider's usual environment variables, as the vendors' SDKs do), and
 * `modelFromEnvironment()`, which the Runtime uses when it is given no model.
 */
import { ConfigurationError } from '../errors.js';
import { AnthropicMessagesModel, type AnthropicMessagesModelOptions } from './anthropic-messages-model.js';
import { ModelError, type Model } from './model.js';
import { OllamaChatModel, type OllamaChatModelOptions } from './ollama-chat-model.js';
import { OpenAIChatModel, type OpenAIChatModelOptions } from './openai-chat-model.js';

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

const FACTORIES: Record<ProviderName, (options: { env: ModelEnvironment }) => Model> = { openai, anthropic, ollama };

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
  const provider = explicit ?? detect(env);
  if (provider === undefined) return undefined;
  try {
    return FACTORIES[provider]({ env });
  } catch (error) {
    // A provider that cannot be built from these variables is a startup error, in a sentence.
    if (ModelError.isInstance(error)) throw new ConfigurationError(`${error.message} (model provider "${provider}" from the environment)`);
    throw error;
  }
}

function detect(env: ModelEnvironment): ProviderName | undefined {
  if (read(env, 'OPENAI_API_KEY') || read(env, 'OPENAI_BASE_URL')) return 'openai';
  if (read(env, 'ANTHROPIC_API_KEY')) return 'anthropic';
  if (read(env, 'OLLAMA_HOST') || read(env, 'OLLAMA_MODEL')) return 'ollama';
  return undefined;
}

function isProviderName(value: string): value is ProviderName {
  return Object.hasOwn(DEFAULT_MODELS, value);
}
