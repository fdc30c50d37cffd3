import { describe, expect, it } from 'vitest';
import { dedupKey, isLoopbackUrl, sameEndpoint } from './loopback.js';

describe('loopback', () => {
  it.each(['http://localhost:7777', 'http://LOCALHOST', 'http://127.0.0.1:7777', 'http://127.0.0.5:8000', 'http://0.0.0.0:7777', 'http://[::1]:7777', 'http://[0:0:0:0:0:0:0:1]/'])(
    '%s is loopback',
    (url) => expect(isLoopbackUrl(url)).toBe(true),
  );

  it.each(['http://os.example.com/mcp', 'http://10.0.0.5:7777', 'http://192.168.1.10:8000', 'http://localhost.localdomain', 'http://foo.localhost', 'not a url'])(
    '%s is not loopback',
    (url) => expect(isLoopbackUrl(url)).toBe(false),
  );

  it('collapses loopback aliases but keeps implicit and explicit ports apart', () => {
    expect(dedupKey('http://127.0.0.1:7777')).toBe(dedupKey('http://localhost:7777'));
    expect(dedupKey('http://localhost')).not.toBe(dedupKey('http://localhost:8080'));
    expect(dedupKey('https://localhost:7777')).not.toBe(dedupKey('http://localhost:7777'));
    expect(dedupKey('::bad')).toBe('::bad');
  });

  it('one MCP endpoint under every spelling, but not another port or path', () => {
    expect(sameEndpoint('http://localhost:7777/mcp/', 'http://127.0.0.1:7777/mcp')).toBe(true);
    expect(sameEndpoint('http://localhost:7777/mcp', 'http://localhost:7778/mcp')).toBe(false);
    expect(sameEndpoint('http://localhost:7777/mcp', 'http://localhost:7777/other/mcp')).toBe(false);
    expect(sameEndpoint('https://RT.example/mcp', 'https://rt.example/mcp')).toBe(true);
  });
});
