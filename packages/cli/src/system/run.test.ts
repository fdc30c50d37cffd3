import { describe, expect, it } from 'vitest';
import { runCommand } from './run.js';

describe('runCommand', () => {
  it('captures output and the exit code without a shell', async () => {
    const r = await runCommand(process.execPath, ['-e', 'process.stdout.write("out $HOME"); process.stderr.write("err"); process.exit(3)'], {
      timeoutMs: 20_000,
      capture: true,
    });
    expect(r).toEqual({ code: 3, signal: null, timedOut: false, stdout: 'out $HOME', stderr: 'err' });
  });

  it('kills a child that outlives its timeout and says so', async () => {
    const r = await runCommand(process.execPath, ['-e', 'setTimeout(() => {}, 60_000)'], { timeoutMs: 100, capture: true });
    expect(r.timedOut).toBe(true);
    expect(r.code).toBeNull();
    expect(r.signal).toBe('SIGTERM');
  });
});
