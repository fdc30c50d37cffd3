/**
 * `svc` (also `svcctl`): the command-line tool of the runtime. It talks to a runtime over HTTP
 * and imports nothing from the runtime package.
 */
import { Command, CommanderError } from 'commander';

declare const __SVC_VERSION__: string;
const VERSION = typeof __SVC_VERSION__ === 'string' ? __SVC_VERSION__ : '0.0.0-dev';

function program(): Command {
  const cmd = new Command('svc')
    .description('Scaffold, connect and operate agent runtimes')
    .version(VERSION, '-V, --version', 'print the version')
    .option('--json', 'print exactly one JSON document on stdout')
    .showHelpAfterError()
    .exitOverride();
  return cmd;
}

export async function main(argv: string[]): Promise<number> {
  const cmd = program();
  if (argv.length === 0) {
    process.stdout.write(cmd.helpInformation());
    return 0;
  }
  try {
    await cmd.parseAsync(argv, { from: 'user' });
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) {
      // Help and version exit 0; every parse failure is a usage error.
      return error.exitCode === 0 ? 0 : 2;
    }
    throw error;
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`error: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
