import { describe, expect, it } from 'vitest';
import { baseUrlOfEntry } from './discover-all.js';

describe('baseUrlOfEntry', () => {
  it.each([
    ['https://host/mcp', 'https://host'],
    ['https://host:8443/team1/mcp', 'https://host:8443/team1'],
    ['http://host/mcp/', 'http://host'],
    ['http://host/mcp?x=1#f', 'http://host'],
    ['https://host/other', undefined],
    ['not-a-url', undefined],
    ['ftp://host/mcp', undefined],
  ])('%s -> %s', (url, base) => {
    expect(baseUrlOfEntry(url)).toBe(base);
  });
});
