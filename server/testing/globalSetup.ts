import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { fromRoot } from '../core/root.js';

/** Test files that drive Chromium: the shared browser starts only when a run may include one. */
export const BROWSER_TESTS = [
  'server/ui/dashboard.test.ts',
  'server/ui/dashboardAppView.test.ts',
  'server/ui/dashboardFeedback.test.ts',
  'server/ui/dashboardNav.test.ts',
  'server/ui/dashboardToken.test.ts',
  'sdk-tests/capacitorChromium.test.ts',
  'sdk-tests/capacitorNativeChromium.test.ts',
];

/** Whether vitest's file filters (positional arguments; none: every file) select a browser test. */
export function selectsBrowserTests(argv: string[]): boolean {
  const filters = argv.slice(2).filter((a) => !a.startsWith('-') && a !== 'run' && a !== 'watch');
  return (
    filters.length === 0 || filters.some((f) => BROWSER_TESTS.some((t) => t.includes(f.replace(/^\.\//, ''))))
  );
}

/**
 * `npm test` on a developer's machine runs what it can instead of skipping in silence:
 * a throw-away PostgreSQL cluster is started (by `.ci/with-postgres`, the one way the project
 * starts one) when Debian's binaries are there and PARTNER_SIM_TEST_PG is not set, and
 * whatever cannot run is named in one line with how to get it. One Chromium serves every
 * browser test file of the run. Workers start after this and inherit the URLs through the
 * environment.
 */
export default async function setup(): Promise<(() => Promise<void>) | undefined> {
  const missing: string[] = [];
  const stops: (() => Promise<void>)[] = [];
  // Chromium and PostgreSQL start side by side (each takes a second or more).
  const chromiumStarted = (async () => {
    if (!existsSync('/usr/bin/chromium')) {
      missing.push('Chromium (dashboard and Capacitor tests: apt-get install chromium)');
    } else if (selectsBrowserTests(process.argv)) {
      const { launchSharedChromium, SHARED_CHROMIUM } = await import('./chromiumServer.js');
      // Not started: each browser test file launches its own, as when run alone.
      const browser = await launchSharedChromium().catch(() => undefined);
      if (browser) {
        process.env[SHARED_CHROMIUM] = browser.wsEndpoint;
        stops.push(browser.close);
      }
    }
  })();
  let cluster: ChildProcess | undefined;
  if (!process.env.PARTNER_SIM_TEST_PG && process.env.PARTNER_SIM_TEST_PG_AUTO !== '0') {
    if (havePostgresBinaries()) {
      const started = await startCluster().catch((e: Error) => {
        missing.push(`PostgreSQL (a throw-away cluster did not start: ${e.message})`);
        return undefined;
      });
      if (started) {
        cluster = started.child;
        process.env.PARTNER_SIM_TEST_PG = started.url;
        process.stdout.write(`tests: PostgreSQL tests run on a throw-away cluster at ${started.url}\n`);
      }
    } else {
      missing.push(
        'PostgreSQL (store tests: apt-get install postgresql, or set PARTNER_SIM_TEST_PG=postgres://…)',
      );
    }
  }
  await chromiumStarted;
  if (missing.length > 0) process.stdout.write(`tests: skipping what needs ${missing.join('; ')}\n`);
  if (cluster) {
    const child = cluster;
    stops.push(async () => {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.stdin?.end(); // the script's command ends, and its trap stops and deletes the cluster
      await exited;
    });
  }
  if (stops.length === 0) return undefined;
  return async () => {
    for (const stop of stops) await stop();
  };
}

export function havePostgresBinaries(): boolean {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return false;
  return readdirSync(root).some(
    (v) => existsSync(`${root}/${v}/bin/initdb`) && existsSync(`${root}/${v}/bin/pg_ctl`),
  );
}

/** `.ci/with-postgres` holding a cluster open until our stdin closes; its banner names the URL. */
function startCluster(): Promise<{ child: ChildProcess; url: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(fromRoot('.ci/with-postgres'), ['sh', '-c', 'cat >/dev/null'], {
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let out = '';
    const onData = (chunk: Buffer) => {
      out += chunk.toString();
      const url = /at (postgres:\/\/\S+)/.exec(out)?.[1];
      if (url) {
        child.stdout?.off('data', onData);
        resolve({ child, url });
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', (c: Buffer) => {
      out += c.toString();
    });
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`exit ${code}: ${out.trim().split('\n').pop() ?? ''}`)));
  });
}
