import { describe, expect, it } from 'vitest';
import { matchesTargets, parseClients } from './select.js';

describe('parseClients', () => {
  it('maps aliases, keeps first-mention order and drops duplicates', () => {
    const s = parseClients(' Terminal, codex ,chat,terminal-agent,,cursor');
    expect(s.adapters.map((a) => a.id)).toEqual(['terminal-agent', 'cli-agent', 'editor']);
    expect(s.chatApps).toEqual(['chat-app-b']);
  });

  it('rejects an unknown client with the list of accepted names', () => {
    expect(() => parseClients('terminal,vim')).toThrow('Unknown client: vim');
    expect(() => parseClients('vim')).toThrow(expect.objectContaining({ hint: expect.stringContaining('chat, chat-alt, chat-app-a, chat-app-b') }));
  });

  it('is not explicit without --clients', () => {
    expect(parseClients(undefined).explicit).toBe(false);
  });
});

describe('matchesTargets', () => {
  it.each([
    ['https://os.example.com/customer-a/mcp', 'https://os.example.com/customer-a', true],
    ['https://os.example.com/customer-b/mcp', 'https://os.example.com/customer-a', false],
    ['https://os.example.com/customer-abc/mcp', 'https://os.example.com/customer-a', false],
    ['http://localhost:7777/mcp', 'http://localhost:7777', true],
    ['http://LOCALHOST:7777/custom/mcp', 'http://localhost:7777', true],
    ['http://localhost:7778/mcp', 'http://localhost:7777', false],
    ['https://localhost:7777/mcp', 'http://localhost:7777', false],
    ['not-a-url', 'http://localhost:7777', false],
    // One machine, several spellings: loopback names match each other (same port only).
    ['http://127.0.0.1:7777/mcp', 'http://localhost:7777', true],
    ['http://[::1]:7777/mcp', 'http://127.0.0.1:7777', true],
    ['http://127.0.0.1:7778/mcp', 'http://localhost:7777', false],
    ['http://10.0.0.1:7777/mcp', 'http://localhost:7777', false],
    ['https://os.example.com:443/mcp', 'https://os.example.com', true],
  ])('%s vs %s -> %s', (entry, target, expected) => {
    expect(matchesTargets(entry, [target])).toBe(expected);
  });
});
