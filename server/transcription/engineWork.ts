import { createHash } from 'node:crypto';
import type { Logger } from 'pino';
import type { ClockOf } from '../core/clock.js';
import type { Collection, Store } from '../store/store.js';
import {
  diarize,
  type EngineAudio,
  EngineError,
  endpointUrl,
  type SpeakerTurn,
  transcribe,
} from './engineClient.js';
import type { Params, TaskRecord } from './model.js';

/** What --transcriber (or the app's `transcriber`) and its companion options say. */
export interface EngineSettings {
  /** The server's base URL or its transcription endpoint. */
  url: string;
  /** LocalAI-style diarization endpoint (base URL or endpoint), if any. */
  diarizeUrl?: string;
  model: string;
  timeoutMs: number;
}

/** What an engine heard, kept by audio MD5 (and what else changes the answer) in the store. */
export interface EngineResult {
  key: string;
  md5: string;
  /** ISO-639-1, when the engine named it. */
  language?: string;
  segments: { start: number; end: number; text: string; speaker?: number }[];
}

/** An engine URL as a log shows it: never a user:password it may carry. */
function shownUrl(url: string): string {
  const u = new URL(url);
  u.username = '';
  u.password = '';
  return u.toString();
}

/** Engines are CPU-heavy: at most this many requests at once from one simulator. */
const CONCURRENCY = 2;
const MEMO = 256;

/** The engine part of a new task (stored with it, so a restart knows what to ask again). */
export function planEngine(
  md5: string,
  params: Params,
  s: EngineSettings,
): NonNullable<TaskRecord['engine']> {
  const url = endpointUrl(s.url, 'transcriptions');
  const diarizeUrl =
    params.diarization && s.diarizeUrl ? endpointUrl(s.diarizeUrl, 'diarization') : undefined;
  const language = params.language === 'auto' ? undefined : params.language.split('-')[0]!.toLowerCase();
  const key = createHash('sha256')
    .update([url, diarizeUrl ?? '', s.model, language ?? '', md5.toLowerCase()].join('\u0000'))
    .digest('hex');
  return {
    key,
    md5: md5.toLowerCase(),
    url,
    model: s.model,
    timeout_ms: s.timeoutMs,
    ...(language ? { language } : {}),
    ...(diarizeUrl ? { diarize_url: diarizeUrl } : {}),
  };
}

/** Number the speakers of the turns in order of first appearance; each segment gets the speaker it overlaps most. */
function assignTurns(segments: EngineResult['segments'], turns: SpeakerTurn[]): void {
  const numbers = new Map<string, number>();
  for (const seg of segments) {
    let best: SpeakerTurn | undefined;
    let bestOverlap = 0;
    for (const t of turns) {
      const overlap = Math.min(seg.end, t.end) - Math.max(seg.start, t.start);
      if (overlap > bestOverlap) [best, bestOverlap] = [t, overlap];
    }
    if (!best) continue;
    if (!numbers.has(best.speaker)) numbers.set(best.speaker, numbers.size);
    seg.speaker = numbers.get(best.speaker)!;
  }
}

/**
 * Engine work for tasks, off the request path: a task that needs an engine is `kick`ed after
 * its audio was read (and again by any poll or housekeeping round that finds it still
 * waiting, e.g. after a restart); the answer is kept in the `engineResults` collection by
 * audio MD5 and settings, so the same audio asks the engine once, across tasks and restarts;
 * then the task records when the engine finished (on its app's clock) — its status is
 * computed from that as from everything else (taskState.ts), with no timer per task.
 */
export class EngineWork {
  private readonly results: Collection<EngineResult>;
  private readonly jobs = new Map<string, Promise<EngineResult>>();
  private readonly inFlight = new Set<string>();
  private readonly memo = new Map<string, EngineResult>();
  private running = 0;
  private readonly queue: (() => void)[] = [];

  constructor(
    store: Store,
    private readonly tasks: Collection<TaskRecord>,
    private readonly clockOf: ClockOf,
    private readonly audioFor: (rec: TaskRecord) => Promise<EngineAudio>,
    private readonly logger: Logger,
  ) {
    this.results = store.collection<EngineResult>('engineResults');
  }

  clear(): void {
    this.memo.clear();
  }

  /**
   * Start the engine work of a waiting task unless it runs already. Callers on a request never
   * wait for it; the promise (which never rejects) says when the task recorded the answer.
   */
  async kick(rec: TaskRecord): Promise<void> {
    if (!rec.engine || rec.engine_done || this.inFlight.has(rec.transcription_id)) return;
    const id = rec.transcription_id;
    this.inFlight.add(id);
    await this.resultOf(rec)
      .then(
        () => this.finish(id, undefined),
        (e: Error) => {
          if (!(e instanceof EngineError))
            this.logger.warn({ err: e, transcription_id: id }, 'engine work failed');
          return this.finish(
            id,
            `Transcription failed: ${e instanceof EngineError ? e.message : 'the speech engine failed'}.`,
          );
        },
      )
      .catch((e: Error) =>
        this.logger.warn({ err: e, transcription_id: id }, 'recording engine result failed'),
      )
      .finally(() => this.inFlight.delete(id));
  }

  /** The engine's answer for a task that finished with one. */
  async result(rec: TaskRecord): Promise<EngineResult | undefined> {
    if (!rec.engine) return undefined;
    const hit = this.memo.get(rec.engine.key);
    if (hit) return hit;
    const stored = await this.results.get(rec.engine.key);
    if (stored) this.remember(stored);
    return stored;
  }

  private remember(r: EngineResult): void {
    if (this.memo.size >= MEMO) this.memo.delete(this.memo.keys().next().value as string);
    this.memo.set(r.key, r);
  }

  /** One engine request per key at a time, shared by every task waiting on it. */
  private async resultOf(rec: TaskRecord): Promise<EngineResult> {
    const cached = await this.result(rec);
    if (cached) return cached;
    const key = rec.engine!.key;
    let job = this.jobs.get(key);
    if (!job) {
      job = this.limited(() => this.ask(rec)).finally(() => this.jobs.delete(key));
      this.jobs.set(key, job);
    }
    return job;
  }

  private async ask(rec: TaskRecord): Promise<EngineResult> {
    const plan = rec.engine!;
    const again = await this.results.get(plan.key);
    if (again) return again;
    const audio = await this.audioFor(rec);
    // A wait of seconds to minutes with nothing else to see: the log says when it starts and ends.
    const fields = { transcription_id: rec.transcription_id, engine: shownUrl(plan.url) };
    const started = performance.now();
    const spent = () => Math.round(performance.now() - started);
    this.logger.info(fields, 'speech engine: waiting for its transcript');
    let heard: Awaited<ReturnType<typeof transcribe>>;
    try {
      heard = await transcribe(
        { url: plan.url, model: plan.model, language: plan.language, timeoutMs: plan.timeout_ms },
        audio,
      );
    } catch (e) {
      this.logger.warn({ ...fields, ms: spent(), error: (e as Error).message }, 'speech engine: failed');
      throw e;
    }
    this.logger.info({ ...fields, ms: spent(), segments: heard.segments.length }, 'speech engine: answered');
    const result: EngineResult = {
      key: plan.key,
      md5: plan.md5,
      ...(heard.language ? { language: heard.language } : {}),
      segments: heard.segments.map((s) => ({ ...s })),
    };
    if (plan.diarize_url) {
      const turns = await diarize(
        { url: plan.diarize_url, model: plan.model, timeoutMs: plan.timeout_ms },
        audio,
      );
      assignTurns(result.segments, turns);
    }
    await this.results.put(plan.key, result);
    this.remember(result);
    return result;
  }

  private async limited<T>(fn: () => Promise<T>): Promise<T> {
    if (this.running >= CONCURRENCY) await new Promise<void>((go) => this.queue.push(go));
    this.running++;
    try {
      return await fn();
    } finally {
      this.running--;
      this.queue.shift()?.();
    }
  }

  /** The task records when the engine finished, on its app's clock (once). */
  private async finish(id: string, failure: string | undefined): Promise<void> {
    await this.tasks.update(id, (cur) => {
      if (!cur || cur.engine_done) return { result: undefined };
      const done = { at_ms: this.clockOf(cur.client_id).now(), ...(failure ? { failure } : {}) };
      return { next: { ...cur, engine_done: done }, result: undefined };
    });
  }
}
