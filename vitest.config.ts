import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['tests/**/*.test.ts'],
    globalSetup: ['tests/support/global-setup.ts'],
    // Removes the BullMQ queues each test file created.
    setupFiles: ['tests/support/cleanup.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Two cores: keep integration files from starving each other.
    maxWorkers: 2,
  },
});
