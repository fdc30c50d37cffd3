import { describe, expect, it } from 'vitest';
import { executeToolCall, toToolSpec } from '../tools/function-tool.js';
import { modelToolName, resultContent, resultText, toFunctionTool, unavailableTool } from './mcp-tool.js';

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
      maxMediaBytes: 1000,
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
    ).toBe('Here:\n[resource link file:///a.txt]\ninside b\n[image image/png, 3 bytes]');
    expect(resultText({ content: [{ type: 'text', text: 'same' }, { type: 'image', data: 'AAAA', mimeType: 'image/gif' }], structuredContent: { a: 1 } })).toBe('{"a":1}\n[image image/gif, 3 bytes]');
  });

  it('hands images and sounds over as media within the size limit, and describes those past it', () => {
    const png = Buffer.alloc(600, 1).toString('base64');
    const wav = Buffer.alloc(300, 2).toString('base64');
    const blob = Buffer.alloc(100, 3).toString('base64');
    const result = {
      content: [
        { type: 'text' as const, text: 'Chart:' },
        { type: 'image' as const, data: png, mimeType: 'image/png' },
        { type: 'audio' as const, data: wav, mimeType: 'audio/wav' },
        { type: 'image' as const, data: png, mimeType: 'image/jpeg' },
        { type: 'resource' as const, resource: { uri: 'file:///c.gif', mimeType: 'image/gif', blob } },
      ],
    };
    expect(resultContent(result, 1000)).toEqual({
      text: 'Chart:\n[image image/jpeg, 600 bytes]: not shown, past the limit of 1000 bytes of media a tool result may carry',
      media: [
        { type: 'image', mimeType: 'image/png', data: png },
        { type: 'audio', mimeType: 'audio/wav', data: wav },
        { type: 'image', mimeType: 'image/gif', data: blob },
      ],
    });
    expect(resultContent(result, 0).media).toEqual([]);
  });

  it('stands for a server that cannot list its tools with one tool saying why, whose call fails with that', async () => {
    const standIn = unavailableTool('fs_', 'files', 'MCP server "files" failed: connect ECONNREFUSED');
    expect(toToolSpec(standIn)).toEqual({
      name: 'fs_files_unavailable',
      description: 'The tools of the MCP server "files" are unavailable for now: MCP server "files" failed: connect ECONNREFUSED. Calling this reports the failure; tell the user if you needed them.',
      parameters: { type: 'object', properties: {} },
    });
    expect(await executeToolCall(standIn, '{}', context)).toEqual({ ok: false, error: 'Tool fs_files_unavailable failed: MCP server "files" failed: connect ECONNREFUSED' });
  });
});
