/**
 * @module memory/tokens
 * Token counts as budgets need them: an estimate (model/token-estimate.ts), never a tokenizer: a
 * budget is a bound with headroom, not a bill. And the context window of a model, for the default
 * history budget.
 */
import type { ChatMessage, Model } from '../model/model.js';
import { estimateTokens } from '../model/token-estimate.js';

const MEDIA_TOKENS = 1_600;

/** A message's estimated tokens: its text, its tool calls' arguments, and a few for its framing. */
export function messageTokens(message: ChatMessage): number {
  let text = message.content;
  if (message.role === 'assistant' && message.toolCalls) for (const call of message.toolCalls) text += call.name + call.arguments;
  // An image costs about as much as a large one does at Anthropic (1,600) whatever its bytes.
  const media = message.role === 'tool' ? (message.media?.length ?? 0) * MEDIA_TOKENS : 0;
  return estimateTokens(text) + media + 4;
}

export function messagesTokens(messages: readonly ChatMessage[]): number {
  let total = 0;
  for (const m of messages) total += messageTokens(m);
  return total;
}

/** Context windows by model name prefix (longest prefix first), from the vendors' model pages. */
const CONTEXT_WINDOWS: readonly (readonly [prefix: string, tokens: number])[] = [
  ['gpt-4.1', 1_047_576],
  ['gpt-4o', 128_000],
  ['gpt-4-turbo', 128_000],
  ['gpt-4', 8_192],
  ['gpt-3.5', 16_385],
  ['gpt-5', 400_000],
  ['o1', 200_000],
  ['o3', 200_000],
  ['o4', 200_000],
  ['claude', 200_000],
  ['llama3', 8_192],
  ['llama3.1', 128_000],
  ['llama3.2', 128_000],
  ['qwen2.5', 32_768],
  ['mistral', 32_768],
];

/** Assumed for a model we know nothing of: small enough to be safe on a local 8k model. */
export const UNKNOWN_CONTEXT_WINDOW = 8_192;

/** The model's context window: its own `contextWindow` when it has one, else by name, else 8,192. */
export function contextWindow(model: Model): number {
  const own = (model as { contextWindow?: unknown }).contextWindow;
  if (typeof own === 'number' && Number.isFinite(own) && own > 0) return own;
  const name = model.id.toLowerCase();
  let best: readonly [string, number] | undefined;
  for (const entry of CONTEXT_WINDOWS) if (name.startsWith(entry[0]) && (!best || entry[0].length > best[0].length)) best = entry;
  return best?.[1] ?? UNKNOWN_CONTEXT_WINDOW;
}
