import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { CliError } from '../errors.js';
import { Output } from './output.js';

function sink(): Writable & { text: string } {
  const s = new Writable({
    write(chunk: Buffer, _enc, cb) {
      s.text += chunk.toString();
      cb();
    },
  }) as Writable & { text: string };
  s.text = '';
  return s;
}

describe('Output', () => {
  it('in JSON mode writes only the document, and errors as {error, hint}', () => {
    const stdout = sink();
    const stderr = sink();
    const out = new Output(true, { stdout, stderr }, {});
    out.line('human');
    out.warn('note');
    out.failure(new CliError('NOT_FOUND', 'gone', { hint: 'look elsewhere' }));
    expect(JSON.parse(stdout.text)).toEqual({ error: 'gone', hint: 'look elsewhere' });
    expect(stderr.text).toBe('');
  });

  it('in human mode puts errors and hints on stderr, and omits a missing hint', () => {
    const stdout = sink();
    const stderr = sink();
    const out = new Output(false, { stdout, stderr }, {});
    out.document({ ignored: true });
    out.failure(new CliError('NOT_FOUND', 'gone'));
    expect(stdout.text).toBe('');
    expect(stderr.text).toBe('Error: gone\n');
  });
});
