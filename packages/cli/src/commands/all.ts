/**
 * The bundle of every command (dist/cmd/all.mjs), for command lines that name no command or an
 * unknown one: commander needs the whole program to say what is wrong. Its commands are the
 * catalog's, so a command is part of it as soon as it is in the catalog.
 */
import type { Command } from 'commander';
import { CATALOG } from './catalog.js';
import { program, runProgram, type CommandModule, type Summary } from './program.js';

// Each folder once (lifecycle carries up, down and restart). In this bundle `load` is no file
// load: the build puts every folder into this one file.
const modules: CommandModule[] = [...new Set(await Promise.all(CATALOG.map((c) => c.load())))];

const order = (cmd: Command): number => CATALOG.findIndex((c) => c.name === cmd.name());

/** Every command, in catalog order: the order the root help lists them in. */
function commands(): Command[] {
  return modules.flatMap((m) => m.commands()).sort((a, b) => order(a) - order(b));
}

/** The full program, as commander sees it (tests compare the root help with it). */
export function fullProgram(): Command {
  return program(commands(), CATALOG);
}

export function run(argv: readonly string[], catalog: readonly Summary[]): Promise<number> {
  return runProgram(argv, commands(), catalog);
}
