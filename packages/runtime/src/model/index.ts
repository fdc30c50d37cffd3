/**
 * @module model
 * The model layer's public surface: the Model interface, the three providers, and the
 * factories that build one from options or the environment.
 */
export type { Model, ModelRequest, ModelResponse, StreamPart, ChatMessage, ToolCall, ToolSpec, Usage, FinishReason, ModelErrorCode } from './model.js';
export { ModelError, collect } from './model.js';
export type { HttpOptions } from './http.js';
export { OpenAIChatModel, OPENAI_DEFAULT_BASE_URL, type OpenAIChatModelOptions } from './openai-chat-model.js';
export { AnthropicMessagesModel, ANTHROPIC_DEFAULT_BASE_URL, ANTHROPIC_VERSION, type AnthropicMessagesModelOptions } from './anthropic-messages-model.js';
export { OllamaChatModel, OLLAMA_DEFAULT_HOST, type OllamaChatModelOptions } from './ollama-chat-model.js';
export { openai, anthropic, ollama, modelFromEnvironment, DEFAULT_MODELS, type ModelEnvironment, type ProviderName } from './from-environment.js';
