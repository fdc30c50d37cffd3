/**
 * The runner of every command's action: it gives the action its context and maps the outcome
 * to an exit code and, under --json, one output document, also when the action throws.
 */
import type { Command } from 'commander';
import { makeContext, type Context } from '../context.js';
import { CliError, EXIT_ERROR } from '../errors.js';

export type Action = (ctx: Context) => Promise<number>;

/** Where the runner leaves the exit code of the command that ran. */
export const outcome = { exitCode: 0 };

export async function runAction(cmd: Command, action: Action): Promise<void> {
  const json = cmd.optsWithGlobals<{ json?: boolean }>().json === true;
  const ctx = makeContext(json);
  try {
    outcome.exitCode = await action(ctx);
  } catch (error) {
    // Even a bug must not break the one-document promise of --json.
    const failure =
      error instanceof CliError
        ? error
        : new CliError('INTERNAL', `Unexpected error: ${error instanceof Error ? error.message : String(error)}`, {
            hint: 'This is a bug in svc; please report it with the command you ran.',
          });
    ctx.out.failure(failure);
    outcome.exitCode = EXIT_ERROR;
  }
}
