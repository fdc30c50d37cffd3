/**
 * What every command receives: the output mode, whether it may ask questions, and the process
 * facts it reads (env, cwd), gathered once so commands stay testable and side-effect free.
 */
import { Output } from './output/output.js';

export interface Context {
  out: Output;
  json: boolean;
  /** True only without --json and with a TTY on stdin: the one condition for prompting. */
  interactive: boolean;
  env: NodeJS.ProcessEnv;
  cwd: string;
}

export function makeContext(json: boolean): Context {
  const out = new Output(json, { stdout: process.stdout, stderr: process.stderr }, process.env);
  return {
    out,
    json,
    interactive: !json && process.stdin.isTTY === true,
    env: process.env,
    cwd: process.cwd(),
  };
}
