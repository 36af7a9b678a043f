import type { Override, TranscriptionStatus } from './model.js';

/**
 * The task state machine, as a pure function of elapsed time: no timers, so a restart or a
 * clock jump (POST /__admin/clock) gives the right status at once.
 *
 *   PENDING → RECEIVED → STARTED → PROGRESS → SUCCESS          (the normal path)
 *   PENDING → RECEIVED → FAILURE                               (input unusable: missing or
 *                                                               expired file, not audio)
 *   … → FAILURE | REVOKED at the end, or stuck in one state    (fault-rule outcome)
 *   anything → the pinned status                               (control API)
 */
const ORDER: readonly TranscriptionStatus[] = ['PENDING', 'RECEIVED', 'STARTED', 'PROGRESS', 'SUCCESS'];

/** Where each phase starts, as a fraction of the total time. */
const PHASES: ReadonlyArray<readonly [TranscriptionStatus, number]> = [
  ['RECEIVED', 0.1],
  ['STARTED', 0.25],
  ['PROGRESS', 0.4],
  ['SUCCESS', 1],
];

/** 'auto': 3 s plus 0.2 s per second of audio, at most 60 s — a few seconds for short clips. */
const AUTO_BASE_MS = 3000;
const AUTO_PER_AUDIO_S_MS = 200;
export const AUTO_MAX_MS = 60_000;

export function totalMs(delay: number | 'auto', durationS: number): number {
  if (delay !== 'auto') return delay;
  return Math.min(AUTO_MAX_MS, Math.round(AUTO_BASE_MS + AUTO_PER_AUDIO_S_MS * durationS));
}

/** When (ms after submission) a status begins on the normal path. */
export function phaseStartMs(status: TranscriptionStatus, total: number): number {
  if (status === 'PENDING') return 0;
  const phase = PHASES.find(([s]) => s === status);
  return phase ? Math.round(phase[1] * total) : total;
}

const DEFAULT_MESSAGES: Partial<Record<TranscriptionStatus, string>> = {
  FAILURE: 'Transcription failed.',
  REVOKED: 'The task was revoked.',
};

export interface TimelineInput {
  elapsedMs: number;
  totalMs: number;
  /** Why the input is unusable, if it is: the task fails when processing would start. */
  failure?: string;
  /** Fault-rule outcome: end in this state instead of SUCCESS (or stay in a running state). */
  outcome?: Override;
  /** Control-API pin: wins over everything. */
  pinned?: Override;
  /** When (ms after submission) the pin was set. */
  pinnedAtMs?: number;
  /**
   * A speech engine works on the audio: the task stays in PROGRESS until it answered
   * (`doneMs` after submission), then succeeds, or fails with `failure`.
   */
  engine?: { doneMs?: number; failure?: string };
}

export interface StatusView {
  status: TranscriptionStatus;
  /** Only on FAILURE / REVOKED. */
  message?: string;
}

function withMessage(status: TranscriptionStatus, ...candidates: (string | undefined)[]): StatusView {
  if (status !== 'FAILURE' && status !== 'REVOKED') return { status };
  return { status, message: candidates.find((m) => m !== undefined) ?? DEFAULT_MESSAGES[status] };
}

export function statusAt(input: TimelineInput): StatusView {
  const { elapsedMs, totalMs: total, failure, outcome, pinned } = input;
  if (pinned) return withMessage(pinned.status, pinned.message, failure);
  let natural: TranscriptionStatus = 'PENDING';
  for (const [status] of PHASES) if (elapsedMs >= phaseStartMs(status, total)) natural = status;
  const stuck = outcome && ORDER.includes(outcome.status) ? outcome.status : undefined;
  if (stuck && ORDER.indexOf(natural) > ORDER.indexOf(stuck)) natural = stuck;
  if (failure !== undefined && ORDER.indexOf(natural) >= ORDER.indexOf('STARTED'))
    return withMessage('FAILURE', failure);
  const engine = input.engine;
  if (engine && natural === 'SUCCESS') {
    if (engine.doneMs === undefined || elapsedMs < engine.doneMs) natural = 'PROGRESS';
    else if (engine.failure !== undefined) return withMessage('FAILURE', engine.failure);
  }
  if (natural === 'SUCCESS' && outcome && !stuck) return withMessage(outcome.status, outcome.message);
  return { status: natural };
}

const FINAL = new Set<TranscriptionStatus>(['SUCCESS', 'FAILURE', 'REVOKED']);

/**
 * When (ms after submission) the task reached its final status, or undefined while it has
 * none to reach (pinned to, or stuck in, a running state, or waiting for its engine). A pinned
 * final status counts from the pin. On the timeline a task can only end where a phase starts,
 * at the end, or when its engine answered after that.
 */
export function completedAtMs(input: Omit<TimelineInput, 'elapsedMs'>): number | undefined {
  if (input.pinned) return FINAL.has(input.pinned.status) ? (input.pinnedAtMs ?? 0) : undefined;
  const total = input.totalMs;
  const engineDone = input.engine?.doneMs;
  const ends = [phaseStartMs('STARTED', total), total];
  if (engineDone !== undefined) ends.push(Math.max(total, engineDone));
  for (const at of ends) if (FINAL.has(statusAt({ ...input, elapsedMs: at }).status)) return at;
  return undefined;
}
