/**
 * @module model
 * What the runtime asks of a model, whoever serves it: the chat Model (and its errors), the
 * Embedder and the Reranker, and what a call's usage cost. The providers that implement them
 * are in providers/.
 */
export type { Model, ModelRequest, ModelResponse, StreamPart, ChatMessage, ToolCall, ToolMedia, ToolSpec, Usage, FinishReason, ModelErrorCode } from './model.js';
export { ModelError, collect } from './model.js';
export { describeMedia, toolResultText } from './tool-media.js';
export { costOf } from './pricing.js';
export type { Embedder } from './embedder.js';
export type { Reranker, RerankResult } from './reranker.js';
