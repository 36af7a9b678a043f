/**
 * A double runs inside a partner's process (a test runner, a dev build): when the simulator
 * goes away it must neither flood the output nor hold the process open. Network failures
 * become one `SimulatorUnreachable` (a one-line message, no stack), reported once until the
 * simulator answers again; background timers never keep the process alive unless something
 * the app started is due within a moment.
 */

/** The simulator could not be reached at all (stopped, wrong URL): not an answer of it. */
export class SimulatorUnreachable extends Error {
  override name = 'SimulatorUnreachable';
  constructor(
    readonly simulator: string,
    readonly reason: string,
  ) {
    super(`the simulator at ${simulator} is unreachable (${reason}); retrying in the background`);
  }
}

/** The short cause of a failed fetch: undici's `cause.code` (ECONNREFUSED, …) or its message. */
export function unreachable(url: string, e: unknown): SimulatorUnreachable {
  const cause = (e as { cause?: { code?: unknown; message?: unknown } })?.cause;
  const reason =
    typeof cause?.code === 'string'
      ? cause.code
      : typeof cause?.message === 'string'
        ? cause.message
        : e instanceof Error
          ? e.message
          : String(e);
  let origin = url;
  try {
    origin = new URL(url).origin;
  } catch {}
  return new SimulatorUnreachable(origin, reason.split('\n')[0]!);
}

/** Reports a lost simulator once per loss; everything else as it comes. */
export interface Reporter {
  (e: unknown): void;
  /** The simulator answered: a later loss is reported again. */
  reached(): void;
}

export function reportOnce(onError: (e: unknown) => void): Reporter {
  let lost = false;
  const report = ((e: unknown) => {
    if (e instanceof SimulatorUnreachable) {
      if (lost) return;
      lost = true;
    }
    onError(e);
  }) as Reporter;
  report.reached = () => {
    lost = false;
  };
  return report;
}

/** One line on stderr: the message, never a stack (the default onError). */
export const printOneLine = (e: unknown): void =>
  console.error(`partner-sim device double: ${(e instanceof Error ? e.message : String(e)).split('\n')[0]}`);

/** Waits and polls further off than this never hold a Node process open on their own. */
export const HOLD_MS = 3_000;

/** Lets the process exit while only this timer is left (Node); a browser's timer ids are numbers. */
export function release(timer: unknown): void {
  (timer as { unref?: () => void } | undefined)?.unref?.();
}
