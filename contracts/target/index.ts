import { RateLimiter, sleep } from '../lib/rateLimit.js';
import { registerSecret } from '../lib/redact.js';
import { arrangeDevice, RunControl, uniqueIds } from './control.js';
import { interceptedRoute } from './proxy.js';
import { type LiveSettings, liveSettings, region, SERIAL_ENV, targetKind, urlSettings } from './settings.js';
import type { DeviceRef, Region, Target } from './types.js';

export type { Target } from './types.js';

const typeOf = (sn: string): DeviceRef['type'] => (sn.startsWith('882') ? 'notepins' : 'notepro');

/**
 * A target backed by a simulator (in-process or already running): a fresh app per test file
 * and unique serials and user ids per run, all arranged through the control API.
 */
async function simulatorTarget(
  kind: 'sim' | 'url',
  root: string,
  reg: Region,
  adminToken: string | undefined,
  close: () => Promise<void>,
): Promise<Target> {
  const control = new RunControl(`${root}/__admin`, reg, adminToken);
  const ids = uniqueIds();
  const serial = (type: DeviceRef['type']) => control.usedSerial(ids.serial(type));
  // No spacing between requests on a simulator; only a Retry-After it sends is honoured.
  const limiter = new RateLimiter(Number.POSITIVE_INFINITY);
  // Presigned URLs on an S3-shaped --storage-host go through the simulator's proxy.
  const connectionFor = await interceptedRoute(control.client, root);
  const app = await control.createApp({ client_id: ids.uniqueId('contract') });
  // Time moves for this run's app only: parallel runs on one simulator keep their own clocks.
  control.clockApp = app.client_id;
  registerSecret(app.secret_key);
  registerSecret(app.api_key);
  return {
    kind,
    region: reg,
    api: `${root}${reg === 'us' ? '' : `/${reg}`}/developer/api`,
    app,
    control,
    mutationsAllowed: true,
    userId: ids.uniqueId('user'),
    uniqueId: ids.uniqueId,
    device: (state) => arrangeDevice(control, serial, state),
    wait: (ms) => control.advanceClock(ms),
    connectionFor,
    throttle: () => limiter.take(),
    backOff: (retryAfter) => limiter.backOff(retryAfter, 1000, 5000),
    close: async () => {
      const problems = await control.cleanUp();
      await close();
      if (problems.length) throw new Error(`clean-up after the run failed:\n${problems.join('\n')}`);
    },
  };
}

function liveTarget(s: LiveSettings): Target {
  for (const secret of [s.secretKey, s.apiKey]) registerSecret(secret);
  const ids = uniqueIds();
  const limiter = new RateLimiter(s.ratePerSecond);
  return {
    kind: 'live',
    region: s.region,
    api: s.base,
    app: { client_id: s.clientId, secret_key: s.secretKey, api_key: s.apiKey },
    control: undefined,
    mutationsAllowed: s.allowMutations,
    userId: s.userId,
    uniqueId: ids.uniqueId,
    device: async (state) => {
      const sn = s.serials[state];
      if (sn) return { device: { type: typeOf(sn), sn } };
      // A serial nobody registered is, with overwhelming likelihood, unknown to the service.
      if (state === 'unknown') return { device: { type: 'notepro', sn: ids.serial('notepro') } };
      return { skip: `live target: set ${SERIAL_ENV[state]} to a test device in this state` };
    },
    wait: sleep,
    connectionFor: () => undefined,
    throttle: () => limiter.take(),
    backOff: (retryAfter) => limiter.backOff(retryAfter),
    close: async () => {},
  };
}

/** Open the target chosen by CONTRACT_TARGET (default `sim`). */
export async function openTarget(env: Record<string, string | undefined> = process.env): Promise<Target> {
  const kind = targetKind(env);
  if (kind === 'live') return liveTarget(liveSettings(env));
  if (kind === 'url') {
    const s = urlSettings(env);
    return simulatorTarget('url', s.root, s.region, s.adminToken, async () => {});
  }
  // The in-process simulator is imported lazily so url/live runs never load it. Response
  // validation is off: the suite's own checks must be what catches a broken response.
  const { startTestServer } = await import('../../server/testing/testServer.js');
  const reg = region(env);
  // EU and SG are opt-in on a simulator (--regions): the in-process one serves the region asked.
  const regions = reg === 'us' || reg === 'jp' ? undefined : (['us', 'jp', reg] as const);
  const sim = await startTestServer({ validateResponses: false, ...(regions ? { regions } : {}) });
  return simulatorTarget('sim', sim.url, reg, undefined, () => sim.stop());
}
