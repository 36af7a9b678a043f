import { setTimeout as sleep } from 'node:timers/promises';
import type { ControlClient } from '../embed/controlClient.js';

/** The longest real wait for one recorded pause when the target's clock cannot be driven. */
const MAX_REAL_WAIT_MS = 60_000;
/** How often a poll is sent again while the target has not yet reached the recorded status. */
const REPOLL_MS = 100;

/**
 * The recording's own timeline on the target. The throw-away app's clock is frozen at the
 * start and moved, before each exchange, by exactly the time between that exchange's start
 * and the previous one's in the recording: the app lives through the session's pauses (a
 * task's PENDING → PROGRESS → SUCCESS, a token's expiry) as the recording did, and the
 * replay's own speed (a busy target, a slow step) never leaks in, as a running clock's real
 * time did. A target whose clock cannot be driven is waited for in real time, up to the
 * recorded pause (at most a minute each); a poll is then sent again until it shows what the
 * recording saw, for up to that pause more (`settle`): the target's work runs on its own real
 * time, so a poll can land before a change of state the recording saw, and waiting the pause
 * alone reported drift that was only the replay's timing. The replay says so once.
 */
export class ReplayClock {
  private driven = true;
  private previous: number | undefined;
  private lastReal = 0;
  /** The recorded pause before the current exchange, when the clock is not driven: a poll's time to settle. */
  private settleMs = 0;

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
        `the target's clock cannot be driven (${(e as Error).message}): the replay waits each recorded pause in real time instead, up to ${MAX_REAL_WAIT_MS / 1000} s each, and sends a poll again until it shows the status the recording saw, up to the recorded pause more`,
      );
    }
  }

  /** Before the exchange that started at `startedAt` (ms) in the recording. */
  async before(startedAt: number): Promise<void> {
    const gap = this.previous === undefined ? 0 : startedAt - this.previous;
    this.previous = startedAt;
    this.settleMs = this.driven ? 0 : Math.min(MAX_REAL_WAIT_MS, Math.max(0, gap));
    if (gap >= 1) {
      if (this.driven) await this.control.advanceClock(gap, this.clientId);
      else await sleep(Math.max(0, Math.min(MAX_REAL_WAIT_MS, gap - (performance.now() - this.lastReal))));
    }
    this.lastReal = performance.now();
  }

  /**
   * A poll's answer on the recording's timeline. Driven, the first answer is it. Otherwise the
   * poll is sent again (`again`) every REPOLL_MS until `seen` says it shows the recorded
   * status, for up to the recorded pause before it; the next pause counts from the last send,
   * so the replay stays in step with the target's work once it has caught up with it.
   */
  async settle<T>(first: T, again: () => Promise<T>, seen: (answer: T) => boolean): Promise<T> {
    let answer = first;
    const until = performance.now() + this.settleMs;
    while (!seen(answer) && performance.now() < until) {
      await sleep(Math.min(REPOLL_MS, until - performance.now()));
      this.lastReal = performance.now();
      answer = await again();
    }
    return answer;
  }
}
