/**
 * The docker compose invocations behind up/down/restart, and running one of them.
 */
import { dirname } from 'node:path';
import { CliError } from '../errors.js';
import { runCommand } from '../system/run.js';
import { which } from '../system/which.js';

export const COMPOSE_TIMEOUT_MS = 600_000;
export const RESTART_PAUSE_MS = 2000;

export function upCommand(file: string, pull: boolean): string[] {
  return ['docker', 'compose', '-f', file, 'up', '-d', '--build', ...(pull ? ['--pull', 'always'] : [])];
}

export function downCommand(file: string, volumes: boolean): string[] {
  return ['docker', 'compose', '-f', file, 'down', ...(volumes ? ['--volumes'] : [])];
}

/** Runs in the compose file's directory so relative paths inside it resolve as docker expects. */
export async function runCompose(command: readonly string[], file: string, env: NodeJS.ProcessEnv, capture: boolean): Promise<void> {
  const docker = which('docker', env);
  if (!docker) throw new CliError('DOCKER_MISSING', 'docker is required.', { hint: 'Install Docker and make sure `docker` is on PATH.' });
  const result = await runCommand(docker, command.slice(1), { cwd: dirname(file), env, timeoutMs: COMPOSE_TIMEOUT_MS, capture });
  if (result.timedOut) {
    throw new CliError('DOCKER_FAILED', `docker compose timed out after ${COMPOSE_TIMEOUT_MS / 1000}s.`, {
      hint: 'Check `docker compose ps` and the container logs, then re-run.',
    });
  }
  if (result.code !== 0) {
    const stderr = result.stderr.trim();
    const code = result.code ?? result.signal ?? 'unknown';
    throw new CliError('DOCKER_FAILED', stderr ? `docker compose exited with code ${code}: ${stderr}` : `docker compose exited with code ${code}.`, {
      hint: 'Read the docker output above (or `docker compose logs`), fix the cause and re-run.',
    });
  }
}
