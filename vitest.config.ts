import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    globalSetup: [
      './test/support/global-setup.ts',
      './test/support/python-peers-setup.ts',
      './test/support/hub-setup.ts',
      './test/support/browser-setup.ts',
    ],
    reporters: ['default', './test/support/count-reporter.ts'],
  },
});
