import { Hono } from 'hono';
import { validator } from 'hono/validator';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { AppEnv } from './context.js';
import { inputGuard } from './input-guard.js';

afterEach(() => vi.restoreAllMocks());

describe('inputGuard', () => {
  it('parses a JSON body once: the validator after it gets the same value without parsing again', async () => {
    const app = new Hono<AppEnv>();
    app.post(
      '/upload',
      inputGuard(true),
      validator('json', (value) => value as { text: string }),
      (c) => c.json({ length: c.req.valid('json').text.length }),
    );
    const body = JSON.stringify({ text: 'x'.repeat(100_000) });
    const parse = vi.spyOn(JSON, 'parse');
    const response = await app.request('/upload', { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    expect(await response.json()).toEqual({ length: 100_000 });
    // One parse of the request body (the other call is the test reading the response).
    expect(parse.mock.calls.filter(([text]) => text === body)).toHaveLength(1);
  });

  it('still refuses what it refused: a NUL character in a JSON string', async () => {
    const app = new Hono<AppEnv>();
    app.onError((error, c) => c.json({ detail: error.message }, 422));
    app.post('/upload', inputGuard(true), (c) => c.json({ ok: true }));
    const response = await app.request('/upload', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ text: 'a\u0000b' }) });
    expect(response.status).toBe(422);
    expect(await response.json()).toEqual({ detail: 'body.text contains a NUL character, which is not allowed in text' });
  });
});
