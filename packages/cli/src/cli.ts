/**
 * The command line proper: commander, the root options, and the commands a bundle carries.
 * Each command's bundle (src/entries/) calls runProgram with that command alone; the bundle of
 * every command serves only command lines that name none or an unknown one, so commander can
 * say what is wrong.
 */
import { Command, CommanderError } from 'commander';
import { PROGRAM_DESCRIPTION } from './commands/catalog.js';
import { outcome } from './commands/shared.js';
import { EXIT_USAGE } from './errors.js';
import { CLI_VERSION } from './version.js';

function applyErrorHandling(cmd: Command, parentPath = 'svc'): void {
  const path = `${parentPath} ${cmd.name()}`;
  // Every usage error ends with what to do next, not a full help page.
  cmd.exitOverride().showHelpAfterError(`Try '${path} --help' for help.`);
  for (const sub of cmd.commands) applyErrorHandling(sub, path);
}

/** The root program with the given commands. */
export function program(commands: readonly Command[]): Command {
  const cmd = new Command('svc')
    .description(PROGRAM_DESCRIPTION)
    .version(`svcctl ${CLI_VERSION}`, '-V, --version', 'print the version')
    .option('--json', 'print exactly one JSON document on stdout')
    .helpCommand(false)
    .showHelpAfterError("Try 'svc --help' for help.")
    .exitOverride();
  for (const sub of commands) cmd.addCommand(sub);
  // Subcommands inherit the error handling: commander only copies settings at creation time.
  for (const sub of cmd.commands) applyErrorHandling(sub);
  return cmd;
}

/**
 * `-dr` is the documented short form of --dry-run, but commander only takes one-letter short
 * flags, so it is rewritten before parsing (never after a `--`).
 */
export function normalizeArgv(argv: readonly string[]): string[] {
  const end = argv.indexOf('--');
  return argv.map((arg, i) => (arg === '-dr' && (end < 0 || i < end) ? '--dry-run' : arg));
}

export async function runProgram(argv: readonly string[], commands: readonly Command[]): Promise<number> {
  const cmd = program(commands);
  try {
    await cmd.parseAsync(normalizeArgv(argv), { from: 'user' });
    return outcome.exitCode;
  } catch (error) {
    if (error instanceof CommanderError) {
      // Help and version exit 0; every parse failure is a usage error.
      return error.exitCode === 0 ? 0 : EXIT_USAGE;
    }
    throw error;
  }
}
