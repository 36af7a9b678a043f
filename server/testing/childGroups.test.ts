import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { fromRoot } from '../core/root.js';
import { groupAlive } from './childGroups.js';
import { scaledBudget } from './scaledBudget.js';
import { spawnTracked } from './spawnTracked.js';

/**
 * No child a test starts outlives the run: a vitest of its own runs fixtures/leavesChildren.test.ts,
 * whose test starts a child (through spawnTracked) that starts a grandchild, and then hangs.
 * Whether that run ends by the test's timeout, by SIGTERM to vitest, by SIGKILL to its worker
 * or by Ctrl-C (SIGINT to vitest's process group), both must be gone once vitest has exited,
 * and the run's folder of group ids removed. Before the process-group rule (issue 45), the timeout and SIGTERM left
 * both running: a crash test's `serve` child was still there six minutes after `npm test`.
 */

const work = await mkdtemp(join(tmpdir(), 'partner-sim-child-groups-'));
afterAll(() => rm(work, { recursive: true, force: true }));

interface Pids {
  child: number;
  grandchild: number;
  groups: string;
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** The fixture run, tracked itself (its own group: vitest and its workers). */
function fixtureRun(name: string, testTimeoutMs: number) {
  const pidsFile = join(work, `${name}.json`);
  const vitest = spawnTracked(
    process.execPath,
    [
      fromRoot('node_modules', 'vitest', 'vitest.mjs'),
      'run',
      '--config',
      fromRoot('server', 'testing', 'fixtures', 'vitest.config.ts'),
      'server/testing/fixtures/leavesChildren.test.ts',
    ],
    {
      cwd: fromRoot(),
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        ...process.env,
        FIXTURE_PIDS: pidsFile,
        FIXTURE_TEST_TIMEOUT_MS: String(testTimeoutMs),
        PARTNER_SIM_TEST_PG_AUTO: '0',
      },
    },
  );
  let output = '';
  vitest.stdout!.on('data', (d: Buffer) => {
    output += d.toString();
  });
  vitest.stderr!.on('data', (d: Buffer) => {
    output += d.toString();
  });
  const exited = new Promise<number | null>((r) => vitest.once('close', (code) => r(code)));
  /** The fixture's pids, once its child wrote them. */
  const pids = async (): Promise<Pids> => {
    const until = performance.now() + scaledBudget(30_000);
    for (;;) {
      const text = await readFile(pidsFile, 'utf8').catch(() => undefined);
      if (text) return JSON.parse(text) as Pids;
      if (performance.now() > until || vitest.exitCode !== null)
        throw new Error(`no pids written:\n${output}`);
      await sleep(50);
    }
  };
  return { pid: vitest.pid!, exited, pids, output: () => output };
}

/** Gives the kernel a moment to reap what was just killed (an orphan goes to init). */
async function gone(pid: number, group = false): Promise<boolean> {
  const until = performance.now() + scaledBudget(2000);
  while ((group ? groupAlive(pid) : alive(pid)) && performance.now() < until) await sleep(20);
  return !(group ? groupAlive(pid) : alive(pid));
}

async function expectNothingLeft(run: ReturnType<typeof fixtureRun>, pids: Pids): Promise<void> {
  expect(await gone(pids.child), `child ${pids.child}\n${run.output()}`).toBe(true);
  expect(await gone(pids.grandchild), `grandchild ${pids.grandchild}`).toBe(true);
  expect(await gone(pids.child, true), `group ${pids.child}`).toBe(true);
  // vitest's workers too: they are in its group.
  expect(await gone(run.pid, true), `vitest's group ${run.pid}`).toBe(true);
  expect(existsSync(pids.groups), pids.groups).toBe(false);
}

describe('children of a test that does not end', () => {
  it('are gone when the test timed out, once vitest exits', async () => {
    const run = fixtureRun('timeout', 1000);
    const pids = await run.pids();
    expect(alive(pids.grandchild)).toBe(true);
    expect(await run.exited).toBe(1);
    expect(run.output()).toMatch(/Test timed out in 1000ms/);
    await expectNothingLeft(run, pids);
  }, 60_000);

  it('are gone when vitest gets SIGTERM mid-run', async () => {
    const run = fixtureRun('sigterm', 600_000);
    const pids = await run.pids();
    process.kill(run.pid, 'SIGTERM');
    expect(await run.exited).not.toBe(0);
    await expectNothingLeft(run, pids);
  }, 60_000);

  it("are gone when the test's worker is killed outright, by the run's teardown", async () => {
    const run = fixtureRun('worker', 600_000);
    const pids = await run.pids();
    // The worker is the child's parent; SIGKILL leaves it no hook or handler to run.
    const worker = Number(readFileSync(`/proc/${pids.child}/stat`, 'utf8').split(') ')[1]!.split(' ')[1]);
    expect(worker).not.toBe(run.pid);
    process.kill(worker, 'SIGKILL');
    expect(await run.exited).not.toBe(0);
    await expectNothingLeft(run, pids);
  }, 60_000);

  it("are gone on Ctrl-C (SIGINT to vitest's group), which no longer reaches them itself", async () => {
    const run = fixtureRun('sigint', 600_000);
    const pids = await run.pids();
    process.kill(-run.pid, 'SIGINT');
    expect(await run.exited).not.toBe(0);
    await expectNothingLeft(run, pids);
  }, 60_000);
});
