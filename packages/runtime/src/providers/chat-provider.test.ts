import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { Model } from '../model/model.js';
import { text } from '../settings/fields.js';
import { defineChatProvider } from './chat-provider.js';

interface FakeOptions {
  model: string;
  apiKey?: string | undefined;
  timeoutMs?: number | undefined;
}

// A provider as a vendor's chat file defines one; its "model" just shows the options it got.
const FAKE_CHAT = defineChatProvider({
  id: 'fake',
  defaultModel: 'fake-1',
  settings: z.object({ FAKE_API_KEY: text(), FAKE_MODEL: text() }).transform((env) => ({ apiKey: env.FAKE_API_KEY, model: env.FAKE_MODEL })),
  selectedBy: (s) => s.apiKey !== undefined,
  options: (s) => ({ model: s.model, apiKey: s.apiKey }),
  model: (options: FakeOptions) => ({ provider: 'fake', id: options.model, options }) as unknown as Model & { options: FakeOptions },
});

describe('defineChatProvider', () => {
  it('builds from the options first, then the variables, then the default model', () => {
    const env = { FAKE_API_KEY: 'env-key', FAKE_MODEL: 'env-model' };
    expect(FAKE_CHAT.create({ env, model: 'given', apiKey: 'given-key', timeoutMs: 5 })).toMatchObject({ id: 'given', options: { apiKey: 'given-key', timeoutMs: 5 } });
    expect(FAKE_CHAT.create({ env })).toMatchObject({ id: 'env-model', options: { apiKey: 'env-key' } });
    expect(FAKE_CHAT.create({ env: { FAKE_MODEL: '  ' } })).toMatchObject({ id: 'fake-1', options: { apiKey: undefined } });
  });

  it('is selected by its variables, a blank one counting as unset', () => {
    expect(FAKE_CHAT.selectedBy({ FAKE_API_KEY: 'k' })).toBe(true);
    expect(FAKE_CHAT.selectedBy({ FAKE_API_KEY: ' ', FAKE_MODEL: 'm' })).toBe(false);
  });
});
