import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

/**
 * The hostile-content suite (`npm run test:hostile`): it measures a runtime's `/health` latency
 * and memory while it digests hostile files, so it runs alone, after `npm test`, one file at a
 * time, with no other test competing for the machine's two cores.
 */
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  resolve: {
    alias: {
      '@svc/runtime': fileURLToPath(new URL('../packages/runtime/src/index.ts', import.meta.url)),
    },
  },
  test: {
    include: ['**/*.test.ts'],
    fileParallelism: false,
    testTimeout: 180_000,
    hookTimeout: 120_000,
    reporters: ['default', fileURLToPath(new URL('../scripts/plain-summary-reporter.mjs', import.meta.url))],
  },
});
