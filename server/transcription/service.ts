import { type ClockOf, oneClock, toIso } from '../core/clock.js';
import { SimError } from '../core/errors.js';
import type { Random } from '../core/random.js';
import type { PartnerApp } from '../domain/apps.js';
import type { FileSource } from '../domain/fileSource.js';
import type { CoreDeps, Lifecycle } from '../services.js';
import { PagedSweep } from '../store/pagedSweep.js';
import { type Page, type PageQuery, recordPage } from '../store/recordPage.js';
import type { Collection } from '../store/store.js';
import {
  type AdminTask,
  normalizeParams,
  type Override,
  type Result,
  type ResultShape,
  type TaskBody,
  type TaskRecord,
  type Transcript,
  type TranscriptionParams,
  type TranscriptionStatus,
} from './model.js';
import { checkParams } from './paramsPolicy.js';
import { type Heard, shapeResult } from './resultShape.js';
import { fakeHeard, heardFor, type ResultInput } from './results.js';
import { TaskAudio } from './taskAudio.js';
import { taskDuration, taskExpired, taskView } from './taskState.js';
import type { StatusView } from './timeline.js';

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
}

const notFound = () => SimError.notFound('TRANSCRIPTION_NOT_FOUND', 'No transcription task with this id.');
const RESULT_CACHE = 256;
/** Transcripts are test data, not secrets: without --seed they still follow the audio alone. */
const RESULT_SEED = 'partner-sim';

/**
 * Transcription tasks: submission, status (computed, never scheduled — see timeline.ts),
 * deterministic results (results.ts) from the real audio duration (audio.ts).
 *
 * The audio of a storage file is read once, right after submission, without holding up the
 * answer; a poll that comes before the read finished (or after a restart interrupted it)
 * waits for it. Durations are cached by MD5, made-up transcripts by task (an attached one is
 * read from the store on each poll, so attaching or detaching shows at once).
 *
 * Retention: a task that finished (SUCCESS, FAILURE, REVOKED) more than --result-retention
 * ago on the simulated clock is gone — 404 like an unknown id — and is deleted when found so,
 * or by the background housekeeper.
 * Audio durations are cached by app, MD5 and file type (never across apps: a cache hit
 * would tell an app that another one uploaded the same bytes).
 */
export class TranscriptionService implements Lifecycle {
  private readonly tasks: Collection<TaskRecord>;
  private readonly sweeping: PagedSweep<TaskRecord>;
  private readonly random: Random;
  private readonly audio: TaskAudio;
  private readonly results = new Map<string, Heard>();
  private readonly clockOf: ClockOf;

  constructor(
    private readonly deps: CoreDeps,
    private readonly opts: TranscriptionOptions = {},
  ) {
    this.tasks = deps.store.collection<TaskRecord>('transcriptions');
    this.audio = new TaskAudio(this.tasks, opts.files);
    this.sweeping = new PagedSweep(this.tasks);
    this.clockOf = opts.clockOf ?? oneClock(deps.clock);
    this.random = deps.random.fork('transcriptions');
  }

  /** The app's own switch when it has one, else --result-shape (default `both`). */
  shapeFor(app: PartnerApp): ResultShape {
    return app.result_shape ?? this.deps.config.resultShape;
  }

  /**
   * What the partner API's submit does: unknown `params` fields ignored with a warning, or
   * refused when the app or the server asks for strict params (paramsPolicy.ts), then submit.
   */
  async accept(
    app: PartnerApp,
    req: { file_url: string; params?: TranscriptionParams },
    ownUrl?: string,
  ): Promise<{ task: TaskBody; warnings: string[] }> {
    const warnings = checkParams(req.params, app.strict_params === true || this.deps.config.strictParams);
    return { task: await this.submit(app, req, ownUrl), warnings };
  }

  /** `ownUrl`: the simulator's address as the submitter reached it (its storage host's too). */
  async submit(
    app: PartnerApp,
    req: { file_url: string; params?: TranscriptionParams },
    ownUrl?: string,
  ): Promise<TaskBody> {
    const found = await this.opts.files?.lookup(req.file_url, ownUrl);
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
    const outcome = await this.opts.outcomeFor?.(app.client_id);
    const rec: TaskRecord = {
      transcription_id: `task_exec_${this.random.hex(16)}`,
      client_id: app.client_id,
      file_url: req.file_url,
      params: normalizeParams(req.params),
      created_ms: this.clockOf(app.client_id).now(),
      source,
      ...(outcome ? { outcome } : {}),
    };
    await this.tasks.put(rec.transcription_id, rec);
    // Read the audio now, in the background: the answer does not wait for it.
    if (source.kind === 'storage')
      this.audio
        .withAudio(rec)
        .catch((e: Error) =>
          this.deps.logger.warn({ err: e, transcription_id: rec.transcription_id }, 'reading audio failed'),
        );
    return { transcription_id: rec.transcription_id, status: 'PENDING', data: {} };
  }

  async get(app: PartnerApp, id: string): Promise<TaskBody> {
    const stored = await this.tasks.get(id);
    if (!stored || stored.client_id !== app.client_id) throw notFound();
    const rec = await this.audio.withAudio(stored);
    await this.dropIfExpired(rec);
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
      clientId === undefined ? await this.tasks.list() : await this.tasks.findBy('client_id', clientId);
    const ready = (await Promise.all(recs.map((r) => this.audio.withAudio(r)))).filter(
      (r) => !this.expired(r),
    );
    return ready.sort((a, b) => a.created_ms - b.created_ms).map((r) => this.admin(r));
  }

  /**
   * One page of the tasks in id order, optionally one app's (the control API's listing).
   * Expired tasks awaiting the sweep are left out, so a page may hold fewer than `limit`.
   */
  async page(q: PageQuery): Promise<Page<AdminTask>> {
    const page = await recordPage(this.tasks, (t) => t.transcription_id, q);
    const ready = await Promise.all(page.items.map((r) => this.audio.withAudio(r)));
    return { ...page, items: ready.filter((r) => !this.expired(r)).map((r) => this.admin(r)) };
  }

  /** Pin a task to a status (control API); SUCCESS makes the result available at once. */
  async force(id: string, status: TranscriptionStatus, message?: string): Promise<AdminTask> {
    const rec = await this.tasks.get(id);
    if (!rec) throw notFound();
    await this.dropIfExpired(await this.audio.withAudio(rec));
    // update: the audio read in the background may land meanwhile; both are kept.
    const next = await this.tasks.update(id, (cur) => {
      if (!cur) throw notFound();
      const pinned: TaskRecord = {
        ...cur,
        pinned: { status, ...(message !== undefined ? { message } : {}) },
        pinned_ms: this.clockOf(cur.client_id).now(),
      };
      return { next: pinned, result: pinned };
    });
    return this.admin(await this.audio.withAudio(next));
  }

  async resetApp(clientId: string): Promise<void> {
    await this.tasks.deleteBy('client_id', clientId);
  }

  resetAll(): void {
    this.audio.clear();
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

  private view(rec: TaskRecord): StatusView {
    return taskView(rec, this.deps.config, this.clockOf(rec.client_id).now());
  }

  private expired(rec: TaskRecord): boolean {
    return taskExpired(rec, this.deps.config, this.clockOf(rec.client_id).now());
  }

  /**
   * Tasks of one page (PagedSweep) past their retention on their app's clock, deleted (a task
   * whose audio is still being read is left alone): the background housekeeper's work, never a
   * request's.
   */
  sweepExpired(budget: number): Promise<number> {
    return this.sweeping.run(
      budget,
      async (r, id) =>
        (r.source.kind !== 'storage' || r.audio !== undefined) && this.expired(r) && this.tasks.delete(id),
    );
  }

  /** The expired-task sweep has more tasks to look at this round. */
  get sweepBehind(): boolean {
    return this.sweeping.more;
  }

  /** An expired task is deleted where it is found, then answers as an unknown id. */
  private async dropIfExpired(rec: TaskRecord): Promise<void> {
    if (!this.expired(rec)) return;
    await this.tasks.delete(rec.transcription_id);
    this.results.delete(rec.transcription_id);
    throw notFound();
  }

  private async result(rec: TaskRecord, shape: ResultShape): Promise<Result> {
    const audioKey = rec.source.kind === 'storage' ? `md5:${rec.source.md5}` : `url:${rec.file_url}`;
    const input: ResultInput = {
      seed: this.deps.config.seed ?? RESULT_SEED,
      audioKey,
      duration: taskDuration(rec),
      params: rec.params,
    };
    const attached =
      rec.source.kind === 'storage' ? await this.opts.transcriptFor?.(rec.source.md5) : undefined;
    return shapeResult(
      await heardFor(input, attached, (i) => this.cachedFake(rec.transcription_id, i)),
      shape,
    );
  }

  /** The made-up transcript of a task, made once (an attached one is read fresh on each poll). */
  private async cachedFake(id: string, input: ResultInput): Promise<Heard> {
    let heard = this.results.get(id);
    if (!heard) {
      heard = await fakeHeard(input);
      if (this.results.size >= RESULT_CACHE) this.results.delete(this.results.keys().next().value as string);
      this.results.set(id, heard);
    }
    return heard;
  }
}
