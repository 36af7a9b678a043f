import { type Backoff, fullJitter, isTransient, realSleep, retryAfterMs } from './backoff.js';
import { apiKeyHeaders, type ClientApp, type TranscriptionTask, taskUrl } from './transcription.js';

/**
 * The reference transcription poller: exponential back-off with full jitter between polls, a
 * hard deadline (no wait, and no request, runs past it), transient errors (5xx, 429, dropped
 * or hung connections) retried within the deadline, and the terminal failures `FAILURE` and
 * `REVOKED` reported as errors carrying the service's message. It depends only on the
 * generated API types (through ./transcription.ts).
 */

export interface PollerOptions {
  /** Total time allowed, ms, from the first poll. */
  deadlineMs: number;
  backoff?: Backoff;
  /** The client's clock (ms) and how it waits; a test may drive both. */
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
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

/** The deadline passed before a terminal status; `last` is what the last good poll said. */
export class PollDeadlineExceeded extends Error {
  constructor(
    readonly last: string | undefined,
    readonly polls: number,
  ) {
    super(`transcription still ${last ?? 'unknown'} at the deadline after ${polls} polls`);
    this.name = 'PollDeadlineExceeded';
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

export async function pollTranscription(
  api: string,
  app: ClientApp,
  id: string,
  opts: PollerOptions,
): Promise<PollResult> {
  const now = opts.now ?? Date.now;
  const sleep = opts.sleep ?? realSleep;
  const backoff = opts.backoff ?? { baseMs: 500, capMs: 5000 };
  const end = now() + opts.deadlineMs;
  const url = taskUrl(api, id);
  const headers = apiKeyHeaders(app);
  const seen: string[] = [];
  let polls = 0;
  let transientErrors = 0;
  for (let attempt = 0; ; attempt++) {
    const left = end - now();
    if (left <= 0) throw new PollDeadlineExceeded(seen.at(-1), polls);
    polls++;
    let floor = 0;
    try {
      // The request itself may not outlive the deadline either (a hung server).
      const res = await fetch(url, { headers, signal: AbortSignal.timeout(left) });
      const text = await res.text();
      if (res.ok) {
        const task = JSON.parse(text) as TranscriptionTask;
        if (seen.at(-1) !== task.status) seen.push(task.status);
        if (task.status === 'SUCCESS') return { task, seen, polls, transientErrors };
        if (task.status === 'FAILURE' || task.status === 'REVOKED') throw new TranscriptionFailed(task);
      } else if (isTransient(res.status)) {
        transientErrors++;
        floor = retryAfterMs(res.headers) ?? 0;
      } else throw new Error(`GET ${url}: ${res.status} ${text}`);
    } catch (e) {
      // Dropped, hung or truncated answers are worth another poll; anything else is a bug.
      if (
        e instanceof TranscriptionFailed ||
        !(e instanceof TypeError || e instanceof SyntaxError || isAbort(e))
      )
        throw e;
      transientErrors++;
    }
    const wait = Math.min(Math.max(floor, fullJitter(attempt, backoff)), end - now());
    if (wait > 0) await sleep(wait);
  }
}

const isAbort = (e: unknown): boolean =>
  e instanceof Error && (e.name === 'TimeoutError' || e.name === 'AbortError');
