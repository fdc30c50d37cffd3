import { describe, expect, it } from 'vitest';
import { isLoopbackHost } from './loopback.js';

describe('isLoopbackHost', () => {
  it.each(['localhost', 'LOCALHOST', '127.0.0.1', '127.1.2.3', '::1', '[::1]'])('accepts %s', (host) => {
    expect(isLoopbackHost(host)).toBe(true);
  });
  it.each(['whisper.localhost', 'localhost.evil.example', '128.0.0.1', '10.0.0.1', '::2', 'example.com', ''])('refuses %s', (host) => {
    expect(isLoopbackHost(host)).toBe(false);
  });
});
