import { describe, expect, it } from 'vitest';
import { deriveServerName } from './server-name.js';

describe('deriveServerName', () => {
  it.each([
    ['AgentOS', 'agentos'],
    ['Customer Support', 'customer-support'],
    ['acme.prod v2', 'acme-prod-v2'],
    ['  weird -- name  ', 'weird-name'],
    ['!!!', 'agentos'],
    ['', 'agentos'],
    [null, 'agentos'],
    ['snake_case Name', 'snake_case-name'],
  ])('%j -> %s', (input, expected) => expect(deriveServerName(input)).toBe(expected));
});
