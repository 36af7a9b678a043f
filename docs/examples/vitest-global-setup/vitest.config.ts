import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // Started once for the whole run, before any test file; stopped after the last one.
    globalSetup: ['./globalSetup.ts'],
  },
});
