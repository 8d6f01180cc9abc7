import { defineConfig } from 'vitest/config';

/**
 * The viewer in a real browser (`npm run test:e2e`): Playwright drives the
 * system Chromium against a service started per file. Kept out of `npm test`
 * (it needs Chromium); .ci/run runs it after the unit suite.
 */
export default defineConfig({
  test: {
    include: ['tests/e2e/**/*.e2e.ts'],
    globalSetup: ['tests/support/global-setup.ts'],
    setupFiles: ['tests/support/cleanup.ts'],
    testTimeout: 120_000,
    hookTimeout: 60_000,
    // One browser and one service at a time: two cores are shared with the service under test.
    maxWorkers: 1,
    fileParallelism: false,
  },
});
