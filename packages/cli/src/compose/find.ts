/**
 * Which compose file a project uses: --file when given, else the first of the four standard
 * names in ./ and then ./infra (templates keep deployment files in infra/).
 */
import { statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { CliError } from '../errors.js';

export const COMPOSE_FILE_NAMES = ['docker-compose.yml', 'docker-compose.yaml', 'compose.yml', 'compose.yaml'] as const;

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

export function findComposeFile(cwd: string, file: string | undefined): string {
  if (file !== undefined) {
    const path = resolve(cwd, file);
    if (!isFile(path)) throw new CliError('COMPOSE_FILE_MISSING', `Compose file not found: ${path}`, { hint: 'Check the path given to --file.' });
    return path;
  }
  for (const dir of [cwd, join(cwd, 'infra')]) {
    for (const name of COMPOSE_FILE_NAMES) {
      const path = join(dir, name);
      if (isFile(path)) return path;
    }
  }
  throw new CliError('COMPOSE_FILE_MISSING', `No compose file found in ${cwd} or ${join(cwd, 'infra')}.`, {
    hint: 'Run inside a runtime project created with svc create, or pass --file.',
  });
}
