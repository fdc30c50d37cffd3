import { describe, expect, it } from 'vitest';
import { CliError } from '../errors.js';
import { assertAccountName, isValidAccountName } from './name.js';

describe('service-account names', () => {
  it.each(['a', 'ci', 'terminal-agent', 'build_bot-2', '0day', 'a'.repeat(63)])('%j is valid', (name) =>
    expect(isValidAccountName(name)).toBe(true),
  );

  it.each(['', 'A', 'Ci', '-ci', '_ci', 'a.b', 'a b', 'a:b', 'sa@x', 'a'.repeat(64), 'ci\n'])('%j is invalid', (name) =>
    expect(isValidAccountName(name)).toBe(false),
  );

  it('fails with a hint naming the rule', () => {
    expect(() => assertAccountName('Bad')).toThrow(CliError);
    expect(() => assertAccountName('Bad')).toThrow(expect.objectContaining({ code: 'INVALID_NAME', hint: expect.stringContaining('lowercase slug') }));
  });
});
