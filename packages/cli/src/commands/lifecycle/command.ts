/**
 * `svc up`, `svc down`, `svc restart`: docker compose against the project's compose file.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { Command } from 'commander';
import { downCommand, RESTART_PAUSE_MS, runCompose, upCommand } from '../../compose/compose.js';
import { findComposeFile } from '../../compose/find.js';
import type { Context } from '../../context.js';
import type { JsonValue } from '../../util/json.js';
import { runAction } from '../action.js';
import { runWith } from '../program.js';

interface LifecycleOptions {
  file?: string;
  pull?: boolean;
  volumes?: boolean;
  dryRun?: boolean;
}

function base(name: string): Command {
  return new Command(name)
    .option('-f, --file <compose>', 'compose file (default: first of docker-compose.yml, docker-compose.yaml, compose.yml, compose.yaml in ./ then ./infra)')
    .option('--dry-run', 'print the command without running it (short form: -dr)')
    .option('--json', 'print exactly one JSON document on stdout');
}

function shape(command: string[], file: string, dryRun: boolean): { [key: string]: JsonValue } {
  return { command, compose_file: file, dry_run: dryRun };
}

async function execute(ctx: Context, command: string[], file: string): Promise<void> {
  ctx.out.warn(ctx.out.errStyle.dim(`Running: ${command.join(' ')}`));
  await runCompose(command, file, ctx.env, ctx.json);
}

export function upCommandDef(): Command {
  return base('up')
    .option('-p, --pull', 'always pull newer images (--pull always)')
    .action(async (opts: LifecycleOptions, cmd: Command) =>
      runAction(cmd, async (ctx) => {
        const file = findComposeFile(ctx.cwd, opts.file);
        const command = upCommand(file, opts.pull === true);
        const dryRun = opts.dryRun === true;
        if (!dryRun) await execute(ctx, command, file);
        ctx.out.document(shape(command, file, dryRun));
        ctx.out.line(dryRun ? `Would run: ${command.join(' ')}` : ctx.out.style.green(`Project is up (${file}).`));
        return 0;
      }),
    );
}

export function downCommandDef(): Command {
  return base('down')
    .option('-v, --volumes', 'also delete named volumes and their data (--volumes)')
    .action(async (opts: LifecycleOptions, cmd: Command) =>
      runAction(cmd, async (ctx) => {
        const file = findComposeFile(ctx.cwd, opts.file);
        const command = downCommand(file, opts.volumes === true);
        const dryRun = opts.dryRun === true;
        if (!dryRun) await execute(ctx, command, file);
        ctx.out.document(shape(command, file, dryRun));
        ctx.out.line(dryRun ? `Would run: ${command.join(' ')}` : `Project is down (${file}).`);
        return 0;
      }),
    );
}

export function restartCommandDef(): Command {
  return base('restart')
    .option('-p, --pull', 'always pull newer images when starting (--pull always)')
    .action(async (opts: LifecycleOptions, cmd: Command) =>
      runAction(cmd, async (ctx) => {
        const file = findComposeFile(ctx.cwd, opts.file);
        const down = downCommand(file, false);
        const up = upCommand(file, opts.pull === true);
        const dryRun = opts.dryRun === true;
        if (!dryRun) {
          await execute(ctx, down, file);
          // Give ports and container names a moment to be released before starting again.
          await sleep(RESTART_PAUSE_MS);
          await execute(ctx, up, file);
        }
        ctx.out.document({ down: shape(down, file, dryRun), up: shape(up, file, dryRun), compose_file: file, dry_run: dryRun });
        if (dryRun) {
          ctx.out.line(`Would run: ${down.join(' ')}`);
          ctx.out.line(`Would run: ${up.join(' ')}`);
        } else {
          ctx.out.line(ctx.out.style.green(`Project restarted (${file}).`));
        }
        return 0;
      }),
    );
}

/** This folder's commands (up, down and restart); `run` is the entry of its bundle, dist/cmd/lifecycle.mjs. */
export function commands(): Command[] {
  return [upCommandDef(), downCommandDef(), restartCommandDef()];
}

export const run = runWith(commands);
