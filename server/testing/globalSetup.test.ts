import { describe, expect, it } from 'vitest';
import { havePostgresBinaries } from './globalSetup.js';

describe('npm test on a developer machine', () => {
  // Under `npm test` the global setup has run before this worker started.
  it.runIf(havePostgresBinaries())(
    'has a PostgreSQL to run the store tests on where the binaries exist',
    () => {
      expect(process.env.PARTNER_SIM_TEST_PG).toMatch(/^postgres:\/\/.+:\d+\//);
    },
  );
});
