import type { Emit } from './handshakeShow.js';
import type { DeviceLink, RadioEvent } from './link.js';

/**
 * While a device is connected, what happens on it (record pressed, stopped, paused, resumed)
 * reaches the app as events. The radio is polled every `pollMs` of real time: polling is how
 * the double hears the device, not a device timing, so it does not follow the simulated clock.
 */
export interface Pump {
  stop(): void;
}

export function startPump(
  link: DeviceLink,
  sn: string,
  userToken: string,
  pollMs: number,
  emit: Emit,
  onError: (e: unknown) => void,
): Pump {
  let stopped = false;
  let cursor: string | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const round = async () => {
    try {
      const got = await link.events(sn, userToken, cursor);
      if (stopped) return;
      cursor = got.cursor;
      for (const e of got.events) emitRadioEvent(e, emit);
    } catch (e) {
      if (!stopped) onError(e);
    }
    if (!stopped) timer = setTimeout(round, pollMs);
  };
  void round();
  return {
    stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
    },
  };
}

/**
 * `start` and `status` are undocumented: `start` is sent as the start time in seconds and
 * `status` as 0 (a documented choice; see docs/virtual-devices.md).
 */
function emitRadioEvent(e: RadioEvent, emit: Emit): void {
  if ('fileSize' in e) {
    emit(e.type, {
      sessionId: e.sessionId,
      reason: e.reason,
      fileExist: e.fileSize > 0,
      fileSize: e.fileSize,
    });
    return;
  }
  const base = {
    sessionId: e.sessionId,
    start: Math.floor(e.startTime / 1000),
    status: 0,
    scene: e.scene,
    startTime: e.startTime,
  };
  if (e.type === 'recordStart') emit('recordStart', { ...base, reason: e.reason ?? 0 });
  else emit('recordResume', base);
}
