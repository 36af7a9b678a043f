import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { type ClockOf, oneClock, type SimClock } from '../core/clock.js';
import { SimError } from '../core/errors.js';
import type { Lifecycle } from '../core/lifecycle.js';
import type { Random } from '../core/random.js';
import type { PartnerApp } from '../domain/apps.js';
import { AppBound } from '../store/appBound.js';
import { PagedSweep } from '../store/pagedSweep.js';
import { type Page, type PageQuery, recordPage } from '../store/recordPage.js';
import type { Collection, Store } from '../store/store.js';
import { storedEngineAudio } from './engineAudio.js';
import type { EngineAudio } from './engineClient.js';
import { EngineWork } from './engineWork.js';
import { ExternalFetches, refetchedAudio } from './fetchTask.js';
import type { AdminTask, TaskBody, TaskRecord, TranscriptionParams, TranscriptionStatus } from './model.js';
import { newTask } from './newTask.js';
import { checkParams } from './paramsPolicy.js';
import { TaskAudio } from './taskAudio.js';
import { adminTask, taskBody } from './taskBodies.js';
import type { Settled } from './taskEvents.js';
import { TaskResults, type TranscriptSource } from './taskResults.js';
import { engineFor, shapeFor } from './taskSettings.js';
import { taskExpired, taskView } from './taskState.js';
import type { StatusView } from './timeline.js';
import type { TranscriptionOptions } from './transcriptionOptions.js';

const notFound = () => SimError.notFound('TRANSCRIPTION_NOT_FOUND', 'No transcription task with this id.');

/**
 * Transcription tasks: submission, status (computed, never scheduled — see timeline.ts),
 * deterministic results (results.ts) from the real audio duration (audio.ts).
 *
 * The audio of a storage file is read once, right after submission, without holding up the
 * answer; a poll that comes before the read finished (or after a restart interrupted it)
 * waits for it. Made-up transcripts are cached by task (an attached one is read from the
 * store on each poll, so attaching or detaching shows at once).
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
  private readonly results: TaskResults;
  private readonly clockOf: ClockOf;
  private readonly engines: EngineWork;
  private readonly fetches: ExternalFetches;
  /** Each app's newest `--keep-per-app` tasks stay; an older one answers 404 as an expired one does. */
  readonly bound: AppBound<TaskRecord>;

  constructor(
    store: Store,
    private readonly config: Config,
    clock: SimClock,
    random: Random,
    private readonly logger: Logger,
    private readonly opts: TranscriptionOptions = {},
  ) {
    this.tasks = store.collection<TaskRecord>('transcriptions');
    this.audio = new TaskAudio(this.tasks, opts.files);
    this.sweeping = new PagedSweep(this.tasks);
    this.clockOf = opts.clockOf ?? oneClock(clock);
    this.random = random.fork('transcriptions');
    this.engines = new EngineWork(store, this.tasks, this.clockOf, (r) => this.engineAudio(r), logger);
    this.fetches = new ExternalFetches(this.tasks, config.fetchAllowPrivate, this.engines, logger);
    this.results = new TaskResults(config, this.engines, opts.transcriptFor);
    this.bound = new AppBound({
      name: 'transcription tasks',
      collection: this.tasks,
      keep: config.keepPerApp,
      order: 'created_ms',
      // A task whose stored audio is being read now goes on a later tick.
      drop: async (id) => {
        const r = await this.tasks.get(id);
        return (
          r !== undefined && (r.source.kind !== 'storage' || r.audio !== undefined) && this.tasks.delete(id)
        );
      },
    });
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
    const warnings = checkParams(req.params, app.strict_params === true || this.config.strictParams);
    return { task: await this.submit(app, req, ownUrl), warnings };
  }

  /** `ownUrl`: the simulator's address as the submitter reached it (its storage host's too). */
  async submit(
    app: PartnerApp,
    req: { file_url: string; params?: TranscriptionParams },
    ownUrl?: string,
  ): Promise<TaskBody> {
    const found = await this.opts.files?.lookup(req.file_url, ownUrl);
    const outcome = await this.opts.outcomeFor?.(app.client_id);
    const engine = engineFor(this.config, app);
    const id = `task_exec_${this.random.hex(16)}`;
    const createdMs = this.clockOf(app.client_id).now();
    const fetchExternal = this.config.fetchExternalAudio;
    const rec = newTask({ id, app, req, createdMs, found, outcome, engine, fetchExternal });
    await this.tasks.put(rec.transcription_id, rec);
    this.bound.touch(app.client_id);
    await this.opts.events?.submitted(rec);
    // Read (or fetch) the audio now, in the background (then hand it to the engine, if any):
    // the answer does not wait for either.
    this.fetches.start(rec, engine);
    if (rec.source.kind === 'storage')
      this.audio
        .withAudio(rec)
        .then((r) => this.startEngine(r))
        .catch((e: Error) =>
          this.logger.warn({ err: e, transcription_id: rec.transcription_id }, 'reading audio failed'),
        );
    return { transcription_id: rec.transcription_id, status: 'PENDING', data: {} };
  }

  async get(app: PartnerApp, id: string): Promise<TaskBody> {
    return (await this.getSourced(app, id)).task;
  }

  /** A poll's answer, and where a finished task's words came from (none while it runs). */
  async getSourced(app: PartnerApp, id: string): Promise<{ task: TaskBody; source?: TranscriptSource }> {
    const stored = await this.tasks.get(id);
    if (!stored || stored.client_id !== app.client_id) throw notFound();
    const rec = await this.audio.withAudio(stored);
    await this.dropIfExpired(rec);
    // A task still waiting for its fetch or engine (e.g. after a restart) gets it started;
    // never waited for.
    this.fetches.start(rec, engineFor(this.config, app));
    this.startEngine(rec);
    const view = this.view(rec);
    if (view.status !== 'SUCCESS') return { task: taskBody(id, view, {}) };
    const { data, source } = await this.results.sourced(rec, shapeFor(this.config, app));
    return { task: taskBody(id, view, data), source };
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
    await this.opts.events?.forced(next);
    return this.admin(await this.audio.withAudio(next));
  }

  /**
   * The webhook event of a task that reached SUCCESS or FAILURE on its app's clock: the body's
   * `data` is what a poll answers (`{transcription_id, status, data, message?}`, the app's
   * result shape). Undefined while it runs; `none` for a final status without an event
   * (REVOKED); `gone` when the task is.
   */
  async settled(id: string): Promise<Settled | 'gone'> {
    const stored = await this.tasks.get(id);
    if (!stored) return 'gone';
    const rec = await this.audio.withAudio(stored);
    const view = this.view(rec);
    if (view.status === 'REVOKED') return 'none';
    if (view.status !== 'SUCCESS' && view.status !== 'FAILURE') return undefined;
    const app = this.opts.appOf?.(rec.client_id);
    const shape = app ? shapeFor(this.config, app) : this.config.resultShape;
    const data = view.status === 'SUCCESS' ? await this.results.result(rec, shape) : {};
    return {
      event: view.status === 'SUCCESS' ? 'transcription.completed' : 'transcription.failed',
      data: taskBody(id, view, data),
    };
  }

  async resetApp(clientId: string): Promise<void> {
    await this.tasks.deleteBy('client_id', clientId);
  }

  resetAll(): void {
    this.engines.clear();
    this.audio.clear();
    this.results.clear();
  }

  private admin(rec: TaskRecord): AdminTask {
    return adminTask(rec, this.view(rec));
  }

  private view(rec: TaskRecord): StatusView {
    return taskView(rec, this.config, this.clockOf(rec.client_id).now());
  }

  private expired(rec: TaskRecord): boolean {
    return taskExpired(rec, this.config, this.clockOf(rec.client_id).now());
  }

  /**
   * Tasks of one page (PagedSweep) past their retention on their app's clock, deleted (a task
   * whose audio is still being read is left alone): the background housekeeper's work, never a
   * request's. A task found still waiting for its engine (after a restart) gets it started.
   */
  sweepExpired(budget: number): Promise<number> {
    return this.sweeping.run(budget, async (r, id) => {
      this.startEngine(r);
      return (
        (r.source.kind !== 'storage' || r.audio !== undefined) && this.expired(r) && this.tasks.delete(id)
      );
    });
  }

  /** Engine work for a task whose audio was read and found usable; never waited for. */
  private startEngine(rec: TaskRecord): void {
    if (rec.engine && !rec.engine_done && rec.audio?.ok) void this.engines.kick(rec);
  }

  /** A task's audio for its engine: stored, just fetched, or fetched again after a restart. */
  private engineAudio(rec: TaskRecord): Promise<EngineAudio> {
    const kept = this.fetches.fileOf(rec.transcription_id);
    if (kept) return Promise.resolve(kept);
    if (rec.source.kind === 'fetched') return refetchedAudio(rec.file_url, this.config.fetchAllowPrivate);
    return storedEngineAudio(this.opts.files, rec);
  }

  /** The expired-task sweep has more tasks to look at this round. */
  get sweepBehind(): boolean {
    return this.sweeping.more;
  }

  /** An expired task is deleted where it is found, then answers as an unknown id. */
  private async dropIfExpired(rec: TaskRecord): Promise<void> {
    if (!this.expired(rec)) return;
    await this.tasks.delete(rec.transcription_id);
    this.results.forget(rec.transcription_id);
    throw notFound();
  }
}
