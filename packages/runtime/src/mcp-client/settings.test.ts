import { describe, expect, it } from 'vitest';
import { ConfigurationError } from '../errors.js';
import { McpServerSource } from './mcp-server.js';
import { DEFAULT_MAX_MEDIA_BYTES, maxMediaBytesSetting } from './settings.js';

describe('the media size setting', () => {
  it('reads MCP_CLIENT_MAX_MEDIA_BYTES, 3,750,000 when unset', () => {
    expect(maxMediaBytesSetting({})).toBe(DEFAULT_MAX_MEDIA_BYTES);
    expect(DEFAULT_MAX_MEDIA_BYTES).toBe(3_750_000);
    expect(maxMediaBytesSetting({ MCP_CLIENT_MAX_MEDIA_BYTES: ' 1000 ' })).toBe(1000);
    expect(maxMediaBytesSetting({ MCP_CLIENT_MAX_MEDIA_BYTES: '0' })).toBe(0);
  });

  it('refuses a value that is not a whole number of bytes when the runtime attaches its servers', () => {
    for (const bad of ['-1', '1.5', '5MB', '1e9']) {
      expect(() => maxMediaBytesSetting({ MCP_CLIENT_MAX_MEDIA_BYTES: bad })).toThrow(ConfigurationError);
    }
    const source = new McpServerSource({ id: 'srv', command: 'true' });
    expect(() => source.attach({ env: { MCP_CLIENT_MAX_MEDIA_BYTES: 'lots' } })).toThrow('MCP_CLIENT_MAX_MEDIA_BYTES: "lots" is not a whole number of bytes (0 sends no media)');
    expect(() => new McpServerSource({ id: 'srv', command: 'true', maxMediaBytes: -5 })).toThrow('MCP server "srv": maxMediaBytes must be a whole number of bytes (0 sends no media)');
  });
});
