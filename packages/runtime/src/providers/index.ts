/**
 * @module providers
 * The model providers' public surface: chat, embedding and rerank adapters per vendor, their
 * transport options, and the factories that pick one from options or the environment.
 */
export type { HttpOptions } from './http.js';
export { OpenAIChatModel, OPENAI_DEFAULT_BASE_URL, type OpenAIChatModelOptions } from './openai/chat.js';
export { OpenAIEmbedder, OPENAI_DEFAULT_EMBEDDING_MODEL, type OpenAIEmbedderOptions } from './openai/embeddings.js';
export { AnthropicMessagesModel, ANTHROPIC_DEFAULT_BASE_URL, ANTHROPIC_VERSION, type AnthropicMessagesModelOptions } from './anthropic/messages.js';
export { OllamaChatModel, type OllamaChatModelOptions } from './ollama/chat.js';
export { OllamaEmbedder, OLLAMA_DEFAULT_EMBEDDING_MODEL, type OllamaEmbedderOptions } from './ollama/embeddings.js';
export { OLLAMA_DEFAULT_HOST } from './ollama/host.js';
export { CohereReranker, type CohereRerankerOptions } from './cohere/rerank.js';
export { TeiReranker, type TeiRerankerOptions } from './tei/rerank.js';
export {
  openai,
  anthropic,
  ollama,
  modelFromEnvironment,
  embedderFromEnvironment,
  rerankerFromEnvironment,
  DEFAULT_MODELS,
  type ModelEnvironment,
  type ProviderName,
} from './from-environment.js';
