import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: {
    // Workspace packages resolve to their TypeScript sources, so tests need no build first.
    // (An alias rather than the "source" export condition: some dependencies publish that
    // condition too, pointing at TypeScript that Node cannot load.)
    alias: {
      '@svc/runtime': fileURLToPath(new URL('./packages/runtime/src/index.ts', import.meta.url)),
    },
  },
  test: {
    include: [
      'packages/*/src/**/*.test.ts',
      'packages/*/test/**/*.test.ts',
      'examples/*/src/**/*.test.ts',
      'examples/*/test/**/*.test.ts',
      'bench/**/*.test.ts',
      'templates/test/**/*.test.ts',
    ],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    reporters: ['default', './scripts/plain-summary-reporter.mjs'],
  },
});
