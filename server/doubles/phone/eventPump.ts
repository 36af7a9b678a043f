import type { Emit } from './handshakeShow.js';
import { type EventPage, isProtocol, type PhoneClient } from './phoneClient.js';
import { HOLD_MS, type Reporter, release, SimulatorUnreachable } from './reachability.js';
import type { EventName, EventPayloads, PenState, Platform } from './types.js';

/**
 * The phone's bridge events, polled from the device protocol (`GET …/events?after=`) and
 * emitted in order. The protocol schedules them on the simulated clock; polling only decides
 * how soon after they are due the app hears them. `kick()` polls at once (after a call that
 * scheduled events), so `timing: 'instant'` tests do not wait for the interval.
 */
export interface Pump {
  kick(): void;
  stop(): void;
  /**
   * Whether a running scan's results hold the process: from startScan until the app acts on
   * them (connects, disconnects, stops the scan). A script awaiting a device needs them; a
   * scan left on behind a connection (the module's demo) must not outlive the script.
   */
  holdScan(on: boolean): void;
}

/**
 * penState's values are undocumented: what a connected, unlocked recorder reports here. Its
 * fields are the platform's: the iOS bridges always send seven (blePenState's findMyToken,
 * hasSndpKey and deviceAccessToken too), Android's callback carries four.
 */
export const penStateFor = (platform: Platform): PenState =>
  platform === 'ios'
    ? { state: 1, privacy: 0, keyState: 0, uDisk: 0, findMyToken: 0, hasSndpKey: 0, deviceAccessToken: 0 }
    : { state: 1, privacy: 0, keyState: 0, uDisk: 0 };

/** A lost simulator is polled less and less often, up to this. */
const BACKOFF_MAX_MS = 5_000;

export function startPump(
  phone: PhoneClient,
  pollMs: number,
  penState: PenState,
  emit: Emit,
  seen: (e: { name: EventName; data: unknown }) => void,
  report: Reporter,
): Pump {
  let cursor = 0;
  let stopped = false;
  let running = false;
  let again = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let delay = pollMs;
  let hold = false;
  let scanHeld = false;
  let lastNow: number | undefined;
  const round = async () => {
    if (running) {
      again = true;
      return;
    }
    running = true;
    if (timer) clearTimeout(timer);
    try {
      do {
        again = false;
        const page = await phone.events(cursor);
        if (stopped) return;
        report.reached();
        delay = pollMs;
        cursor = page.cursor;
        for (const e of page.events) {
          const name = e.name as EventName;
          seen({ name, data: e.data });
          if (name === 'bind' && (e.data as { status?: number }).status === 0)
            emit('penState', { ...penState });
          emit(name, e.data as EventPayloads[typeof name]);
        }
        if (page.events.length === 500) again = true;
        hold = imminent(page, lastNow, scanHeld);
        lastNow = Date.parse(page.now);
      } while (again && !stopped);
    } catch (err) {
      hold = false;
      if (!stopped) report(err);
      // The phone is gone (a reset forgot it): nothing more will come; report it once.
      if (isProtocol(err, 404)) stopped = true;
      if (err instanceof SimulatorUnreachable) delay = Math.min(BACKOFF_MAX_MS, delay * 2);
    } finally {
      running = false;
      if (!stopped) {
        timer = setTimeout(round, delay);
        if (!hold) release(timer);
      }
    }
  };
  void round();
  return {
    kick: () => void round(),
    stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
    },
    holdScan(on) {
      scanHeld = on;
    },
  };
}

/**
 * Whether the next poll holds the process open: only for an answer the phone is about to get
 * on a running app clock (a handshake settling, a depair), or a scan's results the app has
 * not acted on yet. Idle listening (a record press may come any time), a scan left on behind
 * a connection (results until its window ends), a far event or a frozen clock never keep a
 * process alive.
 */
function imminent(page: EventPage, lastNow: number | undefined, scanHeld: boolean): boolean {
  const next = scanHeld ? page.next_at : page.next_answer_at;
  if (!next) return false;
  const now = Date.parse(page.now);
  const running = lastNow === undefined || now > lastNow;
  return running && Date.parse(next) - now <= HOLD_MS;
}
