/**
 * @module providers
 * The model providers' public surface: chat, embedding and rerank adapters per vendor (each chat
 * one with its `openai()`-style factory), their transport options, and the functions that pick
 * one from the environment.
 */
export type { HttpOptions } from './http.js';
export { OpenAIChatModel, OPENAI_DEFAULT_BASE_URL, openai, type OpenAIChatModelOptions } from './openai/chat.js';
export { OpenAIEmbedder, OPENAI_DEFAULT_EMBEDDING_MODEL, type OpenAIEmbedderOptions } from './openai/embeddings.js';
export { AnthropicMessagesModel, ANTHROPIC_DEFAULT_BASE_URL, ANTHROPIC_VERSION, anthropic, type AnthropicMessagesModelOptions } from './anthropic/messages.js';
export { OllamaChatModel, ollama, type OllamaChatModelOptions } from './ollama/chat.js';
export { OllamaEmbedder, OLLAMA_DEFAULT_EMBEDDING_MODEL, type OllamaEmbedderOptions } from './ollama/embeddings.js';
export { LocalEmbedder, LOCAL_EMBEDDING_MODEL, type LocalEmbedderOptions } from './local/embeddings.js';
export { LocalEmbedderError, type LocalEmbedderFailure } from './local/errors.js';
export { OLLAMA_DEFAULT_HOST } from './ollama/host.js';
export { CohereReranker, type CohereRerankerOptions } from './cohere/rerank.js';
export { TeiReranker, type TeiRerankerOptions } from './tei/rerank.js';
export { modelFromEnvironment, embedderFromEnvironment, rerankerFromEnvironment, DEFAULT_MODELS, type ModelEnvironment, type ProviderName } from './from-environment.js';
