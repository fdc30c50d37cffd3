/**
 * `svc` (also `svcctl`): the command-line tool of the runtime. It talks to a runtime over HTTP
 * and imports nothing from the runtime package.
 *
 * The entry point is kept tiny, because cold start is a product feature: `--version`, `--help`
 * and the bare catalog are answered from here without loading commander or any command, and a
 * command loads only its own bundle (dist/cmd/<folder>.mjs: that command folder, commander and
 * what the command uses, in one file, since every further file costs the module loader time).
 *
 * Exit codes: 0 success, 1 command error, 2 usage error (stderr only, never JSON), 3 partial.
 */
import { CATALOG, rootHelp } from './commands/catalog.js';
import { CLI_VERSION } from './version.js';

/**
 * Writes straight to fd 1, for `--version`. process.stdout would build a stream, loading
 * node:stream (and node:tty or node:net on a terminal or a pipe) to print one line; so would an
 * ES import of node:fs, whose ES facade reads fs's stream getters. process.getBuiltinModule
 * (Node 20.16+) hands over the fs module Node loaded at startup, and nothing else. A
 * non-blocking stdout that is full right now (EAGAIN) gets the stream after all.
 */
function print(text: string): void {
  const { writeSync } = process.getBuiltinModule('node:fs');
  try {
    writeSync(1, text);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') throw error;
    process.stdout.write(text);
  }
}

/** The command named on the command line: the first word after the root options. */
function commandName(argv: readonly string[]): string | undefined {
  for (const arg of argv) {
    if (arg === '--') return undefined;
    if (arg === '--json' || arg === '-h' || arg === '--help') continue;
    return arg.startsWith('-') ? undefined : arg;
  }
  return undefined;
}

async function main(argv: string[]): Promise<number> {
  if (argv[0] === '--version' || argv[0] === '-V') {
    print(`svcctl ${CLI_VERSION}\n`);
    return 0;
  }
  const name = commandName(argv);
  if (argv.length === 0) {
    (await import('./commands/home/command.js')).showHome(CLI_VERSION);
    return 0;
  }
  const end = argv.indexOf('--');
  const before = end < 0 ? argv : argv.slice(0, end);
  if (name === undefined && before.every((a) => a === '--json' || a === '-h' || a === '--help') && before.some((a) => a !== '--json')) {
    // Commander's width rule: the terminal's columns on a TTY, else 80.
    process.stdout.write(rootHelp(process.stdout.isTTY ? process.stdout.columns : 80));
    return 0;
  }
  const entry = name === undefined ? undefined : CATALOG.find((c) => c.name === name);
  // The build makes either import the load of one bundle (dist/cmd/<folder>.mjs or all.mjs).
  const command = await (entry ? entry.load() : import('./commands/all.js'));
  return command.run(argv, CATALOG);
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
