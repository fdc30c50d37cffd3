import { describe, expect, it } from 'vitest';
import type { Model } from '../model/model.js';
import { estimateTokens } from '../model/token-estimate.js';
import { contextWindow, UNKNOWN_CONTEXT_WINDOW } from './tokens.js';

const model = (id: string, extra: Record<string, unknown> = {}): Model => ({ id, provider: 'x', stream: () => (async function* () {})(), generate: () => Promise.reject(new Error('unused')), ...extra });

describe('token budgets', () => {
  it('estimates four characters a token', () => {
    expect(estimateTokens('')).toBe(0);
    expect(estimateTokens('abcde')).toBe(2);
  });

  it('knows context windows by the longest matching name, a model’s own first, else a safe default', () => {
    expect(contextWindow(model('gpt-4o-mini'))).toBe(128_000);
    expect(contextWindow(model('gpt-4.1-nano'))).toBe(1_047_576);
    expect(contextWindow(model('claude-sonnet-4-5'))).toBe(200_000);
    expect(contextWindow(model('llama3.1:8b'))).toBe(128_000);
    expect(contextWindow(model('fake-model'))).toBe(UNKNOWN_CONTEXT_WINDOW);
    expect(contextWindow(model('fake-model', { contextWindow: 32_000 }))).toBe(32_000);
  });
});
