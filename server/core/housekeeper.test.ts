import { afterEach, describe, expect, it, vi } from 'vitest';
import { SimClock } from './clock.js';
import { Housekeeper, type Sweeper } from './housekeeper.js';

/** A sweeper over a list of expiry times, recording each call. */
function listSweeper(expiries: number[]) {
  const calls: { now: number; budget: number }[] = [];
  const sweeper: Sweeper = {
    name: 'list',
    async sweep(now, budget) {
      calls.push({ now, budget });
      let removed = 0;
      for (let i = expiries.length - 1; i >= 0 && removed < budget; i--) {
        if (expiries[i]! <= now) {
          expiries.splice(i, 1);
          removed++;
        }
      }
      return removed;
    },
  };
  return { sweeper, calls, expiries };
}

function setup(expiries: number[], budget = 3) {
  let real = 1_000_000;
  const clock = new SimClock(0, () => real);
  const list = listSweeper(expiries);
  const errors: string[] = [];
  const failing: Sweeper = {
    name: 'broken',
    sweep: () => Promise.reject(new Error('disk gone')),
  };
  const hk = new Housekeeper(
    clock,
    [failing, list.sweeper],
    { tickMs: 10, everySimMs: 60_000, budget },
    (e, s) => errors.push(`${s}: ${(e as Error).message}`),
  );
  return {
    hk,
    clock,
    list,
    errors,
    advance: (ms: number) => {
      real += ms;
    },
  };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('Housekeeper', () => {
  it('sweeps on the simulated clock, at most budget items per tick, going on while behind', async () => {
    const { hk, clock, list, errors } = setup([500_000, 900_000, 1_000_000, 1_000_000, 1_000_000, 5_000_000]);
    expect(await hk.tick()).toBe(3); // five are stale; the budget takes three
    expect(errors).toEqual(['broken: disk gone']); // one failing sweeper stops no other
    expect(await hk.tick()).toBe(2); // left work behind: the next tick goes on at once
    expect(await hk.tick()).toBe(0); // nothing behind, a simulated minute not over: no scan
    expect(list.calls).toHaveLength(2);
    clock.setOffset(4_000_000); // the control API moves simulated time
    expect(await hk.tick()).toBe(1);
    expect(list.expiries).toEqual([]);
    expect(list.calls.at(-1)).toEqual({ now: 5_000_000, budget: 3 });
  });

  it('still sweeps each real minute while the pacing clock is frozen', async () => {
    let real = 0;
    const clock = new SimClock(0, () => 1_000_000, 1_000_000); // frozen at 1,000,000
    const swept: number[] = [];
    const sweeper: Sweeper = {
      name: 'apps',
      sweep: async () => {
        swept.push(real);
        return 0;
      },
    };
    const hk = new Housekeeper(
      clock,
      [sweeper],
      { tickMs: 1000, everySimMs: 60_000, budget: 3 },
      undefined,
      () => real,
    );
    await hk.tick();
    real += 30_000;
    await hk.tick(); // half a real minute, no simulated time: not due
    real += 30_000;
    await hk.tick(); // a real minute: due although the clock has not moved
    expect(swept).toEqual([0, 60_000]);
  });

  it('runs one round at a time: overlapping ticks share it', async () => {
    const { hk, list } = setup([1, 2]);
    const [a, b] = [hk.tick(), hk.tick()];
    expect(await a).toBe(2);
    expect(await b).toBe(2);
    expect(list.calls).toHaveLength(1);
  });

  it('ticks from its timer once started, and never after stop', async () => {
    vi.useFakeTimers();
    const { hk, list, advance } = setup([1]);
    await vi.advanceTimersByTimeAsync(100);
    expect(list.calls).toHaveLength(0); // not started: no timer at all
    hk.start();
    await vi.advanceTimersByTimeAsync(10);
    expect(list.calls).toHaveLength(1);
    advance(60_000);
    await hk.stop();
    await vi.advanceTimersByTimeAsync(100);
    expect(list.calls).toHaveLength(1);
  });
});

describe('every-tick sweepers', () => {
  it('run on each tick, rounds or not; the others only in rounds', async () => {
    const clock = new SimClock(0, () => 1_000_000);
    let eager = 0;
    let paced = 0;
    const hk = new Housekeeper(
      clock,
      [
        { name: 'eager', everyTick: true, sweep: async () => ++eager },
        { name: 'paced', sweep: async () => ++paced },
      ],
      { tickMs: 10, everySimMs: 60_000, budget: 5 },
      () => {},
      () => 1_000_000,
    );
    for (let i = 0; i < 3; i++) await hk.tick();
    // The first tick is a round (both ran); the next two are not rounds: only the eager one.
    expect({ eager, paced }).toEqual({ eager: 3, paced: 1 });
  });
});
