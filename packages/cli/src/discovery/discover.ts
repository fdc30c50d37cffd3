/**
 * Single-target discovery for status, tokens and non-interactive runs: only candidates of the
 * highest-priority source are probed, so a dead URL in .env is a clear failure and never a
 * silent switch to some other runtime on localhost.
 */
import { CliError } from '../errors.js';
import { candidates, sourceNote, URL_ENV } from './candidates.js';
import type { RuntimeInfo } from './os-info.js';
import { probeCandidate } from './probe.js';

export interface DiscoverOptions {
  url: string | undefined;
  env: NodeJS.ProcessEnv;
  cwd: string;
}

export async function discover(options: DiscoverOptions): Promise<RuntimeInfo> {
  const all = candidates(options.url, options.env, options.cwd);
  const first = all[0];
  const tried = first ? all.filter((c) => c.source === first.source) : [];
  for (const candidate of tried) {
    const found = await probeCandidate(candidate, options.env);
    if (found) return found;
  }
  const list = tried.map((c) => `${c.url}${sourceNote(c)}`).join(', ');
  const envFile = tried.find((c) => c.source === 'env-file');
  throw new CliError('NO_RUNTIME', `No running runtime found (tried: ${list}).`, {
    hint: envFile
      ? `The URL came from ${URL_ENV} in ${envFile.sourceFile ?? '.env'} in this directory -- fix or remove it, pass --url, or start your runtime.`
      : `Start your runtime (for example: npm start), pass --url, or set ${URL_ENV} (in your shell or a .env.production / .env file).`,
  });
}
