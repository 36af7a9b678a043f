import type { Config } from '../config.js';
import { BoundedMap } from '../core/boundedMap.js';
import type { EngineWork } from './engineWork.js';
import type { Result, ResultShape, TaskRecord, Transcript } from './model.js';
import { type Heard, shapeResult } from './resultShape.js';
import { fakeHeard, heardFor, type ResultInput } from './results.js';
import { taskDuration } from './taskState.js';

const RESULT_CACHE = 256;
/** Transcripts are test data, not secrets: without --seed they still follow the audio alone. */
const RESULT_SEED = 'partner-sim';

/** Where a result's words came from: the speech engine, a transcript attached to the audio, or made up. */
export type TranscriptSource = 'engine' | 'attached' | 'generated';

/**
 * The results of finished tasks: the engine's when the task had one (someone checking their
 * engine with a fixture audio must hear the engine, not the fixture's transcript), else an
 * attached transcript (read from the store on each poll, so attaching or detaching shows at
 * once), else a made-up one cached by task.
 */
export class TaskResults {
  private readonly made = new BoundedMap<string, Heard>(RESULT_CACHE);

  constructor(
    private readonly config: Pick<Config, 'seed'>,
    private readonly engines: EngineWork,
    private readonly transcriptFor?: (md5: string) => Promise<Transcript | undefined>,
  ) {}

  async result(rec: TaskRecord, shape: ResultShape): Promise<Result> {
    return (await this.sourced(rec, shape)).data;
  }

  /** The result and which source produced it (the poll's `X-Sim-Transcript-Source`). */
  async sourced(rec: TaskRecord, shape: ResultShape): Promise<{ data: Result; source: TranscriptSource }> {
    const md5 = rec.source.kind === 'storage' || rec.source.kind === 'fetched' ? rec.source.md5 : undefined;
    const audioKey = md5 ? `md5:${md5}` : `url:${rec.file_url}`;
    const input: ResultInput = {
      seed: this.config.seed ?? RESULT_SEED,
      audioKey,
      duration: taskDuration(rec),
      params: rec.params,
    };
    const engine = await this.engines.result(rec);
    const attached = engine === undefined && md5 ? await this.transcriptFor?.(md5) : undefined;
    const source: TranscriptSource = engine ? 'engine' : attached ? 'attached' : 'generated';
    const heard = await heardFor(input, attached, engine, (i) => this.cachedFake(rec.transcription_id, i));
    return { data: shapeResult(heard, shape), source };
  }

  forget(id: string): void {
    this.made.delete(id);
  }

  clear(): void {
    this.made.clear();
  }

  /** The made-up transcript of a task, made once (an attached one is read fresh on each poll). */
  private async cachedFake(id: string, input: ResultInput): Promise<Heard> {
    let heard = this.made.get(id);
    if (!heard) {
      heard = await fakeHeard(input);
      this.made.set(id, heard);
    }
    return heard;
  }
}
