import { createReadStream } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import type { Logger } from 'pino';
import type { Collection } from '../store/store.js';
import { probeAudio } from './audio.js';
import { type EngineAudio, EngineError } from './engineClient.js';
import { type EngineSettings, type EngineWork, planEngine } from './engineWork.js';
import { type FetchedAudio, fetchAudio } from './externalAudio.js';
import type { AudioInfo, TaskRecord } from './model.js';

/** What fetching a task's external audio found out: its source and audio, and the file if kept. */
interface FetchOutcome {
  source: TaskRecord['source'];
  audio?: AudioInfo;
  /** The downloaded bytes (a temporary file the caller removes), when they are audio. */
  file?: FetchedAudio;
}

/**
 * Fetch and read a task's external `file_url`: its MD5 (for attached transcripts and engine
 * answers) and real duration; a fetch that fails makes the task fail as an unreadable input
 * does on live, with the reason.
 */
async function fetchForTask(fileUrl: string, allowPrivate: boolean): Promise<FetchOutcome> {
  let file: FetchedAudio;
  try {
    file = await fetchAudio(fileUrl, { allowPrivate });
  } catch (e) {
    return {
      source: {
        kind: 'unavailable',
        message: `The audio file could not be downloaded: ${(e as Error).message}`,
      },
    };
  }
  const audio = await probeAudio({
    filetype: file.filetype,
    size: file.size,
    path: file.path,
    open: () => createReadStream(file.path),
  });
  const source: TaskRecord['source'] = {
    kind: 'fetched',
    md5: file.md5,
    filetype: file.filetype,
    size: file.size,
  };
  if (!audio.ok) {
    await rm(file.path, { force: true });
    return { source, audio };
  }
  return { source, audio, file };
}

/**
 * The fetches of tasks' external audio, in the background (never on a request): one per task
 * at a time; the downloaded file is kept for the task's engine, then removed. A task whose
 * fetch a restart interrupted is fetched again at its next poll.
 */
export class ExternalFetches {
  private readonly inFlight = new Set<string>();
  private readonly kept = new Map<string, FetchedAudio>();

  constructor(
    private readonly tasks: Collection<TaskRecord>,
    private readonly allowPrivate: boolean,
    private readonly engines: EngineWork,
    private readonly logger: Logger,
  ) {}

  /** The downloaded file of a task, while its engine may need it. */
  fileOf(id: string): EngineAudio | undefined {
    const f = this.kept.get(id);
    return f ? { filetype: f.filetype, path: f.path } : undefined;
  }

  start(rec: TaskRecord, engine: EngineSettings | undefined): void {
    const id = rec.transcription_id;
    if (!rec.fetching || this.inFlight.has(id)) return;
    this.inFlight.add(id);
    this.run(id, rec.file_url, engine)
      .catch((e: Error) => this.logger.warn({ err: e, transcription_id: id }, 'fetching audio failed'))
      .finally(() => this.inFlight.delete(id));
  }

  private async run(id: string, url: string, engine: EngineSettings | undefined): Promise<void> {
    const got = await fetchForTask(url, this.allowPrivate);
    const next = await this.tasks.update(id, (cur) => {
      if (!cur) return { result: undefined };
      const { fetching: _done, ...rest } = cur;
      const rec: TaskRecord = { ...rest, source: got.source, ...(got.audio ? { audio: got.audio } : {}) };
      if (engine && got.audio?.ok && got.source.kind === 'fetched')
        rec.engine = planEngine(got.source.md5, cur.params, engine);
      return { next: rec, result: rec };
    });
    if (!got.file) return;
    try {
      if (next?.engine) {
        this.kept.set(id, got.file);
        await this.engines.kick(next);
      }
    } finally {
      this.kept.delete(id);
      await rm(got.file.path, { force: true });
    }
  }
}

/** A fetched task's audio again, for its engine after a restart lost the downloaded file. */
export async function refetchedAudio(url: string, allowPrivate: boolean): Promise<EngineAudio> {
  const file = await fetchAudio(url, { allowPrivate }).catch((e: Error) => {
    throw new EngineError(`the audio file could not be downloaded again: ${e.message}`);
  });
  try {
    return { filetype: file.filetype, bytes: await readFile(file.path) };
  } finally {
    await rm(file.path, { force: true });
  }
}
