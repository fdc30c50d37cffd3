import { describe, expect, it } from 'vitest';
import { CliError } from '../errors.js';
import { assertAccountName, currentUser, isValidAccountName, perUserAccountName } from './name.js';

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

describe('perUserAccountName', () => {
  it('adds a slug of the user and the short host name, valid and at most 63 characters', () => {
    expect(perUserAccountName('terminal-agent', 'Ann.Lee', 'Ann-MacBook.local')).toBe('terminal-agent-ann-lee-ann-macbook');
    expect(perUserAccountName('editor', '', '')).toBe('editor-user');
    const long = perUserAccountName('terminal-agent', 'x'.repeat(40), 'host-with-a-long-name-here');
    expect(long.length).toBeLessThanOrEqual(63);
    expect(isValidAccountName(long)).toBe(true);
    expect(perUserAccountName('terminal-agent', 'a'.repeat(47), 'h')).toBe(`terminal-agent-${'a'.repeat(47)}`);
    expect(currentUser({ USER: ' bob ' }, () => 'root')).toBe('bob');
    expect(currentUser({ LOGNAME: 'carol' }, () => 'root')).toBe('carol');
    expect(currentUser({}, () => 'root')).toBe('root');
  });
});
