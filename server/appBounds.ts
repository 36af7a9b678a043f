import type { Sweeper } from './core/housekeeper.js';
import type { Services } from './services.js';
import type { AppBound } from './store/appBound.js';

/**
 * Records one bound may remove per housekeeping tick. Larger than the sweeps' budget: a fleet
 * writes hundreds of records a second, and a bound that trims slower than traffic adds
 * would not hold (the write soak, bench/writeSoak.ts, measures it).
 */
const BOUND_BUDGET = 5000;

/** Every per-app bound of `--keep-per-app` (docs/configuration.md, "What an instance keeps"). */
function appBounds(s: Services): AppBound<unknown>[] {
  return [
    s.tokens.bound,
    s.storage.bounds.uploads,
    s.storage.bounds.files,
    s.transcriptions.bound,
    s.webhooks.deliveries.bound,
    s.devices.bound,
  ] as AppBound<unknown>[];
}

/**
 * The bounds as housekeeping sweepers, run on every tick (a minute between rounds would let
 * a minute of traffic pile up). Every app is looked at once at start-up, for what an earlier
 * run (or another instance) left over a bound that is smaller now.
 */
export function boundSweepers(s: Services): Sweeper[] {
  const bounds = appBounds(s);
  const apps = s.apps.list().map((a) => a.client_id);
  for (const b of bounds) b.touchAll(apps);
  return bounds.map((b) => ({
    name: b.name,
    everyTick: true,
    sweep: () => b.sweep(BOUND_BUDGET),
  }));
}
