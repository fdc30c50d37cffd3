import { describe, expect, it } from 'vitest';
import { ConfigurationError } from '../errors.js';
import { resolveAuthMode } from './auth-mode.js';

describe('resolveAuthMode', () => {
  it('is none when nothing is configured', () => {
    expect(resolveAuthMode({ env: {} })).toBe('none');
  });
  it('is security_key when only OS_SECURITY_KEY is set', () => {
    expect(resolveAuthMode({ env: { OS_SECURITY_KEY: 'k' } })).toBe('security_key');
  });
  it('prefers jwt over the security key', () => {
    expect(resolveAuthMode({ env: { OS_SECURITY_KEY: 'k', JWT_VERIFICATION_KEY: 'secret' } })).toBe('jwt');
  });
  it.each([
    [{ verificationKeys: ['pem'] }],
    [{ jwksFile: '/tmp/jwks.json' }],
    [{ env: { JWT_JWKS_FILE: '/tmp/jwks.json' } }],
    [{ authorization: true, verificationKeys: ['k'] }],
    [{ env: { AUTHORIZATION_ENABLED: 'true', JWT_VERIFICATION_KEY: 'k' } }],
  ])('is jwt for %j', (inputs) => {
    expect(resolveAuthMode({ env: {}, ...inputs })).toBe('jwt');
  });
  it('refuses authorization without a key source and names the settings', () => {
    expect(() => resolveAuthMode({ authorization: true, env: {} })).toThrow(ConfigurationError);
    expect(() => resolveAuthMode({ env: { AUTHORIZATION_ENABLED: '1' } })).toThrow(/JWT_VERIFICATION_KEY.*JWT_JWKS_FILE/);
  });
  it('ignores blank values', () => {
    expect(resolveAuthMode({ verificationKeys: [' '], env: { OS_SECURITY_KEY: '  ' } })).toBe('none');
  });
});
