import { toIso } from '../core/clock.js';
import { SimError } from '../core/errors.js';
import type { Random } from '../core/random.js';
import type { PartnerApp } from '../domain/apps.js';
import type { FileSource } from '../domain/fileSource.js';
import type { CoreDeps, Lifecycle } from '../services.js';
import type { Collection } from '../store/store.js';
import { fallbackDuration, probeAudio } from './audio.js';
import {
  type AdminTask,
  type AudioInfo,
  type LiveResult,
  normalizeParams,
  type Override,
  type ResultShape,
  type SpecResult,
  type TaskBody,
  type TaskRecord,
  type TranscriptionParams,
  type TranscriptionStatus,
} from './model.js';
import { buildResult } from './results.js';
import { type StatusView, statusAt, totalMs } from './timeline.js';

export interface TranscriptionOptions {
  /** Resolves `file_url`s on the simulator's own storage (absent: every URL is external). */
  files?: FileSource;
  /**
   * Consulted once per submission (fault rules of the control API): the state the new task
   * of this app ends in, or stays in, instead of SUCCESS.
   */
  outcomeFor?: (clientId: string) => Override | undefined;
}

type StorageSource = Extract<TaskRecord['source'], { kind: 'storage' }>;

const notFound = () => SimError.notFound('TRANSCRIPTION_NOT_FOUND', 'No transcription task with this id.');
const RESULT_CACHE = 256;
/** Transcripts are test data, not secrets: without --seed they still follow the audio alone. */
const RESULT_SEED = 'partner-sim';
const AUDIO_CACHE = 1024;

/**
 * Transcription tasks: submission, status (computed, never scheduled — see timeline.ts),
 * deterministic results (results.ts) from the real audio duration (audio.ts).
 *
 * The audio of a storage file is read once, right after submission, without holding up the
 * answer; a poll that comes before the read finished (or after a restart interrupted it)
 * waits for it. Durations are cached by MD5, results by task and shape.
 */
export class TranscriptionService implements Lifecycle {
  private readonly tasks: Collection<TaskRecord>;
  private readonly random: Random;
  private readonly probes = new Map<string, Promise<TaskRecord | undefined>>();
  private readonly audioByMd5 = new Map<string, Promise<AudioInfo>>();
  private readonly results = new Map<string, SpecResult | LiveResult>();

  constructor(
    private readonly deps: CoreDeps,
    private readonly opts: TranscriptionOptions = {},
  ) {
    this.tasks = deps.store.collection<TaskRecord>('transcriptions');
    this.random = deps.random.fork('transcriptions');
  }

  /** Precedence: 'live' if the app's switch or --result-shape says so, else the spec shape. */
  shapeFor(app: PartnerApp): ResultShape {
    return app.result_shape === 'live' || this.deps.config.resultShape === 'live' ? 'live' : 'spec';
  }

  async submit(app: PartnerApp, req: { file_url: string; params?: TranscriptionParams }): Promise<TaskBody> {
    const found = this.opts.files?.lookup(req.file_url);
    const source: TaskRecord['source'] =
      found === undefined
        ? { kind: 'external' }
        : found.status === 'found'
          ? {
              kind: 'storage',
              file_id: found.file.file_id,
              md5: found.file.md5,
              filetype: found.file.filetype,
              size: found.file.size,
            }
          : { kind: 'unavailable', message: `The audio file could not be downloaded: ${found.reason}` };
    const outcome = this.opts.outcomeFor?.(app.client_id);
    const rec: TaskRecord = {
      transcription_id: this.random.uuid(),
      client_id: app.client_id,
      file_url: req.file_url,
      params: normalizeParams(req.params),
      created_ms: this.deps.clock.now(),
      source,
      ...(outcome ? { outcome } : {}),
    };
    await this.tasks.put(rec.transcription_id, rec);
    // Read the audio now, in the background: the answer does not wait for it.
    if (source.kind === 'storage')
      this.withAudio(rec).catch((e: Error) =>
        this.deps.logger.warn({ err: e, transcription_id: rec.transcription_id }, 'reading audio failed'),
      );
    return { transcription_id: rec.transcription_id, status: 'PENDING', data: {} };
  }

  async get(app: PartnerApp, id: string): Promise<TaskBody> {
    const stored = this.tasks.get(id);
    if (!stored || stored.client_id !== app.client_id) throw notFound();
    const rec = await this.withAudio(stored);
    const view = this.view(rec);
    const data = view.status === 'SUCCESS' ? await this.result(rec, this.shapeFor(app)) : {};
    return {
      transcription_id: id,
      status: view.status,
      data,
      ...(view.message ? { message: view.message } : {}),
    };
  }

  async list(clientId?: string): Promise<AdminTask[]> {
    const recs =
      clientId === undefined ? this.tasks.list() : this.tasks.filter((t) => t.client_id === clientId);
    const ready = await Promise.all(recs.map((r) => this.withAudio(r)));
    return ready.sort((a, b) => a.created_ms - b.created_ms).map((r) => this.admin(r));
  }

  /** Pin a task to a status (control API); SUCCESS makes the result available at once. */
  async force(id: string, status: TranscriptionStatus, message?: string): Promise<AdminTask> {
    const rec = this.tasks.get(id);
    if (!rec) throw notFound();
    const next: TaskRecord = { ...rec, pinned: { status, ...(message !== undefined ? { message } : {}) } };
    await this.tasks.put(id, next);
    return this.admin(await this.withAudio(next));
  }

  async resetApp(clientId: string): Promise<void> {
    await this.tasks.deleteWhere((t) => t.client_id === clientId);
  }

  resetAll(): void {
    this.probes.clear();
    this.audioByMd5.clear();
    this.results.clear();
  }

  private admin(rec: TaskRecord): AdminTask {
    const view = this.view(rec);
    return {
      transcription_id: rec.transcription_id,
      client_id: rec.client_id,
      status: view.status,
      file_url: rec.file_url,
      created_at: toIso(rec.created_ms),
      ...(rec.pinned ? { forced_status: rec.pinned.status } : {}),
      ...(view.message ? { message: view.message } : {}),
    };
  }

  private duration(rec: TaskRecord): number {
    return rec.audio?.ok ? rec.audio.duration_s : fallbackDuration(rec.file_url);
  }

  private view(rec: TaskRecord): StatusView {
    const failure =
      rec.source.kind === 'unavailable'
        ? rec.source.message
        : rec.audio?.ok === false
          ? rec.audio.message
          : undefined;
    return statusAt({
      elapsedMs: this.deps.clock.now() - rec.created_ms,
      totalMs: totalMs(this.deps.config.transcriptionDelay, this.duration(rec)),
      failure,
      outcome: rec.outcome,
      pinned: rec.pinned,
    });
  }

  private async result(rec: TaskRecord, shape: ResultShape): Promise<SpecResult | LiveResult> {
    const key = `${rec.transcription_id}|${shape}`;
    let r = this.results.get(key);
    if (!r) {
      const audioKey = rec.source.kind === 'storage' ? `md5:${rec.source.md5}` : `url:${rec.file_url}`;
      r = await buildResult(
        {
          seed: this.deps.config.seed ?? RESULT_SEED,
          audioKey,
          duration: this.duration(rec),
          params: rec.params,
        },
        shape,
      );
      if (this.results.size >= RESULT_CACHE) this.results.delete(this.results.keys().next().value as string);
      this.results.set(key, r);
    }
    return r;
  }

  /** The record with its audio read (storage files only); concurrent callers share one read. */
  private async withAudio(rec: TaskRecord): Promise<TaskRecord> {
    if (rec.source.kind !== 'storage' || rec.audio) return rec;
    let probe = this.probes.get(rec.transcription_id);
    if (!probe) {
      probe = this.readAudio(rec.transcription_id, rec.source).finally(() =>
        this.probes.delete(rec.transcription_id),
      );
      this.probes.set(rec.transcription_id, probe);
    }
    return (await probe) ?? rec;
  }

  private async readAudio(id: string, file: StorageSource): Promise<TaskRecord | undefined> {
    const audio = await this.audioOf(file);
    // Re-read: the task may have been pinned or removed while the audio was read.
    const latest = this.tasks.get(id);
    if (!latest) return undefined;
    const next = { ...latest, audio };
    await this.tasks.put(id, next);
    return next;
  }

  /**
   * One read per distinct audio (by MD5), shared by concurrent and later tasks. The file is
   * found by id: the submission checked its URL, which may have expired since (a restart).
   */
  private audioOf({ file_id, md5 }: StorageSource): Promise<AudioInfo> {
    let p = this.audioByMd5.get(md5);
    if (!p) {
      const found = this.opts.files?.byId(file_id);
      if (found?.status !== 'found') {
        const reason = found?.reason ?? 'storage unavailable';
        return Promise.resolve({ ok: false, message: `The audio file could not be downloaded: ${reason}` });
      }
      p = probeAudio({ ...found.file, open: found.open, path: found.path });
      if (this.audioByMd5.size >= AUDIO_CACHE)
        this.audioByMd5.delete(this.audioByMd5.keys().next().value as string);
      this.audioByMd5.set(md5, p);
    }
    return p;
  }
}
