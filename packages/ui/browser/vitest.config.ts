import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

/**
 * The control panel in a real browser (`npm run test:browser`): Debian's chromium driven by
 * playwright-core against real runtimes on loopback. One file at a time: each launches its own
 * browser, and the machine has two cores.
 */
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  resolve: {
    alias: {
      '@svc/runtime': fileURLToPath(new URL('../../runtime/src/index.ts', import.meta.url)),
    },
  },
  test: {
    include: ['**/*.test.ts'],
    fileParallelism: false,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    reporters: ['default', fileURLToPath(new URL('../../../scripts/plain-summary-reporter.mjs', import.meta.url))],
  },
});
