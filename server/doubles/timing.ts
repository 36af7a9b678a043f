/**
 * How long the double's radio takes. `hardware` is what a phone shows (scan results over a
 * few hundred ms, a handshake in about a second, a lock refused after the platform's timeout);
 * `instant` keeps every step asynchronous and in the same order but waits for nothing, for
 * unit tests. A function is called for every wait instead: pass one that advances the
 * simulator's clock (`POST /__admin/clock {advance_ms}`) and the device's waits follow the
 * app's simulated clock, as the rest of the simulator does.
 */
export type Sleep = (ms: number) => Promise<void>;
export type Timing = 'hardware' | 'instant' | Sleep;

/** Every wait the double makes, in milliseconds of hardware time. */
export const HARDWARE_MS = {
  /** First scan result after startScan, then a cumulative repeat each `scanRepeat`. */
  scanFirst: 300,
  scanRepeat: 1000,
  /** The scan window: scanTimeout {} when it ends (a documented choice; unmeasured). */
  scanWindow: 30_000,
  /** Bluetooth never powered on (no initSDK): ~60 polls of 300 ms, as both bridges do. */
  poweredOnWait: 18_000,
  /** connectState 1 (radio link) after a connect call. */
  radioLink: 400,
  /** bind {status: 0} after the radio link. */
  handshake: 600,
  /** iOS: a refused handshake drops the link (state 0) this long after state 1. */
  iosRefusalDrop: 1100,
  /** Android: a handshake that never completes fails (state 2) after the SDK's timeout. */
  androidHandshakeTimeout: 10_000,
  depair: 500,
  fileList: 300,
  /** Per progress step of an export (five steps). */
  exportStep: 200,
  disconnect: 100,
} as const;
export type WaitName = keyof typeof HARDWARE_MS;

export interface Waits {
  /** Wait the named interval. */
  wait(name: WaitName): Promise<void>;
  /** true when no real time passes (scan repeats collapse to one result). */
  instant: boolean;
}

const realSleep: Sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
// A macrotask, not a microtask: events still arrive after the call that caused them returns.
const tick: Sleep = () => new Promise((resolve) => setTimeout(resolve, 0));

export function waitsFor(timing: Timing = 'hardware'): Waits {
  if (timing === 'instant') return { wait: () => tick(0), instant: true };
  const sleep = timing === 'hardware' ? realSleep : timing;
  return { wait: (name) => sleep(HARDWARE_MS[name]), instant: false };
}
