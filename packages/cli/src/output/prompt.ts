/**
 * Interactive questions. Only ever called on an interactive run (TTY stdin, no --json); callers
 * decide what a non-interactive run does instead. @clack/prompts is imported lazily so runs
 * that never ask a question do not pay for loading it.
 */
import { CliError } from '../errors.js';

async function clack(): Promise<typeof import('@clack/prompts')> {
  return import('@clack/prompts');
}

function aborted(): CliError {
  return new CliError('ABORTED', 'Aborted.', { hint: 'Re-run the command when you are ready.' });
}

export async function askConfirm(message: string, initialValue: boolean): Promise<boolean> {
  const p = await clack();
  const answer = await p.confirm({ message, initialValue });
  if (p.isCancel(answer)) throw aborted();
  return answer;
}

export async function askSecret(message: string): Promise<string> {
  const p = await clack();
  const answer = await p.password({ message });
  if (p.isCancel(answer)) throw aborted();
  return answer;
}

export async function askText(message: string, defaultValue: string): Promise<string> {
  const p = await clack();
  const answer = await p.text({ message, placeholder: defaultValue, defaultValue });
  if (p.isCancel(answer)) throw aborted();
  return answer;
}

export async function askSelect<T extends string>(
  message: string,
  options: { value: T; label: string; hint?: string }[],
  initialValue: T,
): Promise<T> {
  const p = await clack();
  const answer = await p.select<T>({ message, options: options as Parameters<typeof p.select<T>>[0]['options'], initialValue });
  if (p.isCancel(answer)) throw aborted();
  return answer;
}
