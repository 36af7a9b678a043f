import type { Emit } from './handshakeShow.js';
import { isProtocol, type PhoneClient } from './phoneClient.js';
import type { EventName, EventPayloads } from './types.js';

/**
 * The phone's bridge events, polled from the device protocol (`GET …/events?after=`) and
 * emitted in order. The protocol schedules them on the simulated clock; polling only decides
 * how soon after they are due the app hears them. `kick()` polls at once (after a call that
 * scheduled events), so `timing: 'instant'` tests do not wait for the interval.
 */
export interface Pump {
  kick(): void;
  stop(): void;
}

// penState's fields are undocumented: what a connected, unlocked recorder reports here.
const PEN_STATE = { state: 1, privacy: 0, keyState: 0, uDisk: 0 };

export function startPump(
  phone: PhoneClient,
  pollMs: number,
  emit: Emit,
  seen: (e: { name: EventName; data: unknown }) => void,
  onError: (e: unknown) => void,
): Pump {
  let cursor = 0;
  let stopped = false;
  let running = false;
  let again = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
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
        cursor = page.cursor;
        for (const e of page.events) {
          const name = e.name as EventName;
          seen({ name, data: e.data });
          if (name === 'bind' && (e.data as { status?: number }).status === 0)
            emit('penState', { ...PEN_STATE });
          emit(name, e.data as EventPayloads[typeof name]);
        }
        if (page.events.length === 500) again = true;
      } while (again && !stopped);
    } catch (err) {
      if (!stopped) onError(err);
      // The phone is gone (a reset forgot it): nothing more will come; report it once.
      if (isProtocol(err, 404)) stopped = true;
    } finally {
      running = false;
      if (!stopped) timer = setTimeout(round, pollMs);
    }
  };
  void round();
  return {
    kick: () => void round(),
    stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
    },
  };
}
