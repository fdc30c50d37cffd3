/**
 * Runs the built CLI on a real pseudo-terminal (util-linux `script`), so the interactive paths
 * (prompts, confirmations) run exactly as a user sees them. Each step waits for a piece of
 * output, then types its keys: the test is driven by what the CLI prints, not by timing.
 */
import { spawn } from 'node:child_process';
import { CLI_PATH, cliEnv, type CliResult, type RunOptions } from './cli.js';

export interface Step {
  /** Text to wait for in the terminal output (escape codes removed). */
  waitFor: string;
  /** Wait until the text has appeared this many times (a prompt shown again); default 1. */
  occurrence?: number;
  /** What to type then; '\r' is Enter. */
  keys: string;
}

const quote = (s: string): string => `'${s.replaceAll("'", "'\\''")}'`;

export function stripAnsi(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/\u001b\[[0-9;?]*[A-Za-z]/g, '');
}

export interface TtyOptions extends RunOptions {
  /** Terminal width; 0 is what some terminals (in containers, under `script`) report. */
  cols?: number;
  /** Keys typed before the CLI has even started, as a fast typist or a script would. */
  typeahead?: string;
}

export function runCliTty(args: string[], steps: Step[], options: TtyOptions): Promise<CliResult> {
  // A pty starts with zero columns; give it a normal size unless the test wants otherwise.
  const command = `stty cols ${options.cols ?? 120} rows 40; exec ${[process.execPath, CLI_PATH, ...args].map(quote).join(' ')}`;
  return new Promise((resolve, reject) => {
    const child = spawn('script', ['-qfec', command, '/dev/null'], { cwd: options.cwd, env: { ...cliEnv(options), TERM: 'xterm' } });
    if (options.typeahead !== undefined) child.stdin.write(options.typeahead);
    let output = '';
    let next = 0;
    const advance = (): void => {
      const step = steps[next];
      if (step && stripAnsi(output).split(step.waitFor).length - 1 >= (step.occurrence ?? 1)) {
        next += 1;
        child.stdin.write(step.keys);
        advance();
      }
    };
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      output += chunk;
      advance();
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 20_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout: stripAnsi(output), stderr: '' });
    });
  });
}
