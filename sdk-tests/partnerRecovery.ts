import type { PartnerClient } from '../server/client/partnerClient.js';
import { fetchBinding } from '../server/client/recovery.js';
import type { EventName, EventPayloads, ScanDevice } from '../server/doubles/phone/types.js';

// A partner app's device-lock recovery, written as a partner writes it from the native
// template's algorithm (device-sdk-notes, "Recovery"): connect; when refused, query the cloud
// binding → stop on `true` → de-duplicate the history → at most 5 ids × recovery handshake
// (25 s each) → depair(false) → disconnect → rescan by serial (the MAC changed) → reconnect
// as the current user → cloud bind. It sees the device only through a bridge, so it runs the
// same against the React Native double and the Capacitor one.

/** What either bridge offers: RN's addListener returns a handle, Capacitor's a promise of one. */
export interface Bridge {
  addListener<K extends EventName>(name: K, cb: (data: EventPayloads[K]) => void): unknown;
  initSDK(o: { userAccessToken: string; customDomain: string; userId?: string }): Promise<void>;
  startScan(): Promise<void>;
  stopScan(): Promise<void>;
  connectBleDevice(o: { uuid?: string; serialNumber?: string }): Promise<void>;
  recoveryConnectBleDevice(device: ScanDevice, historicalId: string): Promise<void>;
  disconnect(): Promise<void>;
  depair(o?: { clear?: boolean }): Promise<void>;
}

export const MAX_IDS = 5;

async function on<K extends EventName>(sdk: Bridge, name: K, cb: (d: EventPayloads[K]) => void) {
  const handle = (await sdk.addListener(name, cb)) as { remove(): unknown };
  return async () => void (await handle.remove());
}

/** The first event among `names` that `pick` accepts, or undefined after `ms`. */
async function first<T>(
  sdk: Bridge,
  names: EventName[],
  pick: (name: EventName, d: never) => T | undefined,
  ms: number,
  start: () => Promise<void>,
) {
  let done: (v: T | undefined) => void = () => {};
  const result = new Promise<T | undefined>((resolve) => {
    done = resolve;
  });
  const removers = await Promise.all(
    names.map((n) =>
      on(sdk, n, (d) => {
        const v = pick(n, d as never);
        if (v !== undefined) done(v);
      }),
    ),
  );
  const timer = setTimeout(() => done(undefined), ms);
  try {
    await start();
    return await result;
  } finally {
    clearTimeout(timer);
    await Promise.all(removers.map((r) => r()));
  }
}

async function scanFor(sdk: Bridge, sn: string, ms = 20_000): Promise<ScanDevice | undefined> {
  // A device in a scanResult, or null when the scan window ends without it.
  const found = await first(
    sdk,
    ['scanResult', 'scanTimeout'],
    (n, d: EventPayloads['scanResult']) =>
      n === 'scanTimeout' ? null : d.devices.find((x) => x.serialNumber === sn),
    ms,
    () => sdk.startScan(),
  );
  await sdk.stopScan();
  return found ?? undefined;
}

type Handshake = { bound: true } | { bound: false; reason: string | undefined };

/** Waits for `bind {status: 0}` (bound) or a dropped/failed link (refused), as the templates do. */
async function handshake(sdk: Bridge, start: () => Promise<void>, ms = 25_000): Promise<Handshake> {
  let reason: string | undefined;
  const stopFail = await on(sdk, 'connectFail', (d) => {
    reason = d.reason ?? undefined;
  });
  try {
    const r = await first(
      sdk,
      ['bind', 'connectState'],
      (n, d: EventPayloads['bind'] & EventPayloads['connectState']) => {
        if (n === 'bind') return d.status === 0 ? 'bound' : 'refused';
        return d.connected ? undefined : 'refused';
      },
      ms,
      start,
    );
    // Capacitor Android sends connectFail with the same tick as the failed state.
    await new Promise((resolve) => setTimeout(resolve, 0));
    return r === 'bound' ? { bound: true } : { bound: false, reason: reason ?? (r ? undefined : 'TIMEOUT') };
  } finally {
    await stopFail();
  }
}

type Outcome =
  | 'unlocked'
  | 'refused'
  | 'no_history'
  | 'no_match'
  | 'not_needed'
  | 'not_found'
  | 'recording_now'
  | 'query_failed';
const MESSAGES: Record<Outcome, string> = {
  unlocked: 'unlocked: reconnected as the current user and bound in the cloud',
  refused: 'bound to another account; that owner must unbind it first',
  no_history: 'no bind history',
  no_match: 'none of the previous accounts matched the device lock',
  not_needed: 'connected without recovery',
  not_found: 'device not found by the scan',
  recording_now: 'the device is recording; stop it, then connect',
  query_failed: 'could not query the cloud binding state',
};

export interface RecoveryRun {
  outcome: Outcome;
  message: string;
  /** Historical ids tried with the recovery handshake. */
  tried: string[];
}

/** Connect to `sn` as the client's user, recovering a lock if the device refuses. */
export async function connectWithRecovery(
  sdk: Bridge,
  client: PartnerClient,
  sn: string,
  pause: (ms: number) => Promise<void> = (ms) => new Promise((r) => setTimeout(r, ms)),
): Promise<RecoveryRun> {
  const tried: string[] = [];
  const end = async (outcome: Outcome): Promise<RecoveryRun> => {
    if (outcome === 'unlocked' || outcome === 'not_needed') await client.bind(sn);
    return { outcome, message: MESSAGES[outcome], tried };
  };
  const device = await scanFor(sdk, sn);
  if (!device) return end('not_found');
  const direct = await handshake(sdk, () => sdk.connectBleDevice({ uuid: device.uuid }));
  if (direct.bound) return end('not_needed');
  await sdk.disconnect();
  // Only Capacitor Android relays why; elsewhere a busy recorder looks like a lock.
  if (direct.reason === 'RECORDING_NOW') return end('recording_now');

  let binding: Awaited<ReturnType<typeof fetchBinding>>;
  try {
    binding = await fetchBinding(client.api, await client.userToken(), sn);
  } catch {
    return end('query_failed');
  }
  if (binding?.is_bind === true) return end('refused');
  const ids = [...new Set(binding?.bind_history ?? [])];
  if (ids.length === 0) return end('no_history');
  for (const id of ids.slice(0, MAX_IDS)) {
    tried.push(id);
    const r = await handshake(sdk, () => sdk.recoveryConnectBleDevice(device, id));
    if (!r.bound) {
      await sdk.disconnect();
      await pause(1000);
      continue;
    }
    await first(
      sdk,
      ['depair'],
      () => true,
      5_000,
      () => sdk.depair({ clear: false }),
    );
    await sdk.disconnect();
    const again = await scanFor(sdk, sn);
    if (!again) return end('not_found');
    const mine = await handshake(sdk, () => sdk.connectBleDevice({ uuid: again.uuid }));
    return mine.bound ? end('unlocked') : end('no_match');
  }
  return end('no_match');
}
