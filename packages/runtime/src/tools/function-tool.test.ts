import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { executeToolCall, tool, toToolSpec, type ToolContext } from './function-tool.js';

const context: ToolContext = { runId: 'r', sessionId: 's', userId: undefined, signal: new AbortController().signal };

const weather = tool({
  name: 'get_weather',
  description: 'Weather for a city',
  input: z.object({ city: z.string().min(1).describe('City name'), days: z.number().int().min(1).max(7).optional() }),
  execute: ({ city, days }) => ({ city, forecast: 'sunny', days: days ?? 1 }),
});

describe('function tools', () => {
  it('describe their arguments to the model as JSON Schema', () => {
    const spec = toToolSpec(weather);
    expect(spec.name).toBe('get_weather');
    expect(spec.parameters).toMatchObject({
      type: 'object',
      properties: { city: { type: 'string', description: 'City name' }, days: { type: 'integer' } },
      required: ['city'],
    });
    expect(spec.parameters).not.toHaveProperty('$schema');
  });

  it('validate arguments and serialise results', async () => {
    expect(await executeToolCall(weather, '{"city":"Paris","days":2}', context)).toEqual({
      ok: true,
      result: '{"city":"Paris","forecast":"sunny","days":2}',
    });
  });

  it('turn bad JSON, schema failures and thrown errors into text for the model', async () => {
    expect(await executeToolCall(weather, '{"city":', context)).toEqual({ ok: false, error: 'Invalid arguments for get_weather: not valid JSON' });
    const invalid = await executeToolCall(weather, '{"city":"","days":9}', context);
    expect(invalid.ok).toBe(false);
    expect(!invalid.ok && invalid.error).toMatch(/city: .*days: /);
    const failing = tool({ name: 'boom', description: 'fails', input: z.object({}), execute: () => { throw new Error('disk full'); } });
    expect(await executeToolCall(failing, '', context)).toEqual({ ok: false, error: 'Tool boom failed: disk full' });
  });

  it('refuse names that model APIs reject', () => {
    expect(() => tool({ name: 'has space', description: '', input: z.object({}), execute: () => '' })).toThrow(/1-64 letters/);
  });
});

describe('tool specs', () => {
  it('offers fields with defaults as optional: the model may leave them out', () => {
    const clock = tool({
      name: 'clock',
      description: 'time',
      input: z.object({ timezone: z.string().default('UTC'), format: z.enum(['iso', 'long']) }),
      execute: () => '',
    });
    const spec = toToolSpec(clock);
    expect(spec.parameters).toMatchObject({ properties: { timezone: { type: 'string', default: 'UTC' } } });
    expect(spec.parameters.required).toEqual(['format']);
    expect(spec.parameters).not.toHaveProperty('$schema');
  });
});
