import { describe, expect, it } from 'vitest';
import { hostAllowed } from './mcp.js';

describe('hostAllowed (DNS-rebinding guard of an open runtime)', () => {
  it.each(['localhost:7777', 'localhost', '127.0.0.1:8000', '[::1]:7777', 'LOCALHOST:1'])('accepts loopback %s', (host) => {
    expect(hostAllowed(host, [])).toBe(true);
  });
  it.each(['evil.example:7777', 'localhost.evil.example', '127.0.0.2', '', '10.0.0.1:7777'])('refuses %s', (host) => {
    expect(hostAllowed(host, [])).toBe(false);
  });
  it('refuses a missing Host', () => {
    expect(hostAllowed(undefined, [])).toBe(false);
  });
  it('accepts configured hosts and suffix wildcards', () => {
    expect(hostAllowed('runtime.internal:80', ['runtime.internal'])).toBe(true);
    expect(hostAllowed('a.corp.example', ['*.corp.example'])).toBe(true);
    expect(hostAllowed('corp.example.evil', ['*.corp.example'])).toBe(false);
  });
});
