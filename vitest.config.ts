import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['src/**/*.test.ts'],
          sequence: { shuffle: true },
          testTimeout: 20_000,
        },
      },
      {
        test: {
          name: 'integration',
          // test/conformance: independent clients against every twin kind (CI runs them through `npm test`).
          include: ['test/integration/**/*.test.ts', 'test/conformance/**/*.test.ts'],
          testTimeout: 120_000,
          hookTimeout: 120_000,
          pool: 'forks',
        },
      },
    ],
  },
});
