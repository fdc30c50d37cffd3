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
  // The candidates are probed at once (four refused loopback ports cost one round trip, not
  // four), but decided in priority order: the first that answers wins, as if probed in turn,
  // and the probes still under way are abandoned.
  const abandon = new AbortController();
  const probes = tried.map((c) =>
    probeCandidate(c, options.env, abandon.signal).then(
      (info) => ({ info }),
      (error: unknown) => ({ error }),
    ),
  );
  try {
    for (const probe of probes) {
      const outcome = await probe;
      if ('error' in outcome) throw outcome.error;
      if (outcome.info) return outcome.info;
    }
  } finally {
    abandon.abort();
  }
  const list = tried.map((c) => `${c.url}${sourceNote(c)}`).join(', ');
  const envFile = tried.find((c) => c.source === 'env-file');
  throw new CliError('NO_RUNTIME', `No running runtime found (tried: ${list}).`, {
    hint: envFile
      ? `The URL came from ${URL_ENV} in ${envFile.sourceFile ?? '.env'} in this directory -- fix or remove it, pass --url, or start your runtime.`
      : `Start your runtime (for example: npm start), pass --url, or set ${URL_ENV} (in your shell or a .env.production / .env file).`,
  });
}
