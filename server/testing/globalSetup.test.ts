import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fromRoot } from '../core/root.js';
import { BROWSER_TESTS, selectsBrowserTests } from './globalSetup.js';
import { havePostgresBinaries } from './throwawayCluster.js';

describe('npm test on a developer machine', () => {
  // Under `npm test` the global setup has run before this worker started.
  it.runIf(havePostgresBinaries())(
    'has a PostgreSQL to run the store tests on where the binaries exist',
    () => {
      expect(process.env.PARTNER_SIM_TEST_PG).toMatch(/^postgres:\/\/.+:\d+\//);
    },
  );
});

describe('the shared Chromium of a test run', () => {
  it('is started for every test file that drives Chromium', async () => {
    const files: string[] = [];
    for (const dir of ['server', 'sdk-tests']) {
      for (const name of await readdir(fromRoot(dir), { recursive: true })) {
        if (!name.endsWith('.test.ts')) continue;
        const text = await readFile(fromRoot(dir, name), 'utf8');
        // Every browser test names itself for CI's "Chromium is required" check.
        if (/requireChromiumInCi\(/.test(text)) files.push(join(dir, name));
      }
    }
    expect(files.length).toBeGreaterThan(0);
    expect([...BROWSER_TESTS].sort()).toEqual(files.sort());
  });

  it('is started when vitest is given no filter or one that selects a browser test, not otherwise', () => {
    const argv = (...args: string[]) => ['node', 'vitest', ...args];
    expect(selectsBrowserTests(argv('run'))).toBe(true);
    expect(selectsBrowserTests(argv('run', 'server/ui/dashboardNav'))).toBe(true);
    expect(selectsBrowserTests(argv('run', './sdk-tests/capacitorNativeChromium.test.ts'))).toBe(true);
    expect(selectsBrowserTests(argv('run', 'server/core', '--reporter=dot'))).toBe(false);
    // Option values are not filters: these runs select every file.
    expect(selectsBrowserTests(argv('run', '--config', 'vitest.other.config.ts', '--reporter', 'dot'))).toBe(
      true,
    );
    expect(selectsBrowserTests(argv('--project', 'x', '-t', 'polls'))).toBe(true);
    expect(selectsBrowserTests(argv('run', '--reporter', 'dot', 'server/core'))).toBe(false);
  });
});
