/**
 * `svc` (also `svcctl`): the command-line tool of the runtime. It talks to a runtime over HTTP
 * and imports nothing from the runtime package.
 *
 * Exit codes: 0 success, 1 command error, 2 usage error (stderr only, never JSON).
 */
import { Command, CommanderError } from 'commander';
import { connectCommand } from './commands/connect.js';
import { createCommand } from './commands/create.js';
import { disconnectCommand } from './commands/disconnect.js';
import { downCommandDef, restartCommandDef, upCommandDef } from './commands/lifecycle.js';
import { statusCommand } from './commands/status.js';
import { tokensCommand } from './commands/tokens.js';
import { homeScreen } from './commands/home.js';
import { outcome } from './commands/shared.js';
import { EXIT_USAGE } from './errors.js';
import { CLI_VERSION } from './http/request.js';
import { colourEnabled, makeStyle } from './output/style.js';

function program(): Command {
  const cmd = new Command('svc')
    .description('The command-line tool of the runtime: scaffold projects, connect MCP clients, operate deployments, manage tokens')
    .version(`svcctl ${CLI_VERSION}`, '-V, --version', 'print the version')
    .option('--json', 'print exactly one JSON document on stdout')
    .helpCommand(false)
    .showHelpAfterError("Try 'svc --help' for help.")
    .exitOverride();
  cmd.addCommand(createCommand());
  cmd.addCommand(connectCommand());
  cmd.addCommand(disconnectCommand());
  cmd.addCommand(upCommandDef());
  cmd.addCommand(downCommandDef());
  cmd.addCommand(restartCommandDef());
  cmd.addCommand(statusCommand());
  cmd.addCommand(tokensCommand());
  // Subcommands inherit the error handling: commander only copies settings at creation time.
  for (const sub of cmd.commands) applyErrorHandling(sub);
  return cmd;
}

function applyErrorHandling(cmd: Command, parentPath = 'svc'): void {
  const path = `${parentPath} ${cmd.name()}`;
  // Every usage error ends with what to do next, not a full help page.
  cmd.exitOverride().showHelpAfterError(`Try '${path} --help' for help.`);
  for (const sub of cmd.commands) applyErrorHandling(sub, path);
}

/**
 * `-dr` is the documented short form of --dry-run, but commander only takes one-letter short
 * flags, so it is rewritten before parsing (never after a `--`).
 */
export function normalizeArgv(argv: readonly string[]): string[] {
  const end = argv.indexOf('--');
  return argv.map((arg, i) => (arg === '-dr' && (end < 0 || i < end) ? '--dry-run' : arg));
}

export async function main(argv: string[]): Promise<number> {
  const cmd = program();
  if (argv.length === 0) {
    process.stdout.write(homeScreen(CLI_VERSION, makeStyle(colourEnabled(process.stdout, process.env))));
    return 0;
  }
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

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`error: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
