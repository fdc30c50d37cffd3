// Bundles the CLI. Cold start is a product feature, so a run loads two files at most:
// - dist/svc.mjs, the entry: `svc --version`, `svc --help` and the bare catalog, no commander;
// - dist/cmd/<bundle>.mjs, the one command that runs, with commander and everything it uses in
//   one self-contained file (each extra module file costs the ESM loader time; code shared by
//   several commands is repeated in their bundles, which only costs disk). dist/cmd/all.mjs
//   holds every command, for command lines that name none or an unknown one.
import { build } from 'esbuild';
import { mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';

const here = new URL('.', import.meta.url).pathname;
const dist = join(here, 'dist');
const { version } = JSON.parse(readFileSync(join(here, 'package.json'), 'utf8'));

// Old bundles must not linger; the tests' build lock (dist/.build-lock) stays.
mkdirSync(dist, { recursive: true });
for (const stale of ['cmd', 'chunks']) rmSync(join(dist, stale), { recursive: true, force: true });
for (const file of readdirSync(dist)) if (file.endsWith('.mjs')) rmSync(join(dist, file));

/**
 * commander requires node:child_process at load time, for executable subcommands this CLI never
 * uses; loading that module costs milliseconds of every start. It gets a stand-in that loads the
 * real module only if something ever reaches for it.
 */
const lazyChildProcess = {
  name: 'lazy-child-process',
  setup(b) {
    b.onResolve({ filter: /^node:child_process$/ }, (args) =>
      args.importer.includes(`${'node_modules'}/commander/`) ? { path: 'lazy-child-process', namespace: 'svc-lazy' } : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'svc-lazy' }, () => ({
      contents: "module.exports = new Proxy({}, { get: (_, key) => require('node:child_process')[key] });",
      loader: 'js',
    }));
  },
};

const common = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'esm',
  minifyWhitespace: true,
  legalComments: 'none',
  define: { __SVC_VERSION__: JSON.stringify(version) },
  logLevel: 'warning',
};

await Promise.all([
  build({ ...common, entryPoints: [join(here, 'src', 'main.ts')], outfile: join(dist, 'svc.mjs') }),
  build({
    ...common,
    entryPoints: ['create', 'connect', 'disconnect', 'lifecycle', 'status', 'tokens', 'knowledge', 'all'].map((name) => ({ in: join(here, 'src', 'entries', `${name}.ts`), out: name })),
    outdir: join(dist, 'cmd'),
    outExtension: { '.js': '.mjs' },
    // CommonJS dependencies (commander) call require(); an ESM bundle has none unless we provide it.
    banner: { js: "import{createRequire as __svcCreateRequire}from'node:module';const require=__svcCreateRequire(import.meta.url);" },
    plugins: [lazyChildProcess],
  }),
]);
