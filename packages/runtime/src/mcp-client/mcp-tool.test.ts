import { describe, expect, it } from 'vitest';
import { executeToolCall, toToolSpec } from '../tools/function-tool.js';
import { modelToolName, resultText, toFunctionTool } from './mcp-tool.js';

const context = { runId: 'r', sessionId: 's', userId: undefined, signal: new AbortController().signal };

describe('an MCP tool as the agent holds it', () => {
  const calls: unknown[] = [];
  const weather = toFunctionTool(
    {
      name: 'get.weather',
      description: 'Weather',
      inputSchema: { $schema: 'http://json-schema.org/draft-07/schema#', type: 'object', properties: { city: { type: 'string', minLength: 2 } }, required: ['city'] },
    },
    {
      prefix: 'srv_',
      requiresConfirmation: true,
      call: async (name, args) => {
        calls.push([name, args]);
        if (args.city === 'Atlantis') return { content: [{ type: 'text', text: 'No such city' }], isError: true };
        return { content: [{ type: 'text', text: '{"t":20}' }], structuredContent: { t: 20 } };
      },
    },
  );

  it('keeps the server’s schema for the model, named as model APIs accept', () => {
    expect(toToolSpec(weather)).toEqual({
      name: 'srv_get_weather',
      description: 'Weather',
      parameters: { type: 'object', properties: { city: { type: 'string', minLength: 2 } }, required: ['city'] },
    });
    expect(weather.requiresConfirmation).toBe(true);
    expect(modelToolName('', 'a'.repeat(70))).toHaveLength(64);
  });

  it('checks arguments against the schema before calling, and reads isError as an error', async () => {
    expect(await executeToolCall(weather, '{"city":"P"}', context)).toEqual({ ok: false, error: expect.stringMatching(/^Invalid arguments for srv_get_weather: .*must NOT have fewer than 2 characters/) });
    expect(calls).toEqual([]);
    expect(await executeToolCall(weather, '{"city":"Paris"}', context)).toEqual({ ok: true, result: '{"t":20}' });
    expect(await executeToolCall(weather, '{"city":"Atlantis"}', context)).toEqual({ ok: false, error: 'Tool srv_get_weather failed: No such city' });
    expect(calls).toEqual([['get.weather', { city: 'Paris' }], ['get.weather', { city: 'Atlantis' }]]);
  });

  it('describes content the model cannot read as text', () => {
    expect(
      resultText({
        content: [
          { type: 'text', text: 'Here:' },
          { type: 'image', data: 'AAAA', mimeType: 'image/png' },
          { type: 'resource_link', uri: 'file:///a.txt', name: 'a' },
          { type: 'resource', resource: { uri: 'file:///b.txt', text: 'inside b' } },
        ],
      }),
    ).toBe('Here:\n[image image/png, 3 bytes]\n[resource link file:///a.txt]\ninside b');
    expect(resultText({ content: [{ type: 'text', text: 'same' }, { type: 'image', data: 'AAAA', mimeType: 'image/gif' }], structuredContent: { a: 1 } })).toBe('{"a":1}\n[image image/gif, 3 bytes]');
  });
});
