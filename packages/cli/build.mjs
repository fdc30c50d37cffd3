// Bundles the CLI. Cold start is a product feature, so a run loads two files at most:
// - dist/svc.mjs, the entry: `svc --version`, `svc --help` and the bare catalog, no commander;
// - dist/cmd/<folder>.mjs, the command folder that runs, with commander and everything it uses in
//   one self-contained file (each extra module file costs the ESM loader time; code shared by
//   several commands is repeated in their bundles, which only costs disk). dist/cmd/all.mjs
//   holds every command, for command lines that name none or an unknown one.
// The catalog (src/commands/catalog.ts) says which bundles there are: each line's `load` imports
// its folder's command.ts, and building the entry turns that import into the load of the
// folder's bundle and notes the folder; the bundles built are the folders noted, plus all.
import { build } from 'esbuild';
import { mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';

const here = new URL('.', import.meta.url).pathname;
const src = join(here, 'src');
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

/**
 * In the entry's build, a catalog line's `import('./<folder>/command.js')` becomes
 * `import('./cmd/<folder>.mjs')` and main.ts's `import('./commands/all.js')` becomes
 * `import('./cmd/all.mjs')`: files loaded only when that command runs, never code in the entry.
 */
function commandBundles(folders) {
  const catalog = join(src, 'commands', 'catalog.ts');
  const main = join(src, 'main.ts');
  return {
    name: 'command-bundles',
    setup(b) {
      b.onResolve({ filter: /.*/ }, (args) => {
        if (args.kind !== 'dynamic-import') return undefined;
        let folder;
        if (args.importer === catalog) {
          folder = /^\.\/([\w-]+)\/command\.js$/.exec(args.path)?.[1];
          // Anything else would be bundled into the entry, which must stay tiny.
          if (!folder) return { errors: [{ text: `a catalog line loads './<folder>/command.js', not '${args.path}'` }] };
        } else if (args.importer === main && args.path === './commands/all.js') folder = 'all';
        else return undefined;
        folders.add(folder);
        return { path: `./cmd/${folder}.mjs`, external: true };
      });
    },
  };
}

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

const folders = new Set();
await build({ ...common, entryPoints: [join(src, 'main.ts')], outfile: join(dist, 'svc.mjs'), plugins: [commandBundles(folders)] });
await build({
  ...common,
  entryPoints: [...folders].map((name) => ({ in: name === 'all' ? join(src, 'commands', 'all.ts') : join(src, 'commands', name, 'command.ts'), out: name })),
  outdir: join(dist, 'cmd'),
  outExtension: { '.js': '.mjs' },
  // CommonJS dependencies (commander) call require(); an ESM bundle has none unless we provide it.
  banner: { js: "import{createRequire as __svcCreateRequire}from'node:module';const require=__svcCreateRequire(import.meta.url);" },
  plugins: [lazyChildProcess],
});
