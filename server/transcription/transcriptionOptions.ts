import type { ClockOf } from '../core/clock.js';
import type { PartnerApp } from '../domain/apps.js';
import type { FileSource } from '../domain/fileSource.js';
import type { Override, TaskRecord, Transcript } from './model.js';

/** What the transcription service is told of the rest of the simulator. */
export interface TranscriptionOptions {
  /** Resolves `file_url`s on the simulator's own storage (absent: every URL is external). */
  files?: FileSource;
  /**
   * Consulted once per submission (fault rules of the control API): the state the new task
   * of this app ends in, or stays in, instead of SUCCESS.
   */
  outcomeFor?: (clientId: string) => Promise<Override | undefined>;
  /** Each app's clock (progress follows the clock of the task's app); default: the instance clock. */
  clockOf?: ClockOf;
  /** The transcript attached to audio with this MD5, if any (control API, fixture sidecars). */
  transcriptFor?: (md5: string) => Promise<Transcript | undefined>;
  /** The app of a client id (its result shape for events); absent: the server's shape. */
  appOf?: (clientId: string) => PartnerApp | undefined;
  /** Told of each new task and each forced status (webhook events: taskEvents.ts). */
  events?: { submitted(rec: TaskRecord): Promise<void>; forced(rec: TaskRecord): Promise<void> };
}
