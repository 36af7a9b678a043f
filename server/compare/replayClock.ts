import { setTimeout as sleep } from 'node:timers/promises';
import type { ControlClient } from '../embed/controlClient.js';

/** The longest real wait for one recorded pause when the target's clock cannot be driven. */
const MAX_REAL_WAIT_MS = 60_000;

/**
 * The recording's own timeline on the target. The throw-away app's clock is frozen at the
 * start and moved, before each exchange, by exactly the time between that exchange's start
 * and the previous one's in the recording: the app lives through the session's pauses (a
 * task's PENDING → PROGRESS → SUCCESS, a token's expiry) as the recording did, and the
 * replay's own speed (a busy target, a slow step) never leaks in, as a running clock's real
 * time did. A target whose clock cannot be driven is waited for in real time, up to the
 * recorded pause (at most a minute each), and the replay says so once.
 */
export class ReplayClock {
  private driven = true;
  private previous: number | undefined;
  private lastReal = 0;

  constructor(
    private readonly control: ControlClient,
    private readonly clientId: string,
    private readonly note: (message: string) => void,
  ) {}

  async start(): Promise<void> {
    try {
      await this.control.setClock({ freeze: true, client_id: this.clientId });
    } catch (e) {
      this.driven = false;
      this.note(
        `the target's clock cannot be driven (${(e as Error).message}): the replay waits each recorded pause in real time instead, up to ${MAX_REAL_WAIT_MS / 1000} s each`,
      );
    }
  }

  /** Before the exchange that started at `startedAt` (ms) in the recording. */
  async before(startedAt: number): Promise<void> {
    const gap = this.previous === undefined ? 0 : startedAt - this.previous;
    this.previous = startedAt;
    if (gap >= 1) {
      if (this.driven) await this.control.advanceClock(gap, this.clientId);
      else await sleep(Math.min(MAX_REAL_WAIT_MS, gap - (performance.now() - this.lastReal)));
    }
    this.lastReal = performance.now();
  }
}
