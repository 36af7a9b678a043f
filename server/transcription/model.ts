import type { components as AdminSchemas } from '../spec/admin-types.js';
import type { components } from '../spec/api-types.js';

type Schemas = components['schemas'];
export type TranscriptionStatus = Schemas['TranscriptionStatus'];
/** `params` as a client may send it: every member optional (the generated type marks members
 * with a default as required, which is true of what the server uses, not of what it gets). */
export type TranscriptionParams = {
  [K in keyof Schemas['TranscriptionParams']]?: Partial<NonNullable<Schemas['TranscriptionParams'][K]>>;
};
export type SpecResult = Schemas['TranscriptionResult'];
export type LiveResult = Schemas['LiveTranscriptionResult'];
export type TaskBody = Schemas['TranscriptionTask'];
export type AdminTask = AdminSchemas['schemas']['AdminTranscription'];
export type Result = SpecResult | LiveResult;
export type ResultShape = AdminSchemas['schemas']['ResultShape'];
/** A transcript attached to audio (control API or fixture sidecar). */
export type Transcript = AdminSchemas['schemas']['Transcript'];
export type AttachedTranscript = AdminSchemas['schemas']['AttachedTranscript'];

/** `params` with every default of openapi.yaml applied: what a task is processed with. */
export interface Params {
  language: string;
  model: string;
  decode_silence: boolean;
  diarization: boolean;
  return_embedding: boolean;
}

const DEFAULT_MODEL = 'svc-fast-whisper';

export function normalizeParams(p: TranscriptionParams | undefined): Params {
  return {
    language: p?.transcribe?.language ?? 'auto',
    model: p?.transcribe?.model ?? DEFAULT_MODEL,
    decode_silence: p?.vad?.decode_silence ?? false,
    diarization: p?.diarization?.enabled ?? false,
    return_embedding: p?.diarization?.return_embedding ?? false,
  };
}

/** A status set from outside the timeline (fault rule at submission, or the control API). */
export interface Override {
  status: TranscriptionStatus;
  message?: string;
}

/** What the audio turned out to be, once read. */
export type AudioInfo = { ok: true; duration_s: number } | { ok: false; message: string };

/**
 * A task as stored. Only facts are kept (when it was submitted, what the file was, what was
 * forced); the status is computed on every read from these and the clock, so a restart or a
 * clock jump needs no catching up.
 */
export interface TaskRecord {
  transcription_id: string;
  client_id: string;
  file_url: string;
  params: Params;
  created_ms: number;
  /**
   * The file as the submission found it: on the simulator's storage (`md5` of its bytes),
   * elsewhere on the internet (`external`, never fetched), or unusable (`message` why).
   */
  source:
    | { kind: 'storage'; file_id: string; md5: string; filetype: string; size: number }
    | { kind: 'external' }
    /** An external URL fetched (--fetch-external-audio): the MD5 and size of what came back. */
    | { kind: 'fetched'; md5: string; filetype: string; size: number }
    | { kind: 'unavailable'; message: string };
  /** Filled once the audio was read (storage files, and fetched ones). */
  audio?: AudioInfo;
  /** An external URL is being fetched (--fetch-external-audio): the task waits for it. */
  fetching?: true;
  /** Fault-rule outcome: the state the task ends in (or stays in) instead of SUCCESS. */
  outcome?: Override;
  /** Control-API pin: the status from now on, whatever the timeline says. */
  pinned?: Override;
  /** When the pin was set (a pinned final status starts the retention period then). */
  pinned_ms?: number;
  /**
   * A speech engine gets this task's audio (--transcriber or the app's `transcriber`): what
   * to ask it, fixed at submission (engineWork.ts). The task cannot succeed before it answered.
   */
  engine?: {
    /** The answer's key in `engineResults`: audio MD5 and every setting that changes the answer. */
    key: string;
    md5: string;
    url: string;
    model: string;
    timeout_ms: number;
    /** ISO-639-1; absent: the engine detects it. */
    language?: string;
    diarize_url?: string;
  };
  /** When (on the app's clock) the engine finished, and why it failed if it did. */
  engine_done?: { at_ms: number; failure?: string };
}
