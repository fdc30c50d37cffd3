/**
 * A project name is one directory name: letters, digits, '-' and '_'. Anything else could
 * escape the current directory ('..', '/abs', 'a/b') or confuse tools downstream.
 */
import { CliError } from '../errors.js';

export const PROJECT_NAME_PATTERN = /^[A-Za-z0-9_-]+$/;
export const DEFAULT_PROJECT_NAME = 'my-runtime';

export function projectNameError(name: string): CliError | undefined {
  if (PROJECT_NAME_PATTERN.test(name)) return undefined;
  return new CliError('INVALID_NAME', `Invalid project name: ${name}`, {
    hint: "Use a single directory name of letters, digits, '-' and '_' only (no '/', '..' or absolute paths).",
  });
}
