/**
 * Pieces every command shares: option parsers that turn bad values into usage errors (exit 2),
 * and the runner that maps a command's outcome to an exit code and one output document.
 */
import { InvalidArgumentError, type Command } from 'commander';
import { SERVER_NAME_PATTERN } from '../clients/server-name.js';
import { makeContext, type Context } from '../context.js';
import { CliError, EXIT_ERROR } from '../errors.js';

export type Action = (ctx: Context) => Promise<number>;

/** Where the runner leaves the exit code of the command that ran. */
export const outcome = { exitCode: 0 };

export async function run(cmd: Command, action: Action): Promise<void> {
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
