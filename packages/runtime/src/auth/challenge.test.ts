import { describe, expect, it } from 'vitest';
import { bearerChallenge, quotable, realmFor } from './challenge.js';

describe('bearerChallenge', () => {
  it('names only the scheme and realm when no credential was sent', () => {
    expect(bearerChallenge({ realm: 'Support' })).toBe('Bearer realm="Support"');
  });

  it('adds invalid_token and the reason when a token was refused', () => {
    expect(bearerChallenge({ realm: 'Support', invalidToken: { description: 'Token has expired' } })).toBe(
      'Bearer realm="Support", error="invalid_token", error_description="Token has expired"',
    );
  });

  it('adds the protected-resource metadata last', () => {
    expect(bearerChallenge({ realm: 'r', resourceMetadata: 'https://a.example/.well-known/oauth-protected-resource/mcp' })).toBe(
      'Bearer realm="r", resource_metadata="https://a.example/.well-known/oauth-protected-resource/mcp"',
    );
  });

  it('keeps quotes, backslashes and non-ASCII out of every quoted value', () => {
    const header = bearerChallenge({ realm: 'Café "prod" \\ ops', invalidToken: { description: 'Invalid token: unexpected "exp" claim\\\n' } });
    expect(header).toBe('Bearer realm="Caf prod ops", error="invalid_token", error_description="Invalid token: unexpected exp claim"');
    // What a Headers object accepts: a ByteString with no control characters.
    expect(() => new Headers({ 'www-authenticate': header })).not.toThrow();
  });
});

describe('quotable and realmFor', () => {
  it('falls back when nothing printable is left, and caps the length', () => {
    expect(realmFor('"""')).toBe('runtime');
    expect(realmFor('日本')).toBe('runtime');
    expect(quotable('x'.repeat(500), 'f')).toHaveLength(200);
  });
});
