/**
 * Option parsers the commands share: a bad value becomes commander's usage error (exit 2, stderr
 * only, with the hint), never a command error.
 */
import { InvalidArgumentError } from 'commander';
import { SERVER_NAME_PATTERN } from '../clients/server-name.js';

/** Commander shows this message (plus the hint) on stderr and exits 2. */
export function invalidValue(message: string, hint: string): InvalidArgumentError {
  return new InvalidArgumentError(`${message}\n${hint}`);
}

export function parseUrlOption(value: string): string {
  let parsed: URL | undefined;
  try {
    parsed = new URL(value);
  } catch {
    parsed = undefined;
  }
  if (!parsed || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')) {
    throw invalidValue(`Invalid runtime URL: ${value}`, 'Pass an http:// or https:// URL, for example --url http://localhost:7777.');
  }
  return value;
}

export function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

export function parseServerName(value: string): string {
  if (!SERVER_NAME_PATTERN.test(value)) throw invalidValue(`Invalid --server-name: ${value}`, "Use letters, digits, '-' and '_' only.");
  return value;
}
