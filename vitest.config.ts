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
          include: ['test/integration/**/*.test.ts'],
          testTimeout: 120_000,
          hookTimeout: 120_000,
          pool: 'forks',
        },
      },
      {
        test: {
          // Independent clients (kubernetes-client, aws-sdk v2) against every twin kind; `npm test` runs it.
          name: 'conformance',
          include: ['test/conformance/**/*.test.ts'],
          testTimeout: 120_000,
          hookTimeout: 120_000,
          pool: 'forks',
          // aws-sdk v2 prints its maintenance-mode notice on load; the suite uses v2 on purpose.
          env: { AWS_SDK_JS_SUPPRESS_MAINTENANCE_MODE_MESSAGE: '1' },
        },
      },
    ],
  },
});
