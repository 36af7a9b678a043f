import { type Backoff, fullJitter, isAbort, isTransient, retryAfterMs, sleep } from './retry.js';
import { apiKeyHeaders, type ClientApp, type TranscriptionTask, taskUrl } from './transcription.js';

/**
 * Polling with exponential back-off and full jitter under a hard deadline: no wait, and no
 * request, runs past it. Elapsed time is the larger of the clock's and the sum of the waits,
 * so a caller whose `sleep` is virtual (moving a simulator's clock) still ends.
 */
export interface PollOptions {
  /** Total time allowed, ms, from the first poll. */
  deadlineMs: number;
  backoff?: Backoff;
  /** The client's clock (ms) and how it waits; a test may drive both. */
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
  /** Named in the timeout message. */
  what?: string;
}

/** The deadline passed before `done`; `last` describes what the last poll said. */
export class PollDeadlineExceeded extends Error {
  constructor(
    readonly last: string | undefined,
    readonly polls: number,
    what = 'poll',
  ) {
    super(`${what}: still ${last ?? 'unknown'} at the deadline after ${polls} polls`);
    this.name = 'PollDeadlineExceeded';
  }
}

/** One poll's outcome: a value, or a transient miss (with the server's Retry-After floor). */
export type Attempt<T> = { value: T } | { transient: true; floorMs?: number };

/**
 * Run `attempt(leftMs)` until `done(value)`. `describe` says what the last value was for the
 * timeout message (default: its JSON, shortened).
 */
export async function pollUntil<T>(
  attempt: (leftMs: number) => Promise<Attempt<T>>,
  done: (value: T) => boolean,
  opts: PollOptions & { describe?: (value: T) => string | undefined },
): Promise<{ value: T; polls: number; transient: number }> {
  const now = opts.now ?? Date.now;
  const wait = opts.sleep ?? sleep;
  const backoff = opts.backoff ?? { baseMs: 500, capMs: 5000 };
  const describe = opts.describe ?? ((v: T) => JSON.stringify(v)?.slice(0, 300));
  const start = now();
  let waited = 0;
  let last: string | undefined;
  let transient = 0;
  const left = () => opts.deadlineMs - Math.max(now() - start, waited);
  for (let polls = 1; ; polls++) {
    const o = await attempt(Math.max(1, left()));
    let floor = 0;
    if ('value' in o) {
      if (done(o.value)) return { value: o.value, polls, transient };
      last = describe(o.value);
    } else {
      transient++;
      floor = o.floorMs ?? 0;
    }
    const remaining = left();
    if (remaining <= 0) throw new PollDeadlineExceeded(last, polls, opts.what);
    const delay = Math.min(remaining, Math.max(1, floor, fullJitter(polls - 1, backoff)));
    await wait(delay);
    waited += delay;
    if (left() <= 0) throw new PollDeadlineExceeded(last, polls, opts.what);
  }
}

/** The task ended in FAILURE or REVOKED. */
export class TranscriptionFailed extends Error {
  constructor(readonly task: TranscriptionTask) {
    super(`transcription ${task.transcription_id} ${task.status}: ${task.message ?? 'no reason given'}`);
    this.name = 'TranscriptionFailed';
  }
  get status(): 'FAILURE' | 'REVOKED' {
    return this.task.status as 'FAILURE' | 'REVOKED';
  }
}

/** A poll answered with a client error (unknown task, bad key): polling again cannot help. */
export class PollRefused extends Error {
  constructor(
    readonly status: number,
    readonly body: string,
  ) {
    super(`transcription poll: HTTP ${status} ${body}`);
    this.name = 'PollRefused';
  }
}

export interface PollResult {
  task: TranscriptionTask;
  /** Distinct statuses in the order seen. */
  seen: string[];
  polls: number;
  /** Polls that failed transiently and were retried. */
  transientErrors: number;
}

/**
 * Poll a transcription to SUCCESS: transient errors (5xx, 429, dropped, hung or truncated
 * answers) are retried within the deadline; FAILURE and REVOKED throw TranscriptionFailed
 * with the service's message; `onStatus` hears every status seen.
 */
export async function pollTranscription(
  api: string,
  app: ClientApp,
  id: string,
  opts: PollOptions & { onStatus?: (status: string) => void },
): Promise<PollResult> {
  const url = taskUrl(api, id);
  const headers = apiKeyHeaders(app);
  const seen: string[] = [];
  const r = await pollUntil<TranscriptionTask>(
    async (leftMs) => {
      try {
        // The request itself may not outlive the deadline either (a hung server).
        const res = await fetch(url, { headers, signal: AbortSignal.timeout(leftMs) });
        const text = await res.text();
        if (res.ok) {
          const task = JSON.parse(text) as TranscriptionTask;
          if (seen.at(-1) !== task.status) seen.push(task.status);
          opts.onStatus?.(task.status);
          if (task.status === 'FAILURE' || task.status === 'REVOKED') throw new TranscriptionFailed(task);
          return { value: task };
        }
        if (isTransient(res.status)) return { transient: true, floorMs: retryAfterMs(res.headers) ?? 0 };
        throw new PollRefused(res.status, text);
      } catch (e) {
        // Dropped, hung or truncated answers are worth another poll; anything else is not.
        if (e instanceof TypeError || e instanceof SyntaxError || isAbort(e)) return { transient: true };
        throw e;
      }
    },
    (task) => task.status === 'SUCCESS',
    { what: `transcription ${id}`, ...opts, describe: (t) => t.status },
  );
  return { task: r.value, seen, polls: r.polls, transientErrors: r.transient };
}
