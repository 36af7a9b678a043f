import { parseCLI } from 'vitest/node';
import { createGroupsDir, killRecordedGroupsNow, stopRecordedGroups } from './childGroups.js';
import { CHROMIUM_INSTALL, haveChromium } from './chromiumPath.js';
import { CHROMIUM_STATE, createSetupState, PG_STATE } from './setupState.js';
import { havePostgresBinaries, startThrowawayCluster } from './throwawayCluster.js';

/** Test files that drive Chromium: the shared browser starts only when a run may include one. */
export const BROWSER_TESTS = [
  'server/ui/dashboard.test.ts',
  'server/ui/dashboardAppView.test.ts',
  'server/ui/dashboardFeedback.test.ts',
  'server/ui/dashboardNav.test.ts',
  'server/ui/dashboardToken.test.ts',
  'server/ui/servedPages.test.ts',
  'sdk-tests/capacitorChromium.test.ts',
  'sdk-tests/capacitorNativeChromium.test.ts',
  'sdk-tests/capacitorNativeChromiumDemo.test.ts',
];

/**
 * Whether vitest's file filters (none: every file) select a browser test. vitest's own parser
 * tells filters from option values: `--config x.ts` or `--reporter dot` name no test file.
 */
export function selectsBrowserTests(argv: string[]): boolean {
  let filter: string[];
  try {
    ({ filter } = parseCLI(['vitest', ...argv.slice(2)])); // it knows run/watch from a filter
  } catch {
    return true; // arguments vitest itself refuses: the run stops anyway, browser or not
  }
  return (
    filter.length === 0 || filter.some((f) => BROWSER_TESTS.some((t) => t.includes(f.replace(/^\.\//, ''))))
  );
}

/**
 * `npm test` on a developer's machine runs what it can instead of skipping in silence:
 * a throw-away PostgreSQL cluster is started (by `.ci/with-postgres`, the one way the project
 * starts one) when Debian's binaries are there and PARTNER_SIM_TEST_PG is not set, and
 * whatever cannot run is named in one line with how to get it. A cluster that then fails to
 * start fails the tests that need it, with its reason. One Chromium serves every browser
 * test file of the run. Workers start after this and inherit the URLs through the environment.
 */
export default async function setup(): Promise<() => Promise<void>> {
  const missing: string[] = [];
  const stops: (() => Promise<void>)[] = [];
  // The tests' child process groups (childGroups.ts), stopped last, after the workers ended.
  // On SIGINT/SIGTERM vitest exits without this teardown; its 'exit' event still comes.
  const groups = createGroupsDir();
  const onExit = () => killRecordedGroupsNow(groups);
  process.once('exit', onExit);
  // Neither Chromium nor PostgreSQL is waited for: each takes a second or two to start, and
  // only the files that need one wait for it (setupState.ts).
  if (!haveChromium) {
    missing.push(`Chromium (dashboard and Capacitor tests: ${CHROMIUM_INSTALL})`);
  } else if (selectsBrowserTests(process.argv)) {
    const state = await createSetupState('chromium');
    process.env[CHROMIUM_STATE] = state.path;
    const launched = import('./chromiumServer.js')
      .then(({ launchSharedChromium }) => launchSharedChromium())
      .then(
        async (browser) => {
          await state.ready(browser.wsEndpoint);
          return browser;
        },
        // Each browser test file then launches its own, as when run alone.
        async (e: Error) => {
          await state.failed(e.message);
          return undefined;
        },
      );
    stops.push(async () => {
      await (await launched)?.close();
      await state.remove();
    });
  }
  if (!process.env.PARTNER_SIM_TEST_PG && process.env.PARTNER_SIM_TEST_PG_AUTO !== '0') {
    if (havePostgresBinaries()) {
      // Not waited for: the files that need it wait (pgCluster.ts), the others start at once.
      const cluster = await startThrowawayCluster();
      process.env.PARTNER_SIM_TEST_PG = cluster.url;
      process.env[PG_STATE] = cluster.state;
      stops.push(cluster.stop);
      process.stdout.write(`tests: PostgreSQL tests run on a throw-away cluster at ${cluster.url}\n`);
    } else {
      missing.push(
        'PostgreSQL (store tests: apt-get install postgresql, or set PARTNER_SIM_TEST_PG=postgres://…)',
      );
    }
  }
  if (missing.length > 0) process.stdout.write(`tests: skipping what needs ${missing.join('; ')}\n`);
  return async () => {
    for (const stop of stops) await stop();
    await stopRecordedGroups(groups);
    process.off('exit', onExit);
  };
}
