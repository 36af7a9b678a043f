import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Every child a test starts runs in a process group of its own (spawnTracked.ts), so that
 * whatever it started in turn goes with it, and it is registered here until it exits. Three
 * layers stop what a test left, because each can be skipped: the test file's afterAll
 * (stopChildGroups.ts, runs after a test timeout too); this process's exit, SIGINT, SIGTERM
 * or lost vitest parent (a worker vitest stops, or one orphaned by vitest's own exit); and
 * the run's global teardown, which kills every group still named in the run's folder (a
 * worker killed before its handlers ran). A `serve` child of a timed-out crash test was
 * still running six minutes after `npm test` ended (issue 45).
 */

/** The run's folder of live group ids, one empty file each, made by the global setup. */
export const GROUPS_DIR_ENV = 'PARTNER_SIM_TEST_GROUPS';

/**
 * Group ids (= the leaders' pids) of this process's children that have not exited: one set
 * per process, as a module evaluated again (an isolated run) must share it with the handlers.
 */
const KEY = Symbol.for('partner-sim.childGroups');
const shared = globalThis as { [KEY]?: { live: Set<number>; handlers: boolean } };
shared[KEY] ??= { live: new Set(), handlers: false };
const state = shared[KEY];
const live = state.live;

function signalGroup(pgid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Whether any process of the group is still there (a zombie leader counts until reaped). */
export const groupAlive = (pgid: number): boolean => signalGroup(pgid, 0);

/** SIGTERM to the whole group, SIGKILL to whatever is left after `graceMs`. */
async function stopGroup(pgid: number, graceMs = 2000): Promise<void> {
  if (!signalGroup(pgid, 'SIGTERM')) return;
  const until = performance.now() + graceMs;
  while (groupAlive(pgid) && performance.now() < until) await sleep(20);
  signalGroup(pgid, 'SIGKILL');
}

/** Stops every group this process still tracks (a test file's end). */
export async function stopTrackedGroups(graceMs = 2000): Promise<void> {
  await Promise.all([...live].map((pgid) => stopGroup(pgid, graceMs)));
}

/** Where nothing can be awaited (process 'exit'): SIGKILL at once. */
function killTrackedGroupsNow(): void {
  for (const pgid of live) signalGroup(pgid, 'SIGKILL');
}

const recordFile = (pgid: number): string | undefined => {
  const dir = process.env[GROUPS_DIR_ENV];
  return dir ? join(dir, String(pgid)) : undefined;
};

/** Registers a child started with `detached: true` (its pid is its group id) until it exits. */
export function trackGroup(child: ChildProcess): void {
  const pgid = child.pid;
  if (pgid === undefined) return; // it did not start: its 'error' event says why
  installHandlers();
  live.add(pgid);
  const file = recordFile(pgid);
  if (file) {
    try {
      writeFileSync(file, '');
    } catch {
      // The run's folder is gone (the run is ending): this process's own handlers remain.
    }
  }
  child.once('exit', () => {
    // The leader is gone; what it started goes too, or nothing would ever stop it.
    signalGroup(pgid, 'SIGKILL');
    live.delete(pgid);
    if (file) rmSync(file, { force: true });
  });
}

/**
 * Once per process (a module evaluated again must not add more): stop the
 * groups on exit, on SIGINT and SIGTERM (vitest stops a worker with SIGTERM; Ctrl-C sends
 * SIGINT to vitest's group, which the detached children are no longer part of), and when a
 * worker loses its vitest parent (vitest exits at once on a signal; the worker would run on
 * until its next message to it).
 */
function installHandlers(): void {
  if (state.handlers) return;
  state.handlers = true;
  process.on('exit', killTrackedGroupsNow);
  const onSignal = (signal: NodeJS.Signals) => {
    void stopTrackedGroups(300).then(() => {
      process.off(signal, onSignal);
      // As if unhandled, unless someone else handles it too.
      if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
    });
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  if (process.send) process.once('disconnect', () => onSignal('SIGTERM'));
}

/** The global setup's folder for the run's group ids; the workers inherit its path. */
export function createGroupsDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'partner-sim-groups-'));
  process.env[GROUPS_DIR_ENV] = dir;
  return dir;
}

/** The group ids still recorded in `dir`. */
const recorded = (dir: string): number[] => {
  try {
    return readdirSync(dir)
      .map(Number)
      .filter((n) => Number.isInteger(n) && n > 1);
  } catch {
    return [];
  }
};

/** The global teardown: stops every group still recorded, then removes the folder. */
export async function stopRecordedGroups(dir: string, graceMs = 2000): Promise<void> {
  await Promise.all(recorded(dir).map((pgid) => stopGroup(pgid, graceMs)));
  rmSync(dir, { recursive: true, force: true });
}

/** vitest exits on SIGINT/SIGTERM without its global teardown: its 'exit' event still comes. */
export function killRecordedGroupsNow(dir: string): void {
  for (const pgid of recorded(dir)) {
    signalGroup(pgid, 'SIGKILL');
    try {
      unlinkSync(join(dir, String(pgid)));
    } catch {}
  }
  rmSync(dir, { recursive: true, force: true });
}
