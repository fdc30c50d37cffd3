/**
 * The panel's build: a static bundle written into the runtime package (`packages/runtime/ui-dist`),
 * which serves it at `/ui` under a strict Content-Security-Policy. Hence no inline script (the
 * module-preload polyfill is off: every browser the panel targets has modulepreload) and no
 * asset inlined as a data: URL (the policy allows images from 'self' only).
 */
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

export default defineConfig({
  base: '/ui/',
  // Preact's automatic JSX runtime through Vite's own transform: no Babel preset is needed.
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: fileURLToPath(new URL('../runtime/ui-dist', import.meta.url)),
    emptyOutDir: true,
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    target: 'es2022',
    sourcemap: false,
  },
  server: { proxy: { '^/(?!ui)': 'http://localhost:7777' } },
});
