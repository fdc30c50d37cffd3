/**
 * @module model/token-estimate
 * A token count without a tokenizer: about four characters of English a token, the rule of thumb
 * OpenAI and Anthropic both publish. Good for bounds with headroom (history budgets, embedding
 * batch sizes) until a provider reports the real count; never for a bill.
 */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}
