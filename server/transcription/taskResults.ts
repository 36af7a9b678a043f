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

/**
 * The results of finished tasks: an attached transcript (read from the store on each poll, so
 * attaching or detaching shows at once), else the engine's, else a made-up one cached by task.
 */
export class TaskResults {
  private readonly made = new BoundedMap<string, Heard>(RESULT_CACHE);

  constructor(
    private readonly config: Pick<Config, 'seed'>,
    private readonly engines: EngineWork,
    private readonly transcriptFor?: (md5: string) => Promise<Transcript | undefined>,
  ) {}

  async result(rec: TaskRecord, shape: ResultShape): Promise<Result> {
    const md5 = rec.source.kind === 'storage' || rec.source.kind === 'fetched' ? rec.source.md5 : undefined;
    const audioKey = md5 ? `md5:${md5}` : `url:${rec.file_url}`;
    const input: ResultInput = {
      seed: this.config.seed ?? RESULT_SEED,
      audioKey,
      duration: taskDuration(rec),
      params: rec.params,
    };
    const attached = md5 ? await this.transcriptFor?.(md5) : undefined;
    const engine = attached ? undefined : await this.engines.result(rec);
    return shapeResult(
      await heardFor(input, attached, engine, (i) => this.cachedFake(rec.transcription_id, i)),
      shape,
    );
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
