import { afterAll, beforeAll, describe, it, type TestContext } from 'vitest';
import { openTarget } from '../target/index.js';
import type { DeviceRef, DeviceState, Target } from '../target/types.js';
import { startRecording } from './record.js';
import { redact, redactError } from './redact.js';

/**
 * Tags (declared in vitest.config.ts):
 * - `live-safe`: reads, or creates only new throw-away resources; runs on live by default.
 * - `mutates`: changes existing real state (bind, unbind, sign); on live only with
 *   CONTRACT_ALLOW_MUTATIONS=1.
 * - `arranged`: needs the control API (force a binding state, move the clock, inject a
 *   fault); never on live.
 */
type Need = 'control' | 'mutates';

export interface ScenarioOptions {
  needs?: Need[];
  timeout?: number;
}

let current: Target | undefined;
/** Why the target could not be opened; every scenario of the file fails with it. */
let openError: Error | undefined;

/** Raised in each scenario when the target was not reachable or could not be opened. */
class TargetUnavailable extends Error {
  override name = 'TargetUnavailable';
}

/**
 * One file's suite: opens the target (a fresh app on simulators) and closes it afterwards. When
 * the runner's probe found the target unreachable (CONTRACT_UNREACHABLE), or opening it fails,
 * nothing is attempted and every scenario fails with that reason: a failed hook would make
 * vitest report the scenarios as skipped, which reads like a clean run.
 */
export function contractSuite(name: string, body: () => void): void {
  describe(name, () => {
    beforeAll(async () => {
      openError = undefined;
      const unreachable = process.env.CONTRACT_UNREACHABLE;
      if (unreachable) {
        openError = new TargetUnavailable(unreachable);
        return;
      }
      try {
        current = await openTarget();
      } catch (e) {
        const cause = (e as Error & { cause?: Error }).cause?.message;
        openError = new TargetUnavailable(
          redact(`could not open the target: ${(e as Error).message}${cause ? ` (${cause})` : ''}`),
        );
      }
    }, 30_000);
    afterAll(async () => {
      await current?.close();
      current = undefined;
    });
    body();
  });
}

function tagsFor(needs: Need[]): string[] {
  if (needs.includes('control')) return ['arranged'];
  if (needs.includes('mutates')) return ['mutates'];
  return ['live-safe'];
}

/**
 * A scenario: tagged by what it needs, and skipped at run time with the reason printed when
 * the target cannot provide it (so a live run outside the runner's tag filter is still safe).
 */
export function scenario(
  name: string,
  opts: ScenarioOptions,
  fn: (t: Target, ctx: TestContext) => Promise<void>,
): void {
  const needs = opts.needs ?? [];
  it(name, { tags: tagsFor(needs), ...(opts.timeout ? { timeout: opts.timeout } : {}) }, async (ctx) => {
    if (openError) throw openError;
    const t = current;
    if (!t) throw new TargetUnavailable('contract target is not open');
    startRecording(ctx.task.meta);
    if (needs.includes('control') && !t.control)
      ctx.skip(`needs the control API to arrange state; not available on the ${t.kind} target`);
    if (needs.includes('mutates') && !t.mutationsAllowed)
      ctx.skip('changes real device state; set CONTRACT_ALLOW_MUTATIONS=1 to run it on live');
    // A failed expect would otherwise print the values it compared (tokens included).
    await fn(t, ctx).catch((e: unknown) => {
      throw redactError(e);
    });
  });
}

/** A device in `state`, or skip the scenario with the reason (live: its env serial is unset). */
export async function deviceIn(t: Target, ctx: TestContext, state: DeviceState): Promise<DeviceRef> {
  const offer = await t.device(state);
  if ('skip' in offer) return ctx.skip(offer.skip);
  return offer.device;
}
