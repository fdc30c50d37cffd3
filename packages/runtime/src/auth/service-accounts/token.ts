/**
 * @module auth/service-accounts/token
 * Service-account tokens: `svc_pat_` + base62 of 32 random bytes (256 bits). Only the SHA-256
 * of the whole token is stored; the first 16 characters are kept for display.
 */
import { randomBytes } from 'node:crypto';
import { sha256Hex } from '../credentials.js';

export const TOKEN_PREFIX = 'svc_pat_';
export const DISPLAY_PREFIX_LENGTH = 16;
const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Big-endian base62 without padding (so a small leading value gives a shorter string). */
export function base62(bytes: Uint8Array): string {
  let n = BigInt(`0x${Buffer.from(bytes).toString('hex') || '0'}`);
  if (n === 0n) return '0';
  let out = '';
  while (n > 0n) {
    out = ALPHABET[Number(n % 62n)]! + out;
    n /= 62n;
  }
  return out;
}

export interface MintedToken {
  token: string;
  hash: string;
  prefix: string;
}

export function mintToken(): MintedToken {
  const token = TOKEN_PREFIX + base62(randomBytes(32));
  return { token, hash: sha256Hex(token), prefix: token.slice(0, DISPLAY_PREFIX_LENGTH) };
}

export function isServiceAccountToken(bearer: string): boolean {
  return bearer.startsWith(TOKEN_PREFIX);
}
