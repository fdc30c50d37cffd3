/**
 * The bundle of every command (dist/cmd/all.mjs), for command lines that name no command or an
 * unknown one: commander needs the whole program to say what is wrong.
 */
import type { Command } from 'commander';
import { program, runProgram } from '../cli.js';
import { connectCommand } from '../commands/connect.js';
import { createCommand } from '../commands/create.js';
import { disconnectCommand } from '../commands/disconnect.js';
import { downCommandDef, restartCommandDef, upCommandDef } from '../commands/lifecycle.js';
import { statusCommand } from '../commands/status.js';
import { tokensCommand } from '../commands/tokens.js';
import { knowledgeCommand } from '../commands/knowledge.js';

function commands(): Command[] {
  return [createCommand(), connectCommand(), disconnectCommand(), upCommandDef(), downCommandDef(), restartCommandDef(), statusCommand(), tokensCommand(), knowledgeCommand()];
}

/** The full program, as commander sees it (tests compare the root help with it). */
export function fullProgram(): Command {
  return program(commands());
}

export function run(argv: readonly string[]): Promise<number> {
  return runProgram(argv, commands());
}
