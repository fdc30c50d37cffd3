import { describe, expect, it } from 'vitest';
import { runtimeOptionsSchema } from './runtime-options.js';

describe('runtime options', () => {
  it('accept process.env itself as env, which is not a plain object', () => {
    expect(runtimeOptionsSchema.safeParse({ env: process.env }).success).toBe(true);
    expect(runtimeOptionsSchema.safeParse({ env: { PORT: '8080', UNSET: undefined } }).success).toBe(true);
  });

  it('refuse an env whose values are not strings', () => {
    const parsed = runtimeOptionsSchema.safeParse({ env: { PORT: 8080 } });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]?.message).toBe('env must map variable names to strings');
  });
});
