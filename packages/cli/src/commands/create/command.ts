/**
 * `svc create [name]`: a new project directory from a starter template.
 */
import { existsSync, rmSync } from 'node:fs';
import { resolve } from 'node:path';
import { Command } from 'commander';
import type { Context } from '../../context.js';
import { CliError } from '../../errors.js';
import { cloneTemplate } from '../../create/clone.js';
import { DEFAULT_PROJECT_NAME, projectNameError } from '../../create/project-name.js';
import { seedEnvFile } from '../../create/seed-env.js';
import { DEFAULT_TEMPLATE, isTemplateName, TEMPLATES, templateRepoUrl, type TemplateName } from '../../create/templates.js';
import { startProgress } from '../../output/spinner.js';
import { askSelect, askText } from '../../output/prompt.js';
import { runAction } from '../action.js';
import { invalidValue } from '../options.js';
import { runWith } from '../program.js';

function templateOption(value: string): TemplateName {
  if (!isTemplateName(value)) {
    throw invalidValue(`Unknown template: ${value}`, `Available templates: ${TEMPLATES.join(', ')}, or pass --url for a custom repo.`);
  }
  return value;
}

function repoOption(value: string): string {
  // A password in the URL would end up on git's command line, visible to every local user.
  let parsed: URL | undefined;
  try {
    parsed = new URL(value);
  } catch {
    parsed = undefined;
  }
  if (parsed?.password) {
    throw invalidValue('Refusing a template URL with an embedded credential.', 'Use a git credential helper or SSH key instead of user:password@ in the URL.');
  }
  if (value.trim() === '' || value.startsWith('-')) throw invalidValue(`Invalid template URL: ${value}`, 'Pass a git repository URL or path.');
  return value;
}

interface CreateOptions {
  template?: TemplateName;
  url?: string;
}

async function askForMissing(ctx: Context, opts: CreateOptions): Promise<{ name: string; template: TemplateName | undefined }> {
  ctx.out.line();
  ctx.out.line(ctx.out.style.bold('Create a runtime project'));
  ctx.out.line();
  let template = opts.template;
  if (!template && !opts.url) {
    template = await askSelect(
      'Choose a template',
      TEMPLATES.map((t) => ({ value: t, label: t, ...(t === DEFAULT_TEMPLATE ? { hint: 'default' } : {}) })),
      DEFAULT_TEMPLATE,
    );
  }
  for (;;) {
    const name = (await askText('Project name', DEFAULT_PROJECT_NAME)).trim() || DEFAULT_PROJECT_NAME;
    const error = projectNameError(name);
    if (error) {
      ctx.out.warn(`${error.message}. ${error.hint ?? ''}`);
      continue;
    }
    const dir = resolve(ctx.cwd, name);
    if (existsSync(dir)) {
      ctx.out.warn(`The directory ${dir} already exists. Choose another name.`);
      continue;
    }
    return { name, template };
  }
}

export function createCommand(): Command {
  return new Command('create')
    .argument('[name]', `project directory to create (prompted for when omitted; default: ${DEFAULT_PROJECT_NAME})`)
    .option('-t, --template <starter>', `starter template: ${TEMPLATES.join(', ')} (when omitted: ${DEFAULT_TEMPLATE})`, templateOption)
    .option('-u, --url <repo>', 'custom template repository URL, used instead of --template', repoOption)
    .option('--json', 'print exactly one JSON document on stdout')
    .action(async (nameArg: string | undefined, opts: CreateOptions, cmd: Command) =>
      runAction(cmd, async (ctx) => {
        let name = nameArg;
        let template = opts.template;
        if (name === undefined) {
          if (!ctx.interactive) {
            throw new CliError('NAME_REQUIRED', 'A project name is required in non-interactive mode.', {
              hint: `Pass a name, for example: svc create ${DEFAULT_PROJECT_NAME}`,
            });
          }
          ({ name, template } = await askForMissing(ctx, opts));
        }
        const nameError = projectNameError(name);
        if (nameError) throw nameError;
        const target = resolve(ctx.cwd, name);
        if (existsSync(target)) {
          throw new CliError('DIRECTORY_EXISTS', `The directory ${target} already exists.`, { hint: 'Pick a different name or remove the existing directory.' });
        }
        const chosen = template ?? DEFAULT_TEMPLATE;
        const repo = opts.url ?? templateRepoUrl(chosen, ctx.env);
        const label = opts.url ?? chosen;
        const progress = startProgress(ctx.out, `Cloning ${label}`);
        try {
          await cloneTemplate(repo, target, ctx.env);
        } finally {
          progress.stop();
        }
        let hasEnv: boolean;
        try {
          hasEnv = seedEnvFile(target);
        } catch (error) {
          // Leave nothing half-made behind, so re-running the same command works.
          try {
            rmSync(target, { recursive: true, force: true });
          } catch {
            if (error instanceof CliError) throw new CliError(error.code, error.message, { hint: `Remove the leftover directory ${target}, then re-run.` });
          }
          throw error;
        }
        if (ctx.json) {
          ctx.out.document({ path: target, template: label });
          return 0;
        }
        ctx.out.line();
        ctx.out.line(ctx.out.style.green(`Created ${name} from ${label}.`));
        ctx.out.line();
        ctx.out.line(
          hasEnv
            ? `Add your secrets to ${name}/.env, then cd into ${name} and run svc up.`
            : `No example.env found. Follow the template setup instructions, then cd into ${name} and run svc up.`,
        );
        return 0;
      }),
    );
}

/** This folder's commands (create); `run` is the entry of its bundle, dist/cmd/create.mjs. */
export function commands(): Command[] {
  return [createCommand()];
}

export const run = runWith(commands);
