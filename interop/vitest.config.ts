import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

/**
 * The interop suite: the real MCP clients come from this folder's own install (interop/node_modules);
 * vitest, the runtime's sources and the shared test support come from the root install, so run it
 * with the root's vitest (`npm run test:interop`).
 */
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  resolve: {
    // As in the root config: the runtime resolves to its TypeScript sources, so no build is needed.
    alias: {
      '@svc/runtime': fileURLToPath(new URL('../packages/runtime/src/index.ts', import.meta.url)),
    },
  },
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    reporters: ['default', fileURLToPath(new URL('../scripts/plain-summary-reporter.mjs', import.meta.url))],
  },
});
