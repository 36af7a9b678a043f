import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DriftReport } from '../contract/drift.js';
import type { ControlClient } from '../embed/controlClient.js';
import { type SimulatorHandle, startSimulator } from '../embed/startSimulator.js';
import { compareRun } from '../testing/compareRun.js';
import { DEMO_US } from '../testing/http.js';
import { startLoopbackGateway } from '../testing/loopbackGateway.js';
import { mistakesFlow } from '../testing/mistakesFlow.js';
import { walkthrough } from '../testing/walkthroughFlow.js';
import { ReplayClock } from './replayClock.js';

/** Replays per target: the bar is 10 in a row; PARTNER_SIM_REPLAYS sets it. */
const RUNS = Number(process.env.PARTNER_SIM_REPLAYS ?? 10);
const ADMIN = 'timeline-admin-token-0001';

/**
 * A session polled close enough to see the task go PENDING → PROGRESS → SUCCESS (default
 * timing, a poll every 300 ms), beside a client's own mistakes and an expired token, replays
 * clean against the instance it was recorded from, every time: the replay lives on the
 * recording's own timeline, not on the recording's pauses plus its own slowness.
 */
describe("compare: the recording's own timeline", () => {
  let upstream: SimulatorHandle;
  let dir: string;
  let file: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'psim-timeline-'));
    // Its control API wants a token, as a shared instance's would: compare drives its app
    // clock with --admin-token.
    upstream = await startSimulator({ config: { adminToken: ADMIN } });
    const recorder = await startSimulator({ config: { record: dir, upstream: upstream.url } });
    try {
      await mistakesFlow(recorder.url, DEMO_US);
      // Without binding: devices are shared by the instance, so a bind recorded once answers
      // otherwise the second time (docs/recording.md, Limits); the clock is what is tested here.
      await walkthrough({
        root: recorder.url,
        app: DEMO_US,
        userId: 'demo-user-0001',
        pollMs: 300,
        devices: false,
      });
    } finally {
      await recorder.stop();
    }
    file = join(dir, (await readdir(dir))[0]!);
  }, 60_000);
  afterAll(async () => {
    await upstream?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('the recording polled the task through its states', async () => {
    const har = JSON.parse(await readFile(file, 'utf8')) as {
      log: { entries: { _operation: string; response: { content: { text: string } } }[] };
    };
    const statuses = har.log.entries
      .filter((e) => e._operation === 'getTranscription')
      .map((e) => (JSON.parse(e.response.content.text) as { status: string }).status);
    // Several states before the result (which of PENDING/RECEIVED/STARTED the first poll
    // meets depends on the host's pace), then the one change of shape: SUCCESS.
    expect(new Set(statuses).size).toBeGreaterThanOrEqual(3);
    expect(statuses).toContain('PROGRESS');
    expect(statuses.at(-1)).toBe('SUCCESS');
    // The simulator upstream answered within its own spec throughout (tokens, storage, polls).
    expect(har.log.entries.filter((e) => '_violations' in e)).toEqual([]);
  });

  it(`${RUNS} of ${RUNS} replays against the instance it was recorded from (by URL, --admin-token) are clean`, async () => {
    const drifts: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const { out } = await compareRun([file, '--json', '--target', upstream.url, '--admin-token', ADMIN]);
      drifts.push((JSON.parse(out) as DriftReport).drift.length);
    }
    expect(drifts.join(' ')).toBe(drifts.map(() => 0).join(' '));
  }, 120_000);

  it('a URL target whose clock compare may not drive: said once, polls sent again, nothing but a poll may differ', async () => {
    // A gateway that holds the admin token for app management but not for the clock (compare
    // is given none): the replay runs on the target's real time, and each poll is held to the
    // status the recording saw (sent again until it shows it, up to the recorded pause).
    const gateway = await startLoopbackGateway(upstream.url, {
      before: async (req) => {
        if (req.path.startsWith('/__admin') && !req.path.startsWith('/__admin/clock'))
          req.headers.authorization = `Bearer ${ADMIN}`;
        return undefined;
      },
    });
    try {
      for (let i = 0; i < 3; i++) {
        const { out, err } = await compareRun([file, '--json', '--target', gateway.url]);
        expect(err.match(/cannot be driven/g)).toHaveLength(1);
        expect(err).toMatch(
          /cannot be driven \(.*ADMIN_TOKEN_REQUIRED.*\).*sends a poll again until it shows the status the recording saw/,
        );
        // On the target's real time a poll can only wait for a status, never go back to one:
        // on a busy host (CI) a task may pass the recorded state before the poll comes. What
        // differs may only be a poll's answer, never any other exchange.
        const drift = (JSON.parse(out) as DriftReport).drift;
        expect(drift.filter((d) => d.operation !== 'getTranscription')).toEqual([]);
      }
    } finally {
      await gateway.stop();
    }
  }, 120_000);

  it(`${RUNS} of ${RUNS} replays in process are clean`, async () => {
    const drifts: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const { out } = await compareRun([file, '--json']);
      drifts.push((JSON.parse(out) as DriftReport).drift.length);
    }
    expect(drifts.join(' ')).toBe(drifts.map(() => 0).join(' '));
  }, 120_000);
});

describe('ReplayClock', () => {
  it('freezes the app clock, then moves it by exactly each recorded gap', async () => {
    const calls: unknown[] = [];
    const control = {
      setClock: async (c: unknown) => void calls.push(c),
      advanceClock: async (ms: number, id: string) => void calls.push([ms, id]),
    } as unknown as ControlClient;
    const clock = new ReplayClock(control, 'compare-1', () => {});
    await clock.start();
    for (const at of [1000, 1000, 1250, 61_250]) await clock.before(at);
    expect(calls).toEqual([
      { freeze: true, client_id: 'compare-1' },
      [250, 'compare-1'],
      [60_000, 'compare-1'],
    ]);
  });

  it('a clock it cannot drive: said once, and the recorded pause waited in real time', async () => {
    const notes: string[] = [];
    const control = {
      setClock: async () => {
        throw new Error('403 ADMIN_TOKEN_REQUIRED');
      },
    } as unknown as ControlClient;
    const clock = new ReplayClock(control, 'compare-1', (m) => notes.push(m));
    await clock.start();
    expect(notes).toEqual([
      expect.stringMatching(/^the target's clock cannot be driven \(403 ADMIN_TOKEN_REQUIRED\)/),
    ]);
    await clock.before(0);
    const t0 = performance.now();
    await clock.before(80);
    expect(performance.now() - t0).toBeGreaterThanOrEqual(60);
  });

  it('a clock it cannot drive: a poll is sent again until the recorded status, up to the recorded pause', async () => {
    const control = {
      setClock: async () => {
        throw new Error('403 ADMIN_TOKEN_REQUIRED');
      },
    } as unknown as ControlClient;
    const clock = new ReplayClock(control, 'compare-1', () => {});
    await clock.start();
    await clock.before(0);
    await clock.before(400);
    const answers = ['PENDING', 'PROGRESS', 'PROGRESS', 'SUCCESS'];
    let sent = 1;
    const again = async () => answers[sent++]!;
    expect(await clock.settle('PENDING', again, (s) => s === 'SUCCESS')).toBe('SUCCESS');
    expect(sent).toBe(4);
    // Never past the recorded pause: a status that does not come is given up on.
    await clock.before(550);
    const t0 = performance.now();
    expect(
      await clock.settle(
        'PROGRESS',
        async () => 'PROGRESS',
        (s) => s === 'SUCCESS',
      ),
    ).toBe('PROGRESS');
    expect(performance.now() - t0).toBeLessThan(400);
  });

  it('a driven clock: the first answer stands', async () => {
    const control = { setClock: async () => {}, advanceClock: async () => {} } as unknown as ControlClient;
    const clock = new ReplayClock(control, 'compare-1', () => {});
    await clock.start();
    await clock.before(0);
    await clock.before(5000);
    let sent = 0;
    const again = async () => {
      sent++;
      return 'SUCCESS';
    };
    expect(await clock.settle('PROGRESS', again, (s) => s === 'SUCCESS')).toBe('PROGRESS');
    expect(sent).toBe(0);
  });
});
