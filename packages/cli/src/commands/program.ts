/**
 * The command line proper: commander, the root options, and the commands a bundle carries.
 * Each command folder's bundle runs its command line with that folder's commands alone (its
 * `run`); the bundle of every command (all.ts) serves only command lines that name none or an
 * unknown one, so commander can say what is wrong.
 */
import { Command, CommanderError } from 'commander';
import { EXIT_USAGE } from '../errors.js';
import { CLI_VERSION } from '../version.js';
import { outcome } from './action.js';
import { PROGRAM_DESCRIPTION } from './root.js';

/** A command's one-line summary, as the catalog holds it. */
export interface Summary {
  name: string;
  summary: string;
}

/** What a command folder's command.ts exports; the catalog's `load` checks each against it. */
export interface CommandModule {
  /** The folder's commander commands (lifecycle has three), without their descriptions. */
  commands(): Command[];
  /** Its bundle's entry: runs a command line with the folder's commands alone. */
  run(argv: readonly string[], catalog: readonly Summary[]): Promise<number>;
}

function applyErrorHandling(cmd: Command, parentPath = 'svc'): void {
  const path = `${parentPath} ${cmd.name()}`;
  // Every usage error ends with what to do next, not a full help page.
  cmd.exitOverride().showHelpAfterError(`Try '${path} --help' for help.`);
  for (const sub of cmd.commands) applyErrorHandling(sub, path);
}

/** The root program with the given commands, described by their catalog summaries. */
export function program(commands: readonly Command[], catalog: readonly Summary[]): Command {
  const cmd = new Command('svc')
    .description(PROGRAM_DESCRIPTION)
    .version(`svcctl ${CLI_VERSION}`, '-V, --version', 'print the version')
    .option('--json', 'print exactly one JSON document on stdout')
    .helpCommand(false)
    .showHelpAfterError("Try 'svc --help' for help.")
    .exitOverride();
  // The summaries live in the catalog alone, so a command's help and the root help cannot differ.
  for (const sub of commands) cmd.addCommand(sub.description(catalog.find((c) => c.name === sub.name())?.summary ?? ''));
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

/** A command folder's `run`: the command line, run with the folder's commands alone. */
export function runWith(commands: () => Command[]): CommandModule['run'] {
  return (argv, catalog) => runProgram(argv, commands(), catalog);
}

export async function runProgram(argv: readonly string[], commands: readonly Command[], catalog: readonly Summary[]): Promise<number> {
  const cmd = program(commands, catalog);
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
