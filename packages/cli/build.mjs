// Bundles the CLI into one file: cold start is a product feature, and one file loads fastest.
import { build } from 'esbuild';
import { readFileSync } from 'node:fs';

const { version } = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8'));

await build({
  entryPoints: [new URL('./src/main.ts', import.meta.url).pathname],
  outfile: new URL('./dist/svc.mjs', import.meta.url).pathname,
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'esm',
  minifyWhitespace: true,
  legalComments: 'none',
  define: { __SVC_VERSION__: JSON.stringify(version) },
  // CommonJS dependencies call require(); an ESM bundle has none unless we provide it.
  banner: { js: "import{createRequire as __svcCreateRequire}from'node:module';const require=__svcCreateRequire(import.meta.url);" },
  logLevel: 'warning',
});
